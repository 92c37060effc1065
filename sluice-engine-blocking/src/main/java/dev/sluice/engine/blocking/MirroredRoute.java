package dev.sluice.engine.blocking;

import dev.sluice.config.ProxyTarget;
import dev.sluice.engine.blocking.upstream.UpstreamClient;
import dev.sluice.engine.blocking.upstream.UpstreamException;
import dev.sluice.engine.blocking.upstream.UpstreamRequest;
import dev.sluice.engine.blocking.upstream.UpstreamResponse;
import dev.sluice.http.HeaderRules;
import dev.sluice.http.RequestFraming;
import dev.sluice.policy.UpstreamEdits;
import dev.sluice.routing.ProxyPath;
import dev.sluice.routing.RouteTable;
import dev.sluice.upstream.Mirror;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

/**
 * A route with a {@code mirror:}: when the core's {@link Mirror} says so, a copy of the request goes
 * to the mirror's upstream on a virtual thread of its own, then the route runs as it would without
 * it. The copy's head is made before the route runs, and nothing of the copy's outcome reaches the
 * client. A request with a body runs on a {@link Tee} of the request: each piece of the body the
 * route reads is also copied into the copy's {@link Pipe} ({@link Mirror.Body} says whether), which
 * never makes the route wait; a body past {@code max-body}, or one the route did not read to its
 * end, aborts the copy's request before its end.
 */
final class MirroredRoute implements BlockingRoute {

    private final Mirror mirror;
    private final BlockingRoute route;
    private final ProxyTarget target;
    private final UpstreamClient client;
    private final HeaderRules rules;

    MirroredRoute(Mirror mirror, BlockingRoute route, ProxyTarget target, UpstreamClient client, HeaderRules rules) {
        this.mirror = mirror;
        this.route = route;
        this.target = target;
        this.client = client;
        this.rules = rules;
    }

    @Override
    public void handle(Request request, Response response, RouteTable.Result.Matched match, UpstreamEdits edits)
            throws Exception {
        HttpFields headers = request.getHeaders();
        long body = RequestFraming.upstreamBody(
                request.getConnectionMetaData().getHttpVersion() == HttpVersion.HTTP_2,
                headers.get(HttpHeader.CONTENT_LENGTH),
                headers.contains(HttpHeader.TRANSFER_ENCODING),
                false);
        if (request.getAttribute(WebSocketRelay.REQUESTED) != null || mirror.decide(body) != Mirror.Decision.COPY) {
            route.handle(request, response, match, edits);
            return;
        }
        Pipe pipe = body == 0 ? null : new Pipe(mirror.body(), body > 0 ? (int) body : mirror.maxBody(), body);
        if (!copy(request, match, edits, pipe, body) || pipe == null) {
            route.handle(request, response, match, edits);
            return;
        }
        try {
            route.handle(new Tee(request, pipe), response, match, edits);
        } finally {
            pipe.abort(); // a body the route did not read to its end: the copy must not end either
        }
    }

    /** @return whether the copy was started */
    private boolean copy(Request request, RouteTable.Result.Matched match, UpstreamEdits edits, Pipe pipe, long body) {
        UpstreamRequest copy;
        try {
            copy = new UpstreamRequest(
                    request.getMethod(),
                    ProxyPath.target(
                            target,
                            client.config().basePath(),
                            match,
                            Requests.lazyQuery(request),
                            edits.query(request.getHttpURI().getQuery())));
            Requests.forwardHeaders(request, rules, edits, copy);
            if (pipe != null) {
                copy.body(pipe, body > 0 ? body : -1); // an h2 body of unknown length: chunked
            }
            Thread.ofVirtual().name("sluice-mirror").start(() -> send(copy));
            return true;
        } catch (RuntimeException e) { // the route answers the same refusal (a path it cannot make)
            mirror.ended();
            return false;
        }
    }

    /** The request as the route sees it, each body piece it reads also given to the copy's pipe. */
    private static final class Tee extends Request.Wrapper {
        private final Pipe pipe;

        Tee(Request request, Pipe pipe) {
            super(request);
            this.pipe = pipe;
        }

        @Override
        public Content.Chunk read() {
            Content.Chunk chunk = super.read();
            if (chunk != null) {
                pipe.offer(chunk);
            }
            return chunk;
        }
    }

    /**
     * The copy's body: the bytes the route read, copied (at most {@code max-body} of them, the core's
     * {@link Mirror.Body} counting), read by the copy's thread. Offering never waits; the copy's
     * reader waits for bytes, and fails (so that its request is aborted, never ended) once the body
     * is abandoned: past {@code max-body}, broken, or left unread by the route.
     */
    static final class Pipe extends BulkInputStream {
        private final Mirror.Body tally;
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition more = lock.newCondition();
        private final int most;
        private final long length; // declared, or negative
        private byte[] bytes;
        private int written;
        private int read;
        private boolean ended;
        private boolean aborted;

        /** @param most the body's length when known, else {@code max-body}: the most it holds */
        Pipe(Mirror.Body tally, int most, long length) {
            this.tally = tally;
            this.most = most;
            this.length = length;
            this.bytes = new byte[Math.min(most, 16 * 1024)];
        }

        /** A piece of the client's body as the route read it; its bytes are left as they are. */
        void offer(Content.Chunk chunk) {
            if (Content.Chunk.isFailure(chunk)) {
                abort();
                return;
            }
            ByteBuffer piece = chunk.getByteBuffer();
            int n = piece.remaining();
            lock.lock();
            try {
                if (aborted || ended) {
                    return;
                }
                if (n > 0) {
                    if (!tally.take(n)) {
                        abortLocked();
                        return;
                    }
                    if (written + n > bytes.length) {
                        bytes = Arrays.copyOf(bytes, Math.max(written + n, Math.min(bytes.length * 2, most)));
                    }
                    piece.get(piece.position(), bytes, written, n); // absolute: the route's view is untouched
                    written += n;
                }
                // the route stops reading at a declared length, maybe before the last chunk
                if (chunk.isLast() || written == length) {
                    ended = true;
                }
                more.signalAll();
            } finally {
                lock.unlock();
            }
        }

        /** Abandons the copy's body unless it ended. */
        void abort() {
            lock.lock();
            try {
                if (!ended) {
                    abortLocked();
                }
            } finally {
                lock.unlock();
            }
        }

        private void abortLocked() {
            aborted = true;
            bytes = null;
            more.signalAll();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            lock.lock();
            try {
                while (true) {
                    if (aborted) {
                        throw new IOException("the mirror's copy of the body was abandoned");
                    }
                    if (read < written) {
                        int n = Math.min(len, written - read);
                        System.arraycopy(bytes, read, b, off, n);
                        read += n;
                        return n;
                    }
                    if (ended) {
                        return -1;
                    }
                    more.await();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            } finally {
                lock.unlock();
            }
        }
    }

    /** Sends the copy and reads its answer to the end, discarding it. */
    private void send(UpstreamRequest copy) {
        long began = System.nanoTime();
        try (UpstreamResponse answer = client.send(copy)) {
            mirror.answered(answer.status(), System.nanoTime() - began);
            byte[] discard = new byte[8192];
            while (answer.read(discard, 0, discard.length) >= 0) {
                // the answer is read so that its connection can be used again
            }
        } catch (UpstreamException e) {
            mirror.failed(e.failure(), System.nanoTime() - began);
        } catch (RuntimeException e) {
            // a copy's failure is never the client's
        } finally {
            mirror.ended();
        }
    }
}
