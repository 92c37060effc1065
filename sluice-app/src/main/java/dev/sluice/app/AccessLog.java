package dev.sluice.app;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.LoggingConfig;
import dev.sluice.observe.ExchangeEvent;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.observe.PartEvent;
import dev.sluice.observe.PartKind;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The access log ({@code logging.access}): one JSON object per request (or a line in Apache's
 * combined format, or of a template of the JSON's fields), written by one thread of its own, never on the request's thread or event loop. An exchange is only put on a bounded queue; when
 * the writer falls behind by {@code queue} lines, further lines are dropped and counted ({@code
 * sluice_access_log_dropped_total}) rather than slowing requests. The path is logged without its
 * query (which may carry an API key).
 *
 * <pre>
 * {"time":"2026-11-26T07:50:00.123Z","request_id":"q7k2m9xa-1f","client":"10.0.0.7","method":"GET",
 *  "path":"/products/1001","route":"catalog","status":200,"duration_ms":1.734,"outcome":"answered",
 *  "bytes_in":0,"bytes_out":5120,"upstream_ms":1.212,"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736",
 *  "refused_by":null}
 * </pre>
 *
 * A gRPC call's line adds {@code "grpc_status":N}, the status its client got (the upstream's, or the
 * gateway's own answer's). A composition's line ends with its parts: {@code "parts":{"product":200,"reviews":"timeout"}} (the
 * upstream's status for a part relayed whole, else how it settled).
 */
final class AccessLog implements GatewayObserver, AutoCloseable {

    private record Line(long epochMillis, ExchangeEvent event) {}

    private static final Line END = new Line(0, null);

    /** Lines formatted per turn of the writer. */
    private static final int BATCH = 512;

    /** Formatted bytes written at once (lines are formatted straight into bytes, never into chars). */
    private static final int CHUNK = 8 * 1024;

    /** How long the writer sleeps when the queue is empty. */
    private static final java.time.Duration QUIET = java.time.Duration.ofMillis(20);

    private final ArrayBlockingQueue<Line> queue;
    private final LoggingConfig.AccessLog config;
    private final List<LoggingConfig.AccessLog.Piece> template; // empty unless config.template()
    private final OutputStream out;
    private final boolean ownsOut;
    private final LongAdder dropped = new LongAdder();
    private final LongAdder written = new LongAdder();
    private final Thread writer;
    private volatile boolean closed;

    private AccessLog(LoggingConfig.AccessLog config, OutputStream out, boolean ownsOut) {
        this.queue = new ArrayBlockingQueue<>(config.queue());
        this.config = config;
        this.template = config.template() ? LoggingConfig.AccessLog.pieces(config.format()) : List.of();
        this.out = out;
        this.ownsOut = ownsOut;
        this.writer = Thread.ofPlatform().name("sluice-access-log").daemon(true).start(this::write);
    }

    /**
     * Opens the log where {@code config.to()} says: {@code stdout}, {@code stderr} (the streams the
     * command writes to) or a file, appended to.
     */
    static AccessLog open(
            LoggingConfig.AccessLog config, PrintStream stdout, PrintStream stderr, Optional<MeterRegistry> registry)
            throws IOException {
        requireNonNull(config, "config");
        AccessLog log = switch (config.to()) {
            case "stdout" -> new AccessLog(config, stdout, false);
            case "stderr" -> new AccessLog(config, stderr, false);
            default ->
                new AccessLog(
                        config,
                        Files.newOutputStream(
                                Path.of(config.to()), StandardOpenOption.CREATE, StandardOpenOption.APPEND),
                        true);
        };
        registry.ifPresent(r -> FunctionCounter.builder("sluice.access.log.dropped", log.dropped, LongAdder::sum)
                .description("Access log lines dropped because the writer fell behind by the queue's size")
                .register(r));
        return log;
    }

    /** A log to {@code out} (tests). */
    static AccessLog to(OutputStream out, int queue) {
        return to(out, queue, "json");
    }

    /** A log to {@code out} in {@code format} (tests). */
    static AccessLog to(OutputStream out, int queue, String format) {
        return new AccessLog(new LoggingConfig.AccessLog(format, "test", queue), out, true);
    }

    @Override
    public void exchange(ExchangeEvent event) {
        if (closed || !queue.offer(new Line(System.currentTimeMillis(), event))) {
            dropped.increment();
        }
    }

    /** Lines dropped so far. */
    long dropped() {
        return dropped.sum();
    }

    /**
     * Drains the queue in batches and writes when {@link #CHUNK} bytes are formatted or the queue is
     * empty, then sleeps {@link #QUIET} rather than waiting on the queue: a writer parked in {@code
     * take()} is woken by every line (a futex wake on the request's thread) and writes one line at a
     * time (a write(2) per request), a system call on every request's path. A line now reaches the
     * file within about {@code QUIET} of its request (Envoy flushes its access logs every second).
     */
    private void write() {
        Bytes line = new Bytes();
        Timestamps times = new Timestamps();
        List<Line> batch = new ArrayList<>(BATCH);
        try {
            while (true) {
                if (queue.drainTo(batch, BATCH) == 0) {
                    line.writeTo(out);
                    out.flush();
                    LockSupport.parkNanos(QUIET.toNanos());
                    continue;
                }
                for (Line next : batch) {
                    if (next == END) {
                        return;
                    }
                    if (config.combined()) {
                        combined(next, line);
                    } else if (config.template()) {
                        template(next, template, line, times);
                    } else {
                        format(next, line, times);
                    }
                    written.increment();
                    if (line.length() >= CHUNK) {
                        line.writeTo(out);
                    }
                }
                batch.clear();
            }
        } catch (IOException e) {
            System.err.println("sluice: the access log cannot be written: " + e);
        } finally {
            try {
                line.writeTo(out);
                out.flush();
            } catch (IOException ignored) {
                // nothing more to do: the log's destination failed
            }
        }
    }

    static void format(Line line, Bytes out, Timestamps times) {
        ExchangeEvent e = line.event();
        out.ascii("{\"time\":\"");
        times.append(out, line.epochMillis());
        out.ascii("\",\"request_id\":").quoted(e.requestId());
        out.ascii(",\"client\":").quoted(e.client());
        out.ascii(",\"method\":").quoted(e.method());
        out.ascii(",\"path\":").quoted(e.path());
        out.ascii(",\"route\":");
        if (e.route().isEmpty()) {
            out.ascii("null");
        } else {
            out.quoted(e.route());
        }
        out.ascii(",\"status\":").number(e.status());
        out.ascii(",\"duration_ms\":").millis(e.durationNanos());
        out.ascii(e.aborted() ? ",\"outcome\":\"aborted\"" : ",\"outcome\":\"answered\"");
        out.ascii(",\"bytes_in\":").number(e.bytesIn());
        out.ascii(",\"bytes_out\":").number(e.bytesOut());
        out.ascii(",\"upstream_ms\":");
        if (e.upstreamNanos() < 0) {
            out.ascii("null");
        } else {
            out.millis(e.upstreamNanos());
        }
        out.ascii(",\"trace_id\":").quoted(e.traceId());
        out.ascii(",\"refused_by\":");
        if (e.refusedBy().isEmpty()) {
            out.ascii("null");
        } else {
            out.quoted(e.refusedBy());
        }
        if (e.grpcStatus() >= 0) { // a gRPC call: its status as the client got it
            out.ascii(",\"grpc_status\":").number(e.grpcStatus());
        }
        if (!e.parts().isEmpty()) {
            out.ascii(",\"parts\":{");
            for (int i = 0; i < e.parts().size(); i++) {
                PartEvent part = e.parts().get(i);
                out.ascii(i == 0 ? "" : ",").quoted(part.outcome().name()).ascii(":");
                if (part.kind() == PartKind.OK) {
                    out.number(part.outcome().status());
                } else {
                    out.ascii("\"").text(part.kind().label()).ascii("\"");
                }
            }
            out.ascii("}");
        }
        out.ascii("}\n");
    }

    private static final java.time.format.DateTimeFormatter CLF = java.time.format.DateTimeFormatter.ofPattern(
                    "dd/MMM/yyyy:HH:mm:ss Z", java.util.Locale.ROOT)
            .withZone(java.time.ZoneOffset.UTC);

    /**
     * Apache's combined format: {@code 10.0.0.7 - - [26/Nov/2026:07:50:00 +0000] "GET /products/1001"
     * 200 5120 "-" "-"}. The request line has no protocol version and Referer and User-Agent are
     * {@code -}: the gateway logs no header values. The path is without its query, as in JSON.
     */
    static void combined(Line line, Bytes out) {
        ExchangeEvent e = line.event();
        out.text(e.client().isEmpty() ? "-" : e.client())
                .ascii(" - - [")
                .text(CLF.format(Instant.ofEpochMilli(line.epochMillis())))
                .ascii("] \"")
                .text(e.method())
                .ascii(" ")
                .quotedContent(e.path())
                .ascii("\" ")
                .number(e.status())
                .ascii(" ");
        if (e.bytesOut() > 0) {
            out.number(e.bytesOut());
        } else {
            out.ascii("-");
        }
        out.ascii(" \"-\" \"-\"\n");
    }

    /** A template's line: each field as the JSON line has it, unquoted, {@code -} for none. */
    static void template(Line line, List<LoggingConfig.AccessLog.Piece> pieces, Bytes out, Timestamps times) {
        ExchangeEvent e = line.event();
        for (LoggingConfig.AccessLog.Piece piece : pieces) {
            if (!piece.field()) {
                out.text(piece.text());
                continue;
            }
            switch (piece.text()) {
                case "time" -> times.append(out, line.epochMillis());
                case "request_id" -> field(e.requestId(), out);
                case "client" -> field(e.client(), out);
                case "method" -> field(e.method(), out);
                case "path" -> field(e.path(), out);
                case "route" -> field(e.route(), out);
                case "status" -> out.number(e.status());
                case "duration_ms" -> out.millis(e.durationNanos());
                case "outcome" -> out.ascii(e.aborted() ? "aborted" : "answered");
                case "bytes_in" -> out.number(e.bytesIn());
                case "bytes_out" -> out.number(e.bytesOut());
                case "upstream_ms" -> {
                    if (e.upstreamNanos() < 0) {
                        out.ascii("-");
                    } else {
                        out.millis(e.upstreamNanos());
                    }
                }
                case "trace_id" -> field(e.traceId(), out);
                case "refused_by" -> field(e.refusedBy(), out);
                default -> throw new IllegalStateException("a field the template check let through: " + piece.text());
            }
        }
        out.ascii("\n");
    }

    /** A text field of a template: {@code -} when empty; spaces kept, control characters escaped. */
    private static void field(String value, Bytes out) {
        if (value == null || value.isEmpty()) {
            out.ascii("-");
        } else {
            out.quotedContent(value);
        }
    }

    /**
     * Instants written as {@link Instant#toString} writes them ({@code 2026-11-26T20:36:07.123Z}, no
     * fraction on a whole second), the text up to the second made once per second: formatting every
     * line's instant whole was the access log's largest cost. One per writer thread.
     */
    static final class Timestamps {
        private long second = Long.MIN_VALUE;
        private String upToSecond; // "2026-11-26T20:36:07"

        void append(Bytes out, long epochMillis) {
            long s = Math.floorDiv(epochMillis, 1000);
            int ms = (int) Math.floorMod(epochMillis, 1000);
            if (s != second) {
                String whole = Instant.ofEpochSecond(s).toString(); // ends in 'Z', no fraction
                upToSecond = whole.substring(0, whole.length() - 1);
                second = s;
            }
            out.ascii(upToSecond);
            if (ms != 0) {
                out.ascii(ms < 10 ? ".00" : ms < 100 ? ".0" : ".").number(ms);
            }
            out.ascii("Z");
        }
    }

    /**
     * Lines as UTF-8 bytes, formatted straight into one growing array: no chars, no encoder (the
     * writer's cost was copying each event's strings through a {@code StringBuilder}, a {@code char[]}
     * and the charset encoder). Strings are written char by char: ASCII as is, the rest as UTF-8, an
     * unpaired surrogate as {@code ?} (as the JDK's encoder replaces it).
     */
    static final class Bytes {
        private byte[] bytes = new byte[2 * CHUNK];
        private int length;

        int length() {
            return length;
        }

        /** Writes what is formatted to {@code out} and starts again. */
        void writeTo(OutputStream out) throws IOException {
            if (length > 0) {
                out.write(bytes, 0, length);
                length = 0;
            }
        }

        @Override
        public String toString() {
            return new String(bytes, 0, length, java.nio.charset.StandardCharsets.UTF_8);
        }

        private void room(int more) {
            if (length + more > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(length + more, 2 * bytes.length));
            }
        }

        /** {@code text}, which the caller knows to be ASCII (a constant of this class). */
        Bytes ascii(String text) {
            int n = text.length();
            room(n);
            copy(text, 0, n);
            return this;
        }

        /** {@code text} as UTF-8, nothing escaped. */
        Bytes text(String text) {
            int n = text.length();
            room(3 * n);
            int i = 0;
            while (i < n && text.charAt(i) < 0x80) {
                i++;
            }
            copy(text, 0, i);
            for (; i < n; i++) {
                i = utf8(text, i);
            }
            return this;
        }

        /**
         * ASCII {@code text[from..to)} as it is: the JDK copies a string's Latin-1 bytes at once (an
         * array copy), where a loop over its chars was slower than the {@code StringBuilder} and
         * encoder this replaced.
         */
        @SuppressWarnings("deprecation") // String.getBytes(int, int, byte[], int): the low byte of each char
        private void copy(String text, int from, int to) {
            text.getBytes(from, to, bytes, length);
            length += to - from;
        }

        /** The char at {@code i} (with its low surrogate, if it starts a pair); returns the last index used. */
        private int utf8(String text, int i) {
            char c = text.charAt(i);
            if (c < 0x80) {
                bytes[length++] = (byte) c;
            } else if (c < 0x800) {
                bytes[length++] = (byte) (0xc0 | c >> 6);
                bytes[length++] = (byte) (0x80 | c & 0x3f);
            } else if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c)
                        && i + 1 < text.length()
                        && Character.isLowSurrogate(text.charAt(i + 1))) {
                    int cp = Character.toCodePoint(c, text.charAt(++i));
                    room(4);
                    bytes[length++] = (byte) (0xf0 | cp >> 18);
                    bytes[length++] = (byte) (0x80 | cp >> 12 & 0x3f);
                    bytes[length++] = (byte) (0x80 | cp >> 6 & 0x3f);
                    bytes[length++] = (byte) (0x80 | cp & 0x3f);
                } else {
                    bytes[length++] = '?';
                }
            } else {
                bytes[length++] = (byte) (0xe0 | c >> 12);
                bytes[length++] = (byte) (0x80 | c >> 6 & 0x3f);
                bytes[length++] = (byte) (0x80 | c & 0x3f);
            }
            return i;
        }

        /** The JSON string literal of {@code text}, escaped as {@link dev.sluice.compose.JsonSplice#quote} escapes. */
        Bytes quoted(String text) {
            int n = text.length();
            room(6 * n + 2);
            bytes[length++] = '"';
            int plain = 0; // request ids, paths, addresses: nearly always every char
            while (plain < n) {
                char c = text.charAt(plain);
                if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) {
                    break;
                }
                plain++;
            }
            copy(text, 0, plain);
            for (int i = plain; i < n; i++) {
                char c = text.charAt(i);
                if (c >= 0x20 && c != '"' && c != '\\') {
                    i = utf8(text, i);
                    continue;
                }
                bytes[length++] = '\\';
                switch (c) {
                    case '"', '\\' -> bytes[length++] = (byte) c;
                    case '\n' -> bytes[length++] = 'n';
                    case '\r' -> bytes[length++] = 'r';
                    case '\t' -> bytes[length++] = 't';
                    default -> { // another control character: \\u00xx
                        bytes[length++] = 'u';
                        bytes[length++] = '0';
                        bytes[length++] = '0';
                        bytes[length++] = (byte) Character.forDigit(c >> 4, 16);
                        bytes[length++] = (byte) Character.forDigit(c & 15, 16);
                    }
                }
            }
            bytes[length++] = '"';
            return this;
        }

        /** {@code text} inside a quoted field: a quote or backslash escaped, a control character as {@code \\xNN}. */
        Bytes quotedContent(String text) {
            int n = text.length();
            room(4 * n);
            for (int i = 0; i < n; i++) {
                char c = text.charAt(i);
                if (c == '"' || c == '\\') {
                    bytes[length++] = '\\';
                    bytes[length++] = (byte) c;
                } else if (c < 0x20 || c == 0x7f) {
                    bytes[length++] = '\\';
                    bytes[length++] = 'x';
                    bytes[length++] = (byte) Character.forDigit(c >> 4, 16);
                    bytes[length++] = (byte) Character.forDigit(c & 15, 16);
                } else {
                    i = utf8(text, i);
                }
            }
            return this;
        }

        /** {@code value} in decimal. */
        Bytes number(long value) {
            room(20);
            if (value < 0) {
                if (value == Long.MIN_VALUE) {
                    return ascii(Long.toString(value));
                }
                bytes[length++] = '-';
                value = -value;
            }
            int digits = 1;
            for (long rest = value / 10; rest > 0; rest /= 10) {
                digits++;
            }
            for (int at = length + digits - 1; at >= length; at--) {
                bytes[at] = (byte) ('0' + value % 10);
                value /= 10;
            }
            length += digits;
            return this;
        }

        /** Nanoseconds as milliseconds with three decimals, rounded half up ({@code 1.235}). */
        Bytes millis(long nanos) {
            long micros = (nanos + 500) / 1000;
            long fraction = micros % 1000;
            return number(micros / 1000)
                    .ascii(fraction < 10 ? ".00" : fraction < 100 ? ".0" : ".")
                    .number(fraction);
        }
    }

    /** Writes what is queued (waiting up to 5 s), then stops; later exchanges are counted as dropped. */
    @Override
    public void close() {
        closed = true;
        try {
            queue.put(END);
            writer.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (ownsOut) {
            try {
                out.close();
            } catch (IOException ignored) {
                // closing a file that failed: nothing to recover
            }
        }
    }
}
