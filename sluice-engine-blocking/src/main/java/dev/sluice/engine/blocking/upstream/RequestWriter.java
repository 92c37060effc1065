package dev.sluice.engine.blocking.upstream;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import dev.sluice.http.UpstreamHead;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import java.util.concurrent.ScheduledFuture;

/**
 * Writes one request on a {@link Http1Connection}: its head into the connection's buffer, then its
 * body by {@code Content-Length} or in chunks, under a watchdog that ends a write the upstream stopped
 * reading. One per connection, made on first use: writing a request allocates nothing of its own.
 */
final class RequestWriter {

    private static final byte[] HTTP11 = " HTTP/1.1\r\n".getBytes(ISO_8859_1);
    private static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(ISO_8859_1);

    private final Http1Connection connection;
    private Socket socket; // the exchange's, which the watchdog closes
    private volatile long bodyWritten; // request body bytes written, for the watchdog
    private volatile boolean writing; // blocked in a socket write (not waiting for the client's body)
    private volatile boolean writeStalled; // the watchdog closed the socket
    private long lastChecked = -1; // the watchdog's own state (one thread)

    RequestWriter(Http1Connection connection) {
        this.connection = connection;
    }

    /**
     * Writes the request: the head, then the body, if any, with its framing.
     *
     * @param authority the endpoint's, written as {@code Host} when the request leaves it to the endpoint
     * @throws RefusedHead when the head holds a CR, LF or NUL: nothing was sent
     */
    void write(UpstreamRequest request, String authority, Http1UpstreamClient client) throws IOException {
        socket = connection.socket();
        bodyWritten = 0;
        writing = false;
        writeStalled = false;
        lastChecked = -1;
        int n = head(request, authority);
        OutputStream out = connection.out();
        out.write(connection.buffer, 0, n);
        InputStream body = request.body();
        if (body == null) {
            return;
        }
        ScheduledFuture<?> watchdog = client.everyReadTimeout(this::checkWriteProgress);
        try {
            writeBody(out, body, request.contentLength());
        } catch (IOException e) {
            if (writeStalled) {
                throw new SocketTimeoutException("the upstream read none of the request body for read-timeout");
            }
            throw e;
        } finally {
            watchdog.cancel(false);
        }
    }

    /**
     * Whether the last write failed while the upstream could still answer: it was blocked in a socket
     * write (not reading the client's body) and not ended by the watchdog. Asked once: it clears.
     */
    boolean cutShortByUpstream() {
        boolean cut = writing && !writeStalled;
        writing = false;
        return cut;
    }

    /**
     * A request head on its own, for a request written outside the pool ({@link UpgradeCall}): the same
     * encoding and the same refusal as a pooled request's.
     *
     * @throws RefusedHead when the head holds a CR, LF or NUL
     */
    static byte[] detachedHead(UpstreamRequest request, String authority) throws RefusedHead {
        Http1Connection detached = new Http1Connection(null, null); // only its buffer is used
        detached.buffer = new byte[512];
        try {
            int n = new RequestWriter(detached).head(request, authority);
            return Arrays.copyOf(detached.buffer, n);
        } catch (RefusedHead e) {
            throw e;
        } catch (IOException e) {
            throw new IllegalStateException(e); // the head encoding does no I/O
        }
    }

    /** The head in the connection's buffer (grown when it must): its length. */
    private int head(UpstreamRequest request, String authority) throws IOException {
        int n = room(ascii(0, request.method()), 1);
        connection.buffer[n++] = ' ';
        n = ascii(n, request.target());
        n = bytes(n, HTTP11);
        for (int i = 0, count = request.headerCount(); i < count; i++) {
            n = field(n, request.headerName(i), request.headerValue(i));
        }
        if (request.hostFromEndpoint()) {
            n = field(n, UpstreamHead.HOST, authority);
        }
        if (request.body() != null) {
            long length = request.contentLength();
            n = length >= 0
                    ? field(n, "Content-Length", Long.toString(length))
                    : field(n, "Transfer-Encoding", "chunked");
        }
        n = room(n, 2);
        connection.buffer[n++] = '\r';
        connection.buffer[n++] = '\n';
        return n;
    }

    /**
     * The watchdog's check, on the sweeper thread: when a write is blocked and no body byte was written
     * since the last check (a whole read-timeout), the upstream stopped reading; the socket is closed
     * to end the write. Waiting for the client's own body bytes does not count.
     */
    private void checkWriteProgress() {
        long now = bodyWritten;
        if (writing && now == lastChecked && !writeStalled) {
            writeStalled = true;
            try {
                socket.close();
            } catch (IOException ignored) {
                // the write fails either way
            }
        }
        lastChecked = now;
    }

    private void writeBody(OutputStream out, InputStream body, long length) throws IOException {
        byte[] buffer = connection.buffer;
        if (length >= 0) {
            long sent = 0;
            while (sent < length) {
                int n = body.read(buffer, 0, (int) Math.min(buffer.length, length - sent));
                if (n < 0) {
                    throw new IOException("request body ended after " + sent + " of " + length + " bytes");
                }
                writing = true;
                out.write(buffer, 0, n);
                writing = false;
                sent += n;
                bodyWritten = sent;
            }
            return;
        }
        int prefix = 10; // hex size (at most 4 digits for this buffer) and CRLF, written before the data
        while (true) {
            int n = body.read(buffer, prefix, buffer.length - prefix - 2);
            if (n < 0) {
                out.write(LAST_CHUNK);
                return;
            }
            if (n == 0) {
                continue;
            }
            String size = Integer.toHexString(n);
            int start = prefix - size.length() - 2;
            size.getBytes(0, size.length(), buffer, start);
            buffer[prefix - 2] = '\r';
            buffer[prefix - 1] = '\n';
            buffer[prefix + n] = '\r';
            buffer[prefix + n + 1] = '\n';
            writing = true;
            out.write(buffer, start, prefix + n + 2 - start);
            writing = false;
            bodyWritten += n;
        }
    }

    private int room(int n, int more) {
        if (n + more > connection.buffer.length) {
            connection.buffer = Arrays.copyOf(connection.buffer, Math.max(connection.buffer.length * 2, n + more));
        }
        return n;
    }

    private int field(int n, String name, String value) throws IOException {
        n = room(n, name.length() + value.length() + 4);
        n = ascii(n, name);
        byte[] head = connection.buffer;
        head[n++] = ':';
        head[n++] = ' ';
        n = ascii(n, value);
        head = connection.buffer;
        head[n++] = '\r';
        head[n++] = '\n';
        return n;
    }

    private int ascii(int n, String s) throws IOException {
        n = room(n, s.length());
        byte[] head = connection.buffer;
        for (int i = 0, len = s.length(); i < len; i++) {
            char c = s.charAt(i);
            if (c == '\r' || c == '\n' || c == 0) {
                throw new RefusedHead();
            }
            head[n++] = (byte) c;
        }
        return n;
    }

    private int bytes(int n, byte[] b) {
        n = room(n, b.length);
        System.arraycopy(b, 0, connection.buffer, n, b.length);
        return n + b.length;
    }

    /** A CR, LF or NUL in the request head: nothing is sent, the connection stays sound. */
    static final class RefusedHead extends IOException {
        RefusedHead() {
            super("CR, LF or NUL in the request head: refused");
        }
    }
}
