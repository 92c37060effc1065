package dev.sluice.app;

import static java.util.Objects.requireNonNull;

import dev.sluice.compose.JsonSplice;
import dev.sluice.config.LoggingConfig;
import dev.sluice.observe.ExchangeEvent;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.observe.PartEvent;
import dev.sluice.observe.PartKind;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
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

    /** How long the writer sleeps when the queue is empty. */
    private static final java.time.Duration QUIET = java.time.Duration.ofMillis(20);

    private final ArrayBlockingQueue<Line> queue;
    private final LoggingConfig.AccessLog config;
    private final List<LoggingConfig.AccessLog.Piece> template; // empty unless config.template()
    private final Writer out;
    private final boolean ownsOut;
    private final LongAdder dropped = new LongAdder();
    private final LongAdder written = new LongAdder();
    private final Thread writer;
    private volatile boolean closed;

    private AccessLog(LoggingConfig.AccessLog config, Writer out, boolean ownsOut) {
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
            case "stdout" -> new AccessLog(config, new OutputStreamWriter(stdout, StandardCharsets.UTF_8), false);
            case "stderr" -> new AccessLog(config, new OutputStreamWriter(stderr, StandardCharsets.UTF_8), false);
            default ->
                new AccessLog(
                        config,
                        new BufferedWriter(new OutputStreamWriter(
                                Files.newOutputStream(
                                        Path.of(config.to()), StandardOpenOption.CREATE, StandardOpenOption.APPEND),
                                StandardCharsets.UTF_8)),
                        true);
        };
        registry.ifPresent(r -> FunctionCounter.builder("sluice.access.log.dropped", log.dropped, LongAdder::sum)
                .description("Access log lines dropped because the writer fell behind by the queue's size")
                .register(r));
        return log;
    }

    /** A log to {@code out} (tests). */
    static AccessLog to(Writer out, int queue) {
        return to(out, queue, "json");
    }

    /** A log to {@code out} in {@code format} (tests). */
    static AccessLog to(Writer out, int queue, String format) {
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
     * Drains the queue in batches and flushes when it is empty, then sleeps {@link #QUIET} rather
     * than waiting on the queue: a writer parked in {@code take()} is woken by every line (a futex
     * wake on the request's thread) and flushed one line at a time (a write(2) per request), a
     * system call on every request's path. A line now reaches the file within about
     * {@code QUIET} of its request (Envoy flushes its access logs every second).
     */
    private void write() {
        StringBuilder line = new StringBuilder(256);
        char[] chars = new char[512];
        Timestamps times = new Timestamps();
        List<Line> batch = new ArrayList<>(BATCH);
        try {
            while (true) {
                if (queue.drainTo(batch, BATCH) == 0) {
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
                    // Writer.append(CharSequence) would copy the line into a new String first
                    if (chars.length < line.length()) {
                        chars = new char[Math.max(line.length(), 2 * chars.length)];
                    }
                    line.getChars(0, line.length(), chars, 0);
                    out.write(chars, 0, line.length());
                    written.increment();
                }
                batch.clear();
            }
        } catch (IOException e) {
            System.err.println("sluice: the access log cannot be written: " + e);
        } finally {
            try {
                out.flush();
            } catch (IOException ignored) {
                // nothing more to do: the log's destination failed
            }
        }
    }

    static void format(Line line, StringBuilder out, Timestamps times) {
        ExchangeEvent e = line.event();
        out.setLength(0);
        out.append("{\"time\":\"");
        times.append(out, line.epochMillis());
        out.append("\",\"request_id\":");
        JsonSplice.appendQuoted(out, e.requestId()).append(",\"client\":");
        JsonSplice.appendQuoted(out, e.client()).append(",\"method\":");
        JsonSplice.appendQuoted(out, e.method()).append(",\"path\":");
        JsonSplice.appendQuoted(out, e.path()).append(",\"route\":");
        if (e.route().isEmpty()) {
            out.append("null");
        } else {
            JsonSplice.appendQuoted(out, e.route());
        }
        out.append(",\"status\":")
                .append(e.status())
                .append(",\"duration_ms\":")
                .append(millis(e.durationNanos()))
                .append(",\"outcome\":\"")
                .append(e.aborted() ? "aborted" : "answered")
                .append("\",\"bytes_in\":")
                .append(e.bytesIn())
                .append(",\"bytes_out\":")
                .append(e.bytesOut())
                .append(",\"upstream_ms\":")
                .append(e.upstreamNanos() < 0 ? "null" : millis(e.upstreamNanos()))
                .append(",\"trace_id\":");
        JsonSplice.appendQuoted(out, e.traceId()).append(",\"refused_by\":");
        if (e.refusedBy().isEmpty()) {
            out.append("null");
        } else {
            JsonSplice.appendQuoted(out, e.refusedBy());
        }
        if (e.grpcStatus() >= 0) { // a gRPC call: its status as the client got it
            out.append(",\"grpc_status\":").append(e.grpcStatus());
        }
        if (!e.parts().isEmpty()) {
            out.append(",\"parts\":{");
            for (int i = 0; i < e.parts().size(); i++) {
                PartEvent part = e.parts().get(i);
                JsonSplice.appendQuoted(
                                out.append(i == 0 ? "" : ","), part.outcome().name())
                        .append(':');
                if (part.kind() == PartKind.OK) {
                    out.append(part.outcome().status());
                } else {
                    out.append('"').append(part.kind().label()).append('"');
                }
            }
            out.append('}');
        }
        out.append("}\n");
    }

    private static final java.time.format.DateTimeFormatter CLF = java.time.format.DateTimeFormatter.ofPattern(
                    "dd/MMM/yyyy:HH:mm:ss Z", java.util.Locale.ROOT)
            .withZone(java.time.ZoneOffset.UTC);

    /**
     * Apache's combined format: {@code 10.0.0.7 - - [26/Nov/2026:07:50:00 +0000] "GET /products/1001"
     * 200 5120 "-" "-"}. The request line has no protocol version and Referer and User-Agent are
     * {@code -}: the gateway logs no header values. The path is without its query, as in JSON.
     */
    static void combined(Line line, StringBuilder out) {
        ExchangeEvent e = line.event();
        out.setLength(0);
        out.append(e.client().isEmpty() ? "-" : e.client())
                .append(" - - [")
                .append(CLF.format(Instant.ofEpochMilli(line.epochMillis())))
                .append("] \"")
                .append(e.method())
                .append(' ');
        quotedContent(e.path(), out);
        out.append("\" ").append(e.status()).append(' ');
        if (e.bytesOut() > 0) {
            out.append(e.bytesOut());
        } else {
            out.append('-');
        }
        out.append(" \"-\" \"-\"\n");
    }

    /** {@code text} inside a quoted field: a quote or backslash escaped, a control character as {@code \\xNN}. */
    private static void quotedContent(String text, StringBuilder out) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f) {
                out.append("\\x").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 15, 16));
            } else {
                out.append(c);
            }
        }
    }

    /** A template's line: each field as the JSON line has it, unquoted, {@code -} for none. */
    static void template(Line line, List<LoggingConfig.AccessLog.Piece> pieces, StringBuilder out, Timestamps times) {
        ExchangeEvent e = line.event();
        out.setLength(0);
        for (LoggingConfig.AccessLog.Piece piece : pieces) {
            if (!piece.field()) {
                out.append(piece.text());
                continue;
            }
            switch (piece.text()) {
                case "time" -> times.append(out, line.epochMillis());
                case "request_id" -> text(e.requestId(), out);
                case "client" -> text(e.client(), out);
                case "method" -> text(e.method(), out);
                case "path" -> text(e.path(), out);
                case "route" -> text(e.route(), out);
                case "status" -> out.append(e.status());
                case "duration_ms" -> out.append(millis(e.durationNanos()));
                case "outcome" -> out.append(e.aborted() ? "aborted" : "answered");
                case "bytes_in" -> out.append(e.bytesIn());
                case "bytes_out" -> out.append(e.bytesOut());
                case "upstream_ms" -> out.append(e.upstreamNanos() < 0 ? "-" : millis(e.upstreamNanos()));
                case "trace_id" -> text(e.traceId(), out);
                case "refused_by" -> text(e.refusedBy(), out);
                default -> throw new IllegalStateException("a field the template check let through: " + piece.text());
            }
        }
        out.append('\n');
    }

    /** A text field of a template: {@code -} when empty; spaces kept, control characters escaped. */
    private static void text(String value, StringBuilder out) {
        if (value == null || value.isEmpty()) {
            out.append('-');
        } else {
            quotedContent(value, out);
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

        void append(StringBuilder out, long epochMillis) {
            long s = Math.floorDiv(epochMillis, 1000);
            int ms = (int) Math.floorMod(epochMillis, 1000);
            if (s != second) {
                String whole = Instant.ofEpochSecond(s).toString(); // ends in 'Z', no fraction
                upToSecond = whole.substring(0, whole.length() - 1);
                second = s;
            }
            out.append(upToSecond);
            if (ms != 0) {
                out.append('.');
                if (ms < 100) {
                    out.append('0');
                }
                if (ms < 10) {
                    out.append('0');
                }
                out.append(ms);
            }
            out.append('Z');
        }
    }

    /** Nanoseconds as milliseconds with three decimals, rounded half up ("1.235"). */
    static String millis(long nanos) {
        long micros = (nanos + 500) / 1000;
        long fraction = micros % 1000;
        return (micros / 1000) + (fraction < 10 ? ".00" : fraction < 100 ? ".0" : ".") + fraction;
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
