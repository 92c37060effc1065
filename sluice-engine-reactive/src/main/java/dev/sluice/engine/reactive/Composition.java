package dev.sluice.engine.reactive;

import dev.sluice.compose.JsonSplice;
import dev.sluice.compose.PartOutcome;
import dev.sluice.http.ErrorBody;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.netty.http.server.HttpServerResponse;

/**
 * One composed response in flight. Everything happens on the client connection's event loop (the
 * home loop): part signals are moved there, and the body is written straight to the connection
 * while it is writable ({@link WriteGate} says when it is again), flushed once per turn of the
 * loop, so parts that arrive together leave together.
 *
 * <pre>
 *   part 0 ──┐                       key(i) + part i's buffers ... key(j) + ...   _meta
 *   part 1 ──┼─► ready parts ──► one relayed at a time ─────────────────────────────────► client
 *   part 2 ──┘   (others wait, each holding at most read-ahead bytes)
 * </pre>
 *
 * The status line is committed when there is something to write ({@code on-error: partial}) or
 * when every part has answered ({@code on-error: fail}, which may answer 502/504 instead).
 */
final class Composition {

    private static final byte[] NULL = JsonSplice.NULL;

    final ComposeRoute route;
    final EventLoop home;
    private final HttpServerResponse response;
    private final Channel channel;
    private final long start = System.nanoTime();
    private final Part[] parts;
    private final ArrayDeque<Part> ready; // arrival order only
    private final PartOutcome[] outcomes;
    private final ScheduledFuture<?>[] timers;

    private final WriteGate gate; // null only if the connection has none (then no flow control hint)
    private final boolean http10; // the client speaks HTTP/1.0
    private final Runnable flush = this::flush;
    private MonoSink<Void> sink;
    private boolean open; // the status line is out: body bytes may be written
    private boolean flushPending;
    private boolean draining;
    private boolean missed;
    private boolean committed;
    private boolean finished;
    private Part relaying;
    private ByteBuf pendingKey; // the key of the part being relayed, not yet written
    private boolean firstWritten;
    private int nextDeclared;
    private int written;

    Composition(ComposeRoute route, ClientRequest in, HttpServerResponse response, Channel channel, String[] paths) {
        this.http10 = in.request.version().equals(io.netty.handler.codec.http.HttpVersion.HTTP_1_0);
        this.route = route;
        this.response = response;
        this.channel = channel;
        this.home = channel.eventLoop();
        this.gate = channel.pipeline().get(WriteGate.NAME) instanceof WriteGate g ? g : null;
        int n = paths.length;
        this.parts = new Part[n];
        ClientRequest.Forwarding forwarding = in.forwarding();
        for (int i = 0; i < n; i++) {
            parts[i] = new Part(
                    this,
                    i,
                    route.parts.get(i),
                    route.upstreams[i],
                    paths[i],
                    forwarding,
                    route.readAhead,
                    route.target.validateJson());
        }
        this.ready = route.declared ? null : new ArrayDeque<>(n);
        this.outcomes = new PartOutcome[n];
        this.timers = new ScheduledFuture<?>[n + 1];
    }

    /** The handler's answer: completes when the response has been written, failed or aborted. */
    Mono<Void> run() {
        return Mono.create(sink -> {
            this.sink = sink;
            sink.onCancel(() -> onLoop(this::stop));
            onLoop(this::begin);
        });
    }

    /** Runs {@code task} on the home loop, now when already on it. */
    void onLoop(Runnable task) {
        if (home.inEventLoop()) {
            task.run();
        } else {
            home.execute(task);
        }
    }

    private void begin() {
        if (finished) {
            return;
        }
        timers[parts.length] = home.schedule(this::routeTimeout, route.timeoutNanos, TimeUnit.NANOSECONDS);
        for (Part part : parts) {
            long t = route.partTimeoutNanos[part.index];
            if (t > 0) {
                timers[part.index] = home.schedule(() -> partTimeout(part), t, TimeUnit.NANOSECONDS);
            }
        }
        if (route.sequential) {
            parts[0].begin();
        } else {
            for (Part part : parts) {
                part.begin();
            }
        }
        drain();
    }

    // ---- part events (home loop) ----

    /** A part answered, buffered bytes, ended or failed. */
    void changed(Part part) {
        if (finished) {
            return;
        }
        if (ready != null && !part.queued && !part.relayStarted && part.isReady()) {
            part.queued = true;
            ready.add(part);
        }
        if (route.sequential && part.begun && !part.successorStarted && (part.ended || part.failed)) {
            part.successorStarted = true;
            for (int i = part.index + 1; i < parts.length; i++) {
                if (!parts[i].failed) {
                    parts[i].begin();
                    break;
                }
            }
        }
        drain();
    }

    private void partTimeout(Part part) {
        timers[part.index] = null;
        if (finished || part.failed) {
            return;
        }
        if (!part.relayStarted) {
            part.fail("timeout", true);
        } else if (!part.ended) {
            abort();
        }
    }

    private void routeTimeout() {
        timers[parts.length] = null;
        if (finished) {
            return;
        }
        draining = true; // fail them all, then write once
        try {
            for (Part part : parts) {
                if (!part.relayStarted) {
                    part.fail("timeout", true);
                }
            }
        } finally {
            draining = false;
        }
        if (relaying != null && !relaying.failed && !relaying.ended) {
            abort();
            return;
        }
        drain();
    }

    // ---- the response ----

    private void drain() {
        if (draining) {
            missed = true;
            return;
        }
        draining = true;
        try {
            do {
                missed = false;
                step();
            } while (missed && !finished);
        } finally {
            draining = false;
        }
    }

    private void step() {
        if (finished) {
            return;
        }
        if (!committed && !commit()) {
            return;
        }
        while (open && !finished && channel.isWritable()) {
            if (relaying == null) {
                Part next = nextReady();
                if (next == null) {
                    if (written == parts.length) {
                        finish();
                    }
                    return;
                }
                boolean first = !firstWritten;
                firstWritten = true;
                if (next.failed) {
                    emit(Unpooled.wrappedBuffer(route.splice.key(next.index, first), NULL));
                    settle(next);
                    continue;
                }
                next.relayStarted = true;
                relaying = next;
                pendingKey = route.key(next.index, first);
            }
            Part part = relaying;
            ByteBuf chunk = part.poll();
            if (chunk != null) {
                part.relayed += chunk.readableBytes();
                if (pendingKey != null) {
                    chunk = Unpooled.wrappedBuffer(pendingKey, chunk);
                    pendingKey = null;
                }
                emit(chunk);
                part.requestMore(); // may deliver, end or fail the part right here
            } else if (part.isDrained()) {
                if (pendingKey != null) { // cannot happen: a part that ended has bytes
                    emit(pendingKey);
                    pendingKey = null;
                }
                relaying = null;
                settle(part);
            } else {
                return; // waiting for the part's next bytes
            }
        }
    }

    private Part nextReady() {
        if (ready != null) {
            return ready.poll();
        }
        if (nextDeclared < parts.length && parts[nextDeclared].isReady()) {
            return parts[nextDeclared++];
        }
        return null;
    }

    private void settle(Part part) {
        outcomes[part.index] = part.outcome(start);
        written++;
        ScheduledFuture<?> timer = timers[part.index];
        if (timer != null) {
            timer.cancel(false);
            timers[part.index] = null;
        }
    }

    /**
     * Decides whether to send the status line now. Returns false while waiting, or when it answered
     * an error instead.
     */
    private boolean commit() {
        if (route.failFast) {
            for (Part part : parts) {
                if (part.failed && !part.config.optional()) {
                    failResponse(part);
                    return false;
                }
            }
            boolean blocked = false;
            boolean waiting = false;
            for (Part part : parts) {
                waiting |= !part.answered && !part.failed;
                blocked |= part.isBlocked();
            }
            if (waiting && !(blocked && route.commitsWhenAPartIsFull)) {
                return false;
            }
        } else if (ready != null ? ready.isEmpty() : !parts[nextDeclared].isReady()) {
            return false;
        }
        committed = true;
        response.status(HttpResponseStatus.OK);
        if (http10) { // no chunked coding in HTTP/1.0 (RFC 9112 section 6.1): the close ends the body
            response.keepAlive(false);
            if (gate != null) {
                gate.endBodyWithClose();
            }
        }
        HttpHeaders headers = response.responseHeaders();
        for (Map.Entry<String, String> set :
                route.rules.composedResponseHeaders().entrySet()) {
            headers.set(set.getKey(), set.getValue());
        }
        if (gate != null) {
            gate.holdHead(); // the status line leaves with the first body bytes
            gate.onWritable(this::drain);
        }
        response.then()
                .subscribe(
                        null,
                        error -> onLoop(() -> {
                            if (!finished) { // the client is gone
                                stop();
                                done();
                            }
                        }));
        open = channel.isActive();
        return true;
    }

    private void failResponse(Part part) {
        committed = true;
        stop();
        int status = part.timedOut ? 504 : 502;
        String code = part.timedOut ? "part_timeout" : "part_failed";
        byte[] body = ErrorBody.of(status, code, "part '" + part.config.name() + "': " + part.error);
        Responses.error(response, status, body).subscribe(null, error -> done(), this::done);
    }

    private void finish() {
        byte[] meta = JsonSplice.meta(Arrays.asList(outcomes), System.nanoTime() - start);
        emit(Unpooled.wrappedBuffer(meta));
        stop();
        done(); // Reactor Netty writes the last chunk and flushes everything
    }

    /** Writes {@code chunk} to the connection; it is flushed at the end of this turn of the loop. */
    private void emit(ByteBuf chunk) {
        if (!channel.isActive()) {
            chunk.release();
            return;
        }
        channel.write(chunk, channel.voidPromise());
        if (!flushPending) {
            flushPending = true;
            home.execute(flush);
        }
    }

    private void flush() {
        flushPending = false;
        channel.flush();
    }

    /** A part broke after its bytes began to reach the client: close the connection, no clean end. */
    void abort() {
        if (finished) {
            return;
        }
        stop();
        Responses.abort(channel);
        done();
    }

    /** Ends the composition: timers and parts stop, buffers are released. Idempotent. */
    private void stop() {
        if (finished) {
            return;
        }
        finished = true;
        if (gate != null) {
            gate.release();
        }
        for (int i = 0; i < timers.length; i++) {
            if (timers[i] != null) {
                timers[i].cancel(false);
                timers[i] = null;
            }
        }
        for (Part part : parts) {
            part.close();
        }
    }

    private void done() {
        sink.success();
    }
}
