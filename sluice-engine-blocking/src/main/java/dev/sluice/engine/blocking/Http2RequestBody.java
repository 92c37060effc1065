package dev.sluice.engine.blocking;

import dev.sluice.http.RequestFraming;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Blocker;

/**
 * The body of an HTTP/2 request that declares no length ({@link RequestFraming#AT_FIRST_DATA}):
 * whether it has one is known at its first DATA frame, which is waited for here (this engine's
 * requests have threads of their own) and given back at the head of the body stream. Jetty holds a
 * stream that HEADERS ended as an end of content already there, so a plain GET costs one read that
 * returns at once.
 */
final class Http2RequestBody {

    /**
     * How the body goes upstream: its framing ({@link RequestFraming#firstData}), and the stream to
     * send, or null when there is no body.
     */
    record Framed(long length, InputStream body) {}

    private Http2RequestBody() {}

    /**
     * Reads the first chunk of {@code request}'s content, blocking until it arrives.
     *
     * @throws IOException the client failed its stream first
     */
    static Framed first(Request request) throws IOException {
        Content.Chunk chunk = request.read();
        while (chunk == null || (!chunk.isLast() && !chunk.hasRemaining() && !Content.Chunk.isFailure(chunk))) {
            if (chunk != null) { // an empty DATA frame that leaves the stream open tells nothing yet
                chunk.release();
            }
            try (Blocker.Runnable arrived = Blocker.runnable()) {
                request.demand(arrived);
                arrived.block();
            }
            chunk = request.read();
        }
        if (Content.Chunk.isFailure(chunk)) {
            Throwable failure = chunk.getFailure();
            throw failure instanceof IOException io ? io : new IOException(failure);
        }
        try {
            long length = RequestFraming.firstData(chunk.remaining(), chunk.isLast());
            if (length == 0) {
                return new Framed(0, null);
            }
            byte[] first = new byte[chunk.remaining()]; // copied, so that no pooled buffer outlives a failure
            chunk.getByteBuffer().get(first);
            InputStream rest = Request.asInputStream(request); // after a last chunk, its end at once
            return new Framed(length, new SequenceInputStream(new ByteArrayInputStream(first), rest));
        } finally {
            chunk.release();
        }
    }
}
