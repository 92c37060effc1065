package dev.sluice.engine.blocking.upstream;

import dev.sluice.engine.blocking.upstream.Http1Connection.BadResponse;
import dev.sluice.engine.blocking.upstream.Http1Connection.StaleConnection;
import dev.sluice.engine.blocking.upstream.Http1Connection.Truncated;
import dev.sluice.engine.blocking.upstream.RequestWriter.RefusedHead;
import dev.sluice.http.ResponseHeadCheck;
import dev.sluice.http.ResponseHeadCheck.Framing;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One request and its response on a pooled {@link Http1Connection}: the connection's {@link
 * RequestWriter} sends the request, its {@link ResponseReader} reads the head and decodes a chunked
 * body; how the body is delimited and whether the connection is reused are the core's answers
 * ({@link ResponseHeadCheck#framing}, {@link ResponseHeadCheck#reusable}). This class hands out the
 * body's bytes by that framing and gives the connection back to the pool the moment its last byte is
 * read, or drops it on any failure or early close.
 */
final class Http1Exchange implements UpstreamResponse {

    private static final int ACTIVE = 0;
    private static final int ABORTED = 1;
    private static final int RELEASED = 2;

    private final Http1UpstreamClient client;
    private final Http1Connection connection;
    private final UpstreamRequest request;
    private final Socket socket;
    private final AtomicInteger state = new AtomicInteger(ACTIVE);

    private final ResponseParser parser; // the connection's: the head's fields
    private final ResponseReader reader; // the connection's
    private int status;
    private Framing framing;
    private long contentLength = -1;
    private long left; // LENGTH: bytes still to come
    private boolean reusable;
    private boolean ended;

    Http1Exchange(Http1UpstreamClient client, Http1Connection connection, UpstreamRequest request) {
        this.client = client;
        this.connection = connection;
        this.request = request;
        this.socket = connection.socket();
        this.parser = connection.parser();
        this.reader = connection.reader();
    }

    /**
     * Sends the request and reads the response head.
     *
     * @throws StaleConnection when the connection failed before any byte of an answer
     */
    void start() throws IOException {
        RequestWriter writer = connection.writer();
        try {
            int before = connection.limit;
            try {
                try {
                    writer.write(request, client.authority(), client);
                } catch (IOException e) {
                    if (!answeredEarly(writer, e)) {
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
    private boolean answeredEarly(RequestWriter writer, IOException writeFailure) {
        if (!writer.cutShortByUpstream() || request.isCancelled() || writeFailure instanceof SocketTimeoutException) {
            return false;
        }
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

    /** Reads the head and frames the body as the core's check answers. */
    private void readHead() throws IOException {
        boolean head = request.method().equals("HEAD");
        ResponseHeadCheck check = reader.readHead(head);
        status = parser.status();
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
            return reader.chunkedAvailable();
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

    private int readChunked(byte[] buffer, int offset, int length) throws IOException {
        int n = reader.readChunked(buffer, offset, length);
        if (n < 0) {
            finish();
        }
        return n;
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
            // bytes beyond the response, buffered or read with its last chunk: not reusable
            boolean clean = connection.pos == connection.limit && !reader.overran();
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
