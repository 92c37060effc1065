package dev.sluice.tck;

import static java.util.Objects.requireNonNull;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * An HTTP/1.1 client on a raw socket, one request per connection, for what {@code java.net.http}
 * hides: the framing of the response, whether it ended cleanly or was aborted, when its first byte
 * came, and reading slowly. Bodies are digested as they arrive and kept only up to a limit.
 */
public final class WireClient {

    private final int port;
    private final Duration timeout;
    private final long keepLimit;
    private final int pauseEvery;
    private final Duration pause;

    private WireClient(int port, Duration timeout, long keepLimit, int pauseEvery, Duration pause) {
        this.port = port;
        this.timeout = timeout;
        this.keepLimit = keepLimit;
        this.pauseEvery = pauseEvery;
        this.pause = pause;
    }

    /** A client of {@code 127.0.0.1:port}: 30 s read timeout, bodies up to 16 MB kept. */
    public static WireClient to(int port) {
        return new WireClient(port, Duration.ofSeconds(30), 16 << 20, 0, Duration.ZERO);
    }

    /** The longest wait for any byte. */
    public WireClient timeout(Duration timeout) {
        return new WireClient(port, requireNonNull(timeout, "timeout"), keepLimit, pauseEvery, pause);
    }

    /** Bodies longer than this are only digested. */
    public WireClient keepLimit(long bytes) {
        return new WireClient(port, timeout, bytes, pauseEvery, pause);
    }

    /** Reads {@code every} bytes at a time, then sleeps {@code pause}: a slow client. */
    public WireClient slowReader(int every, Duration pause) {
        if (every <= 0) {
            throw new IllegalArgumentException("every: " + every + " (expected: > 0)");
        }
        return new WireClient(port, timeout, keepLimit, every, requireNonNull(pause, "pause"));
    }

    public WireResponse get(String target) {
        return send(WireRequest.get(target));
    }

    /** Sends {@code request} on a new connection and reads the whole response. */
    public WireResponse send(WireRequest request) {
        return sendAll(List.of(requireNonNull(request, "request"))).getFirst();
    }

    /**
     * Sends {@code requests} one after the other on one connection (keep-alive), each once the
     * previous response has been read.
     */
    public List<WireResponse> sendAll(List<WireRequest> requests) {
        List<WireResponse> responses = new ArrayList<>();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), (int) timeout.toMillis());
            socket.setSoTimeout((int) timeout.toMillis());
            socket.setTcpNoDelay(true);
            InputStream in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
            for (WireRequest request : requests) {
                responses.add(exchange(socket, in, request));
            }
            return responses;
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "wire: " + requests.get(responses.size()) + " on 127.0.0.1:" + port
                            + " failed before a response head (after " + responses.size() + " responses)",
                    e);
        }
    }

    /** Responses to bytes sent as they are, and whether the gateway closed the connection after them. */
    public record RawExchange(List<WireResponse> responses, boolean closed) {}

    /**
     * Writes {@code bytes} on a new connection exactly as given (any head, valid or not), reads {@code
     * count} responses, then waits for the connection to end: {@code closed} when the gateway closed
     * (or reset) it, {@code false} when it stayed open past the timeout.
     */
    public RawExchange sendRaw(byte[] bytes, int count) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), (int) timeout.toMillis());
            socket.setSoTimeout((int) timeout.toMillis());
            InputStream in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
            long start = System.nanoTime();
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    socket.getOutputStream().write(bytes);
                    socket.getOutputStream().flush();
                } catch (IOException ignored) {
                    // the gateway may answer and close before it read everything
                }
            });
            List<WireResponse> responses = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                responses.add(read(in, start, false));
            }
            boolean closed;
            try {
                closed = in.read() < 0;
            } catch (java.net.SocketTimeoutException open) {
                closed = false;
            } catch (IOException reset) {
                closed = true;
            }
            writer.join(Duration.ofSeconds(1));
            return new RawExchange(responses, closed);
        } catch (IOException e) {
            throw new UncheckedIOException("wire: raw bytes on 127.0.0.1:" + port + " failed before a response", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("wire: interrupted", e);
        }
    }

    /**
     * A connection kept open for a test to write on when it likes (a byte at a time, a head cut
     * short, silence) and to read responses from, as the gateway sends them.
     */
    public final class Connection implements AutoCloseable {
        private final Socket socket;
        private final InputStream in;

        private Connection(Socket socket) throws IOException {
            this.socket = socket;
            this.in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
        }

        /** Writes {@code text} (ISO-8859-1) at once; false when the gateway had closed the connection. */
        public boolean write(String text) {
            try {
                socket.getOutputStream().write(text.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
                socket.getOutputStream().flush();
                return true;
            } catch (IOException closed) {
                return false;
            }
        }

        /** The next response, read within the client's timeout. */
        public WireResponse response() {
            try {
                return read(in, System.nanoTime(), false);
            } catch (IOException e) {
                throw new UncheckedIOException("wire: no response on 127.0.0.1:" + port, e);
            }
        }

        /**
         * Waits up to {@code within} for the gateway to end the connection, discarding anything it
         * sends; whether it ended (closed or reset) in that time.
         */
        public boolean endedWithin(Duration within) {
            try {
                socket.setSoTimeout((int) within.toMillis());
                long end = System.nanoTime() + within.toNanos();
                while (System.nanoTime() < end) {
                    if (in.read() < 0) {
                        return true;
                    }
                }
                return false;
            } catch (java.net.SocketTimeoutException open) {
                return false;
            } catch (IOException reset) {
                return true;
            }
        }

        /** Leaves as a killed client does: the connection reset (TCP RST), not closed. */
        public void reset() {
            try {
                socket.setSoLinger(true, 0);
                socket.close();
            } catch (IOException ignored) {
                // closing is best effort
            }
        }

        @Override
        public void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing is best effort
            }
        }
    }

    /** Opens a connection to the gateway and keeps it for the caller. */
    public Connection open() {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), (int) timeout.toMillis());
            socket.setSoTimeout((int) timeout.toMillis());
            return new Connection(socket);
        } catch (IOException e) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // it failed anyway
            }
            throw new UncheckedIOException("wire: cannot connect to 127.0.0.1:" + port, e);
        }
    }

    private WireResponse exchange(Socket socket, InputStream in, WireRequest request) throws IOException {
        long start = System.nanoTime();
        // Written while the response is read: the gateway may stream both ways at once, or answer
        // and close before it took the whole request body.
        Thread writer = Thread.ofVirtual().start(() -> {
            try {
                request.writeTo(socket.getOutputStream(), "127.0.0.1:" + port);
            } catch (IOException ignored) {
                // the response tells what happened
            }
        });
        WireResponse response = read(in, start, request.toString().startsWith("HEAD "));
        try {
            writer.join(Duration.ofSeconds(1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("wire: interrupted sending " + request, e);
        }
        return response;
    }

    private WireResponse read(InputStream in, long start, boolean headRequest) throws IOException {
        String statusLine = line(in);
        while (statusLine.isEmpty()) {
            statusLine = line(in);
        }
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
            throw new IOException("status line: '" + statusLine + "' (expected: HTTP/1.x <code> <reason>)");
        }
        int status = Integer.parseInt(parts[1]);
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (String line = line(in); !line.isEmpty(); line = line(in)) {
            int colon = line.indexOf(':');
            headers.computeIfAbsent(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                    .add(line.substring(colon + 1).trim());
        }
        long headNanos = System.nanoTime() - start;
        Body body = new Body(start);
        Map<String, List<String>> trailers = new LinkedHashMap<>();
        String framing;
        String failure = null;
        boolean noBody = headRequest || status == 204 || status == 304 || status / 100 == 1;
        String te = first(headers, "transfer-encoding");
        String cl = first(headers, "content-length");
        try {
            if (te != null && te.toLowerCase(Locale.ROOT).contains("chunked")) {
                framing = "chunked";
                if (!noBody) {
                    readChunked(in, body, trailers);
                }
            } else if (cl != null || noBody) {
                framing = "length";
                long length = noBody ? 0 : Long.parseLong(cl);
                body.copy(in, length);
            } else {
                framing = "close";
                body.copy(in, Long.MAX_VALUE);
            }
        } catch (IOException e) {
            framing = te != null ? "chunked" : cl != null ? "length" : "close";
            failure = e.getClass().getSimpleName() + ": " + e.getMessage() + " after " + body.length + " body bytes";
        }
        boolean complete = failure == null;
        return new WireResponse(
                status,
                headers,
                framing,
                complete,
                Optional.ofNullable(failure),
                body.length,
                HexFormat.of().formatHex(body.digest.digest()),
                body.kept == null ? Optional.empty() : Optional.of(body.kept.toByteArray()),
                headNanos,
                body.firstNanos,
                System.nanoTime() - start,
                trailers);
    }

    private void readChunked(InputStream in, Body body, Map<String, List<String>> trailers) throws IOException {
        while (true) {
            String sizeLine = line(in);
            int semi = sizeLine.indexOf(';');
            long size;
            try {
                size = Long.parseLong((semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim(), 16);
            } catch (NumberFormatException e) {
                throw new IOException("chunk size line: '" + sizeLine + "' (expected: hex digits)");
            }
            if (size == 0) {
                for (String line = line(in); !line.isEmpty(); line = line(in)) {
                    int colon = line.indexOf(':');
                    trailers.computeIfAbsent(
                                    line.substring(0, colon).trim().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                            .add(line.substring(colon + 1).trim());
                }
                return;
            }
            body.copy(in, size);
            String crlf = line(in);
            if (!crlf.isEmpty()) {
                throw new IOException("chunk end: '" + crlf + "' (expected: CRLF)");
            }
        }
    }

    private static String first(Map<String, List<String>> headers, String name) {
        List<String> values = headers.get(name);
        return values == null ? null : values.getFirst();
    }

    /** A line without its CRLF; EOF before the line ends is an {@link EOFException}. */
    private static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder(64);
        while (true) {
            int c = in.read();
            if (c < 0) {
                throw new EOFException("connection ended mid-line '" + sb + "'");
            }
            if (c == '\n') {
                int end = sb.length();
                return end > 0 && sb.charAt(end - 1) == '\r' ? sb.substring(0, end - 1) : sb.toString();
            }
            sb.append((char) c);
            if (sb.length() > 64 * 1024) {
                throw new IOException("line: longer than 64 KB (expected: an HTTP head line)");
            }
        }
    }

    /** Body bytes as they arrive: counted, digested, kept up to the limit, read slowly if asked. */
    private final class Body {
        final MessageDigest digest = GeneratedBody.sha256Digest();
        final long start;
        ByteArrayOutputStream kept = new ByteArrayOutputStream();
        long length;
        long firstNanos = -1;
        long sincePause;
        final byte[] buffer = new byte[64 * 1024];

        Body(long start) {
            this.start = start;
        }

        /** Copies {@code count} bytes, or until EOF when {@code count} is {@code Long.MAX_VALUE}. */
        void copy(InputStream in, long count) throws IOException {
            long left = count;
            while (left > 0) {
                int want = (int) Math.min(
                        left, pauseEvery > 0 ? Math.min(buffer.length, pauseEvery - sincePause) : buffer.length);
                int r = in.read(buffer, 0, want);
                if (r < 0) {
                    if (count == Long.MAX_VALUE) {
                        return;
                    }
                    throw new EOFException("connection ended " + left + " bytes before the body's end");
                }
                if (firstNanos < 0) {
                    firstNanos = System.nanoTime() - start;
                }
                digest.update(buffer, 0, r);
                length += r;
                left -= r;
                if (kept != null) {
                    if (length <= keepLimit) {
                        kept.write(buffer, 0, r);
                    } else {
                        kept = null;
                    }
                }
                sincePause += r;
                if (pauseEvery > 0 && sincePause >= pauseEvery) {
                    sincePause = 0;
                    sleep(pause);
                }
            }
        }
    }

    private static void sleep(Duration pause) {
        try {
            Thread.sleep(pause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
