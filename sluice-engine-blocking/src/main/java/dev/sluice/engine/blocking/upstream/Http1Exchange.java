package dev.sluice.engine.blocking.upstream;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import dev.sluice.engine.blocking.upstream.Http1Connection.BadResponse;
import dev.sluice.engine.blocking.upstream.Http1Connection.StaleConnection;
import dev.sluice.engine.blocking.upstream.Http1Connection.Truncated;
import dev.sluice.http.ResponseHeadCheck;
import dev.sluice.http.ResponseHeadCheck.Framing;
import dev.sluice.http.UpstreamHead;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One request and its response on a pooled {@link Http1Connection}: writes the request (head,
 * then the body with its framing), parses the response head strictly, then hands out body bytes
 * by Content-Length, chunked coding or up to the close. The connection goes back to the pool the
 * moment the body's last byte is read, or is dropped on any failure or early close.
 */
final class Http1Exchange implements UpstreamResponse {

    private static final int ACTIVE = 0;
    private static final int ABORTED = 1;
    private static final int RELEASED = 2;

    private static final byte[] HTTP11 = " HTTP/1.1\r\n".getBytes(ISO_8859_1);
    private static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(ISO_8859_1);

    private final Http1UpstreamClient client;
    private final Http1Connection connection;
    private final UpstreamRequest request;
    private final Socket socket;
    private final AtomicInteger state = new AtomicInteger(ACTIVE);

    private final ResponseParser parser; // the connection's: head and chunked coding
    private int status;
    private Framing framing;
    private long contentLength = -1;
    private long left; // LENGTH: bytes still to come
    private boolean reusable;
    private boolean ended;
    private long parsed; // bytes the parser consumed since the response began
    private volatile long bodyWritten; // request body bytes written, for the watchdog
    private volatile boolean writing; // blocked in a socket write (not waiting for the client's body)
    private volatile boolean writeStalled; // the watchdog closed the socket
    private long lastChecked = -1; // the watchdog's own state (one thread)

    Http1Exchange(Http1UpstreamClient client, Http1Connection connection, UpstreamRequest request) {
        this.client = client;
        this.connection = connection;
        this.request = request;
        this.socket = connection.socket();
        this.parser = connection.parser();
    }

    /**
     * Sends the request and reads the response head.
     *
     * @throws StaleConnection when the connection failed before any byte of an answer
     */
    void start() throws IOException {
        try {
            int before = connection.limit;
            try {
                try {
                    writeRequest();
                } catch (IOException e) {
                    if (!answeredEarly(e)) {
                        throw e;
                    }
                }
                if (status == 0) {
                    readHead();
                }
            } catch (BadResponse | RefusedHead | SocketTimeoutException | javax.net.ssl.SSLHandshakeException e) {
                throw e; // the last: a TLS 1.3 server refusing the client's certificate, not a stale connection
            } catch (IOException e) {
                if (connection.limit == before && status == 0 && !request.isCancelled()) {
                    throw new StaleConnection(e);
                }
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            state.set(RELEASED); // the caller drops the connection; a later cancel must not touch the slot
            throw e;
        }
        if (framing == Framing.NONE || (framing == Framing.LENGTH && left == 0)) {
            finish();
        }
    }

    /**
     * Whether the upstream answered before it read the whole request body (RFC 9112 section 9.3 allows
     * it: a 405, 413 or 401 to an upload) and then stopped reading, so that writing the body failed:
     * the answer is read and relayed, and the connection, its request cut short, is never reused. A
     * failure to read the client's own body, a stalled write and a cancelled call are not that.
     */
    private boolean answeredEarly(IOException writeFailure) {
        if (!writing || writeStalled || request.isCancelled() || writeFailure instanceof SocketTimeoutException) {
            return false;
        }
        writing = false;
        try {
            readHead();
        } catch (IOException | RuntimeException noAnswer) {
            writeFailure.addSuppressed(noAnswer);
            status = 0;
            return false;
        }
        reusable = false;
        return true;
    }

    private void writeRequest() throws IOException {
        byte[] head = connection.buffer;
        int n = 0;
        n = ascii(head, n, request.method());
        head[n++] = ' ';
        n = ascii(head, n, request.target());
        n = bytes(head, n, HTTP11);
        for (int i = 0, count = request.headerCount(); i < count; i++) {
            n = field(head, n, request.headerName(i), request.headerValue(i));
            head = connection.buffer;
        }
        if (request.hostFromEndpoint()) {
            n = field(head, n, UpstreamHead.HOST, client.authority());
            head = connection.buffer;
        }
        InputStream body = request.body();
        long length = request.contentLength();
        if (body != null) {
            n = length >= 0
                    ? field(head, n, "Content-Length", Long.toString(length))
                    : field(head, n, "Transfer-Encoding", "chunked");
            head = connection.buffer;
        }
        n = room(n, 2);
        head = connection.buffer;
        head[n++] = '\r';
        head[n++] = '\n';
        OutputStream out = connection.out();
        out.write(head, 0, n);
        if (body != null) {
            ScheduledFuture<?> watchdog = client.everyReadTimeout(this::checkWriteProgress);
            try {
                writeBody(out, body, length);
            } catch (IOException e) {
                if (writeStalled) {
                    throw new SocketTimeoutException("the upstream read none of the request body for read-timeout");
                }
                throw e;
            } finally {
                watchdog.cancel(false);
            }
        }
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

    private int field(byte[] head, int n, String name, String value) throws IOException {
        n = room(n, name.length() + value.length() + 4);
        head = connection.buffer;
        n = ascii(head, n, name);
        head[n++] = ':';
        head[n++] = ' ';
        n = ascii(head, n, value);
        head[n++] = '\r';
        head[n++] = '\n';
        return n;
    }

    private int ascii(byte[] head, int n, String s) throws IOException {
        n = room(n, s.length());
        head = connection.buffer;
        for (int i = 0, len = s.length(); i < len; i++) {
            char c = s.charAt(i);
            if (c == '\r' || c == '\n' || c == 0) {
                throw new RefusedHead();
            }
            head[n++] = (byte) c;
        }
        return n;
    }

    /** A CR, LF or NUL in the request head: nothing is sent, the connection stays sound. */
    static final class RefusedHead extends IOException {
        RefusedHead() {
            super("CR, LF or NUL in the request head: refused");
        }
    }

    private int bytes(byte[] head, int n, byte[] b) {
        n = room(n, b.length);
        System.arraycopy(b, 0, connection.buffer, n, b.length);
        return n + b.length;
    }

    /**
     * Reads the response head with the connection's {@link ResponseParser}, skipping interim (1xx)
     * responses, asks the core's {@link ResponseHeadCheck} about it and decides the body's framing.
     */
    private void readHead() throws IOException {
        boolean head = request.method().equals("HEAD");
        parser.reset(head);
        checkStatusLinePrefix();
        parsed = 0; // the head's size is the core's limit, counted here (Jetty's own count asserts on responses)
        while (true) {
            while (!parser.headRead()) {
                if (!advance()) {
                    if (parser.atStart() && connection.pos == connection.limit) {
                        throw new java.io.EOFException("connection closed before the response");
                    }
                    throw new BadResponse(
                            parser.bad() != null ? parser.bad() : "connection closed inside the response head");
                }
            }
            String code = ResponseHeadCheck.statusProblem(parser.status());
            if (code != null) {
                throw new BadResponse(code);
            }
            if (!ResponseHeadCheck.interim(parser.status())) {
                break;
            }
            String refusal = ResponseHeadCheck.interimProblem(parser.status());
            if (refusal != null) {
                throw new BadResponse(refusal);
            }
            parser.reset(head); // interim response: the real one follows
        }
        status = parser.status();
        if (parsed > Http1Connection.HEAD_LIMIT) { // the head ended within the call that passed the limit
            throw new BadResponse("response head larger than " + Http1Connection.HEAD_LIMIT + " bytes");
        }
        ResponseHeadCheck check = new ResponseHeadCheck();
        for (int i = 0; i < parser.headerCount(); i++) {
            check.header(parser.headerName(i), parser.headerValue(i));
        }
        String problem = check.verdict(parser.major(), parser.minor(), status);
        if (problem != null) {
            throw new BadResponse(problem);
        }
        frame(head, check);
    }

    /**
     * Fails at once on an answer that does not start like an HTTP/1.x status line, without waiting
     * for a line end that may never come.
     */
    private void checkStatusLinePrefix() throws IOException {
        while (connection.limit - connection.pos < 5) {
            if (!connection.fill()) {
                if (connection.limit == connection.pos) {
                    throw new java.io.EOFException("connection closed before the response");
                }
                throw new BadResponse("connection closed inside the response head");
            }
        }
        byte[] b = connection.buffer;
        int p = connection.pos;
        if (b[p] != 'H' || b[p + 1] != 'T' || b[p + 2] != 'T' || b[p + 3] != 'P' || b[p + 4] != '/') {
            throw new BadResponse("not an HTTP/1.x status line");
        }
    }

    /**
     * Feeds the parser what the connection buffered, reading more when it needs more, until it hands
     * something over (the head, chunk data, the end of the message).
     *
     * @return false when the stream ended first (the parser was told; see {@link ResponseParser#bad})
     * @throws BadResponse when the parser refused the response
     */
    private boolean advance() throws IOException {
        while (true) {
            ByteBuffer view = ByteBuffer.wrap(connection.buffer, connection.pos, connection.limit - connection.pos);
            boolean handed = parser.parse(view);
            parsed += view.position() - connection.pos;
            connection.pos = view.position();
            if (!parser.headRead() && parsed > Http1Connection.HEAD_LIMIT) {
                throw new BadResponse("response head larger than " + Http1Connection.HEAD_LIMIT + " bytes");
            }
            if (parser.bad() != null) {
                throw new BadResponse(parser.bad());
            }
            if (handed) {
                return true;
            }
            if (!connection.fill()) {
                view = ByteBuffer.wrap(connection.buffer, connection.pos, connection.limit - connection.pos);
                parser.atEof(view);
                connection.pos = view.position();
                return false;
            }
        }
    }

    /** How the body is delimited and whether the connection is reused: the core's answer. */
    private void frame(boolean head, ResponseHeadCheck check) {
        framing = check.framing(head, status);
        reusable = check.reusable(parser.minor(), framing);
        contentLength = framing == Framing.NONE ? 0 : framing == Framing.LENGTH ? check.contentLength() : -1;
        left = contentLength;
    }

    @Override
    public int status() {
        return status;
    }

    @Override
    public int headerCount() {
        return parser.headerCount();
    }

    @Override
    public String headerName(int i) {
        return parser.headerName(i);
    }

    @Override
    public String headerValue(int i) {
        return parser.headerValue(i);
    }

    @Override
    public long contentLength() {
        return contentLength;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws UpstreamException {
        if (ended) {
            return -1;
        }
        if (state.get() != ACTIVE) {
            throw client.classify(new java.net.SocketException("aborted"), request);
        }
        if (length == 0) {
            return 0;
        }
        try {
            return switch (framing) {
                case LENGTH -> readLength(buffer, offset, length);
                case CHUNKED -> readChunked(buffer, offset, length);
                default -> readToClose(buffer, offset, length);
            };
        } catch (IOException | RuntimeException e) {
            fail();
            throw client.classify(e, request);
        }
    }

    @Override
    public int available() {
        if (ended || state.get() != ACTIVE || (framing == Framing.LENGTH && left == 0)) {
            return 0;
        }
        if (framing == Framing.CHUNKED) {
            // chunk data only: counting buffered framing bytes (a chunk's CRLF, the next size line)
            // made a read after them wait on the socket for the next chunk, holding what had come
            ByteBuffer data = parser.content();
            if ((data == null || !data.hasRemaining()) && connection.pos < connection.limit && !parser.ended()) {
                ByteBuffer view = ByteBuffer.wrap(connection.buffer, connection.pos, connection.limit - connection.pos);
                parser.parse(view); // what is buffered, no socket read; a bad response is read()'s to report
                parsed += view.position() - connection.pos;
                connection.pos = view.position();
                data = parser.content();
            }
            return data != null && data.hasRemaining() && parser.bad() == null ? data.remaining() : 0;
        }
        int n = connection.available();
        return framing == Framing.LENGTH ? (int) Math.min(n, left) : n;
    }

    private int readLength(byte[] buffer, int offset, int length) throws IOException {
        int n = connection.read(buffer, offset, (int) Math.min(length, left));
        if (n < 0) {
            throw new Truncated("body ended " + left + " bytes short of its Content-Length");
        }
        left -= n;
        if (left == 0) {
            finish();
        }
        return n;
    }

    /**
     * Chunk data as the parser hands it over; -1 after the last chunk (trailer fields are not
     * relayed). Once the connection's buffer is drained, a large read goes straight from the socket
     * into the caller's array and the parser takes the chunk data out of it in place, so a chunked
     * body costs as few reads as a fixed-length one.
     */
    private int readChunked(byte[] buffer, int offset, int length) throws IOException {
        while (true) {
            ByteBuffer data = parser.content();
            if (data != null && data.hasRemaining()) {
                int n = Math.min(length, data.remaining());
                data.get(buffer, offset, n);
                parser.contentRead();
                return n;
            }
            if (parser.ended()) {
                finish();
                return -1;
            }
            if (connection.pos == connection.limit && length >= Http1Connection.DIRECT_READ) {
                int raw = connection.readRaw(buffer, offset, length);
                if (raw < 0) {
                    parser.atEof(ByteBuffer.allocate(0));
                    throw new Truncated(parser.bad() != null ? parser.bad() : "body ended inside the chunk framing");
                }
                int n = inPlace(buffer, offset, raw);
                if (n > 0) {
                    return n;
                }
                continue;
            }
            if (!advance()) {
                throw new Truncated(parser.bad() != null ? parser.bad() : "body ended inside the chunk framing");
            }
        }
    }

    /**
     * Parses {@code raw} bytes read into {@code buffer} at {@code offset}, moving the chunk data they
     * hold to the front of that stretch; returns how many bytes of chunk data that is.
     */
    private int inPlace(byte[] buffer, int offset, int raw) throws IOException {
        ByteBuffer view = ByteBuffer.wrap(buffer, offset, raw);
        int written = offset;
        while (view.hasRemaining() && !parser.ended()) {
            parser.parse(view);
            if (parser.bad() != null) {
                throw new BadResponse(parser.bad());
            }
            ByteBuffer data = parser.content();
            if (data != null && data.hasRemaining()) {
                int n = data.remaining();
                data.get(buffer, written, n); // a move to lower indices within the same array: safe
                written += n;
                parser.contentRead();
            }
        }
        if (view.hasRemaining()) {
            reusable = false; // bytes beyond the response: the connection is not reused
        }
        return written - offset;
    }

    private int readToClose(byte[] buffer, int offset, int length) throws IOException {
        int n = connection.read(buffer, offset, length);
        if (n < 0) {
            finish();
        }
        return n;
    }

    /** The body was read to its end: the connection goes back to the pool (or is dropped) now. */
    private void finish() {
        ended = true;
        if (state.compareAndSet(ACTIVE, RELEASED)) {
            boolean clean = connection.pos == connection.limit; // bytes beyond the response: not reusable
            client.release(connection, reusable && clean);
        }
    }

    private void fail() {
        int s = state.getAndSet(RELEASED);
        if (s != RELEASED) {
            client.release(connection, false);
        }
    }

    @Override
    public void abort() {
        if (state.compareAndSet(ACTIVE, ABORTED)) {
            try {
                socket.close(); // this exchange's socket, not whatever the slot holds later
            } catch (IOException ignored) {
                // dropped either way
            }
        }
    }

    @Override
    public void close() {
        int s = state.getAndSet(RELEASED);
        if (s != RELEASED) {
            client.release(connection, false);
        }
    }
}
