package dev.sluice.engine.blocking;

import dev.sluice.http.RequestFraming;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;

/**
 * The body of an HTTP/2 request that declares no length ({@link RequestFraming#AT_FIRST_DATA}):
 * whether it has one is known at its first DATA frame, which is waited for here (this engine's
 * requests have threads of their own) and given back at the head of the body stream. Jetty holds a
 * stream that HEADERS ended as an end of content already there, so a plain GET costs one read that
 * returns at once. The wait ends at {@code server.limits.header-timeout} from the head's arrival
 * ({@link RequestFraming#FIRST_DATA_TIMEOUT}: {@code 408 request_timeout}), as the reactive engine's
 * {@code RequestBodyCheck} ends it; the timeout is a bean of the connector ({@link Wait}).
 */
final class Http2RequestBody {

    /** How long a request may wait for its first DATA frame: {@code server.limits.header-timeout}. */
    record Wait(Duration timeout) {}

    /**
     * How the body goes upstream: its framing ({@link RequestFraming#firstData}), and the stream to
     * send, or null when there is no body.
     */
    record Framed(long length, InputStream body) {}

    private Http2RequestBody() {}

    /**
     * Reads the first chunk of {@code request}'s content, blocking until it arrives or the connector's
     * {@link Wait} has passed since the head arrived.
     *
     * @throws IOException the client failed its stream first
     * @throws GatewayError {@code 408 request_timeout}: no DATA frame and no end of the stream in time
     */
    static Framed first(Request request) throws IOException, GatewayError {
        Content.Chunk chunk = request.read();
        long deadline = 0;
        while (chunk == null || (!chunk.isLast() && !chunk.hasRemaining() && !Content.Chunk.isFailure(chunk))) {
            if (chunk != null) { // an empty DATA frame that leaves the stream open tells nothing yet
                chunk.release();
            }
            if (deadline == 0) {
                deadline = request.getBeginNanoTime() + timeout(request).toNanos();
            }
            CompletableFuture<Void> arrived = new CompletableFuture<>();
            request.demand(() -> arrived.complete(null));
            try {
                arrived.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException late) {
                RequestFraming.Rejection timedOut = RequestFraming.FIRST_DATA_TIMEOUT;
                // the demand stays with Jetty: met later, it completes a future nobody waits for
                throw new GatewayError(timedOut.status(), timedOut.code(), timedOut.reason());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("waiting for the request's first DATA frame");
            } catch (ExecutionException impossible) {
                throw new IOException(impossible.getCause());
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

    private static Duration timeout(Request request) {
        Wait wait = request.getConnectionMetaData().getConnector().getBean(Wait.class);
        return wait == null ? dev.sluice.config.ServerLimits.defaults().headerTimeout() : wait.timeout();
    }
}
