package dev.sluice.tck;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An upstream that records, byte for byte, what each connection delivered: the request head, the
 * body as framed by {@code Content-Length} or chunked coding, and whether that request arrived whole
 * (a body complete to its length, or chunked coding up to its last chunk and trailer) before the
 * connection ended. A whole request is answered {@code 200} with {@code ok}; then the connection is
 * read for a next request. For asserting that a client's broken request never reaches an upstream as
 * a complete one.
 */
public final class RecordingUpstream implements AutoCloseable {

    /** One request as it arrived: {@code whole} when its framing completed. */
    public record Received(String head, byte[] body, boolean whole) {
        public String bodyText() {
            return new String(body, StandardCharsets.ISO_8859_1);
        }
    }

    private final ServerSocket server;
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final LinkedBlockingQueue<Received> arrivals = new LinkedBlockingQueue<>();
    private final java.util.concurrent.Semaphore heads = new java.util.concurrent.Semaphore(0);

    private RecordingUpstream(ServerSocket server) {
        this.server = server;
        Thread.ofVirtual().start(this::accept);
    }

    public static RecordingUpstream start() {
        try {
            return new RecordingUpstream(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
        } catch (IOException e) {
            throw new UncheckedIOException("recording upstream: cannot listen on 127.0.0.1", e);
        }
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    /** Every request (whole or cut short) whose head arrived, in order of their ends. */
    public List<Received> received() {
        return List.copyOf(received);
    }

    /**
     * The next request to end (whole, or cut short by its connection's end), waiting up to {@code
     * within}; {@code null} when none ended in time.
     */
    public Received next(Duration within) throws InterruptedException {
        return arrivals.poll(within.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Waits up to {@code within} for one more request head to arrive; whether it did. */
    public boolean awaitHead(Duration within) throws InterruptedException {
        return heads.tryAcquire(within.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                Thread.ofVirtual().start(() -> serve(socket));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            InputStream in = socket.getInputStream();
            while (true) {
                String head = readHead(in);
                if (head == null) {
                    return;
                }
                heads.release();
                ByteArrayOutputStream body = new ByteArrayOutputStream();
                boolean whole;
                try {
                    whole = readBody(head, in, body);
                } catch (IOException e) {
                    whole = false;
                }
                record(new Received(head, body.toByteArray(), whole));
                if (!whole) {
                    return;
                }
                socket.getOutputStream()
                        .write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"
                                .getBytes(StandardCharsets.ISO_8859_1));
                socket.getOutputStream().flush();
            }
        } catch (IOException ignored) {
            // the gateway went away
        }
    }

    private void record(Received request) {
        received.add(request);
        arrivals.add(request);
    }

    /** The head up to its blank line, or null when the connection ended first. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        for (int c = in.read(); c >= 0; c = in.read()) {
            head.write(c);
            matched = c == end[matched] ? matched + 1 : (c == '\r' ? 1 : 0);
            if (matched == end.length) {
                return head.toString(StandardCharsets.ISO_8859_1);
            }
        }
        return null;
    }

    /** Reads the body as the head frames it into {@code body}; whether it arrived whole. */
    private static boolean readBody(String head, InputStream in, ByteArrayOutputStream body) throws IOException {
        String lower = head.toLowerCase(Locale.ROOT);
        if (lower.contains("\r\ntransfer-encoding:") && lower.contains("chunked")) {
            return readChunked(in, body);
        }
        long length = 0;
        for (String line : lower.split("\r\n")) {
            if (line.startsWith("content-length:")) {
                length = Long.parseLong(
                        line.substring("content-length:".length()).trim());
            }
        }
        for (long i = 0; i < length; i++) {
            int c = in.read();
            if (c < 0) {
                return false;
            }
            body.write(c);
        }
        return true;
    }

    /** Chunked coding, kept raw in {@code body}; whole when the last chunk and trailer arrived. */
    private static boolean readChunked(InputStream in, ByteArrayOutputStream body) throws IOException {
        while (true) {
            String sizeLine = readLine(in, body);
            if (sizeLine == null) {
                return false;
            }
            int semicolon = sizeLine.indexOf(';');
            long size = Long.parseLong((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
            if (size == 0) {
                while (true) { // trailer fields up to the blank line
                    String trailer = readLine(in, body);
                    if (trailer == null) {
                        return false;
                    }
                    if (trailer.isEmpty()) {
                        return true;
                    }
                }
            }
            for (long i = 0; i < size + 2; i++) { // the data and its CRLF
                int c = in.read();
                if (c < 0) {
                    return false;
                }
                body.write(c);
            }
        }
    }

    /** A CRLF-ended line, copied raw into {@code body}; null when the stream ended first. */
    private static String readLine(InputStream in, ByteArrayOutputStream body) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c >= 0; c = in.read()) {
            body.write(c);
            if (c == '\n' && !line.isEmpty() && line.charAt(line.length() - 1) == '\r') {
                return line.substring(0, line.length() - 1);
            }
            line.append((char) c);
        }
        return null;
    }
}
