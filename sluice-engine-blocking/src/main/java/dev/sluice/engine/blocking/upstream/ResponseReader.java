package dev.sluice.engine.blocking.upstream;

import dev.sluice.engine.blocking.upstream.Http1Connection.BadResponse;
import dev.sluice.engine.blocking.upstream.Http1Connection.Truncated;
import dev.sluice.http.ResponseHeadCheck;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Reads one response on a {@link Http1Connection} with the connection's {@link ResponseParser}: the
 * head, strictly (interim responses skipped, the core's {@link ResponseHeadCheck} asked), then, for a
 * chunked body, its chunk data. One per connection, made on first use; what the head says about
 * framing and reuse is the core's answer, which the exchange carries out.
 */
final class ResponseReader {

    private final Http1Connection connection;
    private final ResponseParser parser;
    private long parsed; // bytes the parser consumed since the response began
    private boolean overran; // bytes beyond the response arrived with its last chunk

    ResponseReader(Http1Connection connection, ResponseParser parser) {
        this.connection = connection;
        this.parser = parser;
    }

    /**
     * Reads the response head, skipping interim (1xx) responses, and asks the core about it.
     *
     * @return the core's check, which passed the head and frames its body
     * @throws BadResponse when the head is refused
     * @throws EOFException when the connection closed before any byte of an answer
     */
    ResponseHeadCheck readHead(boolean headRequest) throws IOException {
        parser.reset(headRequest);
        overran = false;
        checkStatusLinePrefix();
        parsed = 0; // the head's size is the core's limit, counted here (Jetty's own count asserts on responses)
        while (true) {
            while (!parser.headRead()) {
                if (!advance()) {
                    if (parser.atStart() && connection.pos == connection.limit) {
                        throw new EOFException("connection closed before the response");
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
            parser.reset(headRequest); // interim response: the real one follows
        }
        if (parsed > Http1Connection.HEAD_LIMIT) { // the head ended within the call that passed the limit
            throw new BadResponse("response head larger than " + Http1Connection.HEAD_LIMIT + " bytes");
        }
        ResponseHeadCheck check = new ResponseHeadCheck();
        for (int i = 0; i < parser.headerCount(); i++) {
            check.header(parser.headerName(i), parser.headerValue(i));
        }
        String problem = check.verdict(parser.major(), parser.minor(), parser.status());
        if (problem != null) {
            throw new BadResponse(problem);
        }
        return check;
    }

    /** Whether bytes beyond the response came with its chunked body: then its connection is not reused. */
    boolean overran() {
        return overran;
    }

    /**
     * Chunk data as the parser hands it over; -1 after the last chunk (trailer fields are not
     * relayed). Once the connection's buffer is drained, a large read goes straight from the socket
     * into the caller's array and the parser takes the chunk data out of it in place, so a chunked
     * body costs as few reads as a fixed-length one.
     */
    int readChunked(byte[] buffer, int offset, int length) throws IOException {
        while (true) {
            ByteBuffer data = parser.content();
            if (data != null && data.hasRemaining()) {
                int n = Math.min(length, data.remaining());
                data.get(buffer, offset, n);
                parser.contentRead();
                return n;
            }
            if (parser.ended()) {
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
     * Chunk data that can be read without blocking: chunk data only, parsing what is buffered without
     * a socket read (counting buffered framing bytes, a chunk's CRLF or the next size line, made a read
     * after them wait on the socket for the next chunk, holding what had come).
     */
    int chunkedAvailable() {
        ByteBuffer data = parser.content();
        if ((data == null || !data.hasRemaining()) && connection.pos < connection.limit && !parser.ended()) {
            ByteBuffer view = ByteBuffer.wrap(connection.buffer, connection.pos, connection.limit - connection.pos);
            parser.parse(view); // what is buffered, no socket read; a bad response is readChunked's to report
            parsed += view.position() - connection.pos;
            connection.pos = view.position();
            data = parser.content();
        }
        return data != null && data.hasRemaining() && parser.bad() == null ? data.remaining() : 0;
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
            overran = true; // bytes beyond the response: the connection is not reused
        }
        return written - offset;
    }

    /**
     * Fails at once on an answer that does not start like an HTTP/1.x status line, without waiting
     * for a line end that may never come.
     */
    private void checkStatusLinePrefix() throws IOException {
        while (connection.limit - connection.pos < 5) {
            if (!connection.fill()) {
                if (connection.limit == connection.pos) {
                    throw new EOFException("connection closed before the response");
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
}
