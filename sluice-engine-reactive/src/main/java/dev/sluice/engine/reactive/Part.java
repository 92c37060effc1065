package dev.sluice.engine.reactive;

import dev.sluice.compose.JsonValidator;
import dev.sluice.compose.PartOutcome;
import dev.sluice.compose.PartRules;
import dev.sluice.config.PartConfig;
import dev.sluice.http.UpstreamFailure;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One part of a {@link Composition}: its upstream call and its bounded read-ahead buffer.
 *
 * <pre>
 *   upstream ──read()──► buffer (at most read-ahead bytes) ──poll()──► composition ──► client
 *             └ no further read while the buffer is full: the connection holds the rest
 * </pre>
 *
 * It takes a connection from its upstream's {@link Lane}, and the response's head and body buffers
 * arrive on that connection's event loop; every signal is moved onto the composition's loop, where
 * all its state lives (usually the same loop: see {@link Upstream}). It reads only while its
 * read-ahead has room, so its connection's {@link ReadStall} times only the waits it asked for: a part
 * waiting for its turn is never timed out.
 */
final class Part implements Lane.Acquirer, UpstreamConnection.Exchange {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Part.class);

    final int index;
    final PartConfig config;
    private final Composition composition;
    private final Upstream upstream;
    private final String path;
    private final ClientRequest.Forwarding forwarding;
    private final int readAhead;
    private final JsonValidator validator; // null unless validate-json
    private final ArrayDeque<ByteBuf> buffer = new ArrayDeque<>(4);

    // all below: on the composition's loop
    private UpstreamConnection connection; // while the call has one
    private boolean acquiring; // asked its lane for a connection, none given yet
    private boolean outstanding; // a read is pending upstream
    private long buffered;
    private long received;
    long relayed;
    int status;
    boolean begun;
    boolean answered;
    boolean ended;
    boolean failed;
    boolean timedOut;
    String error = "";
    long endNanos;
    boolean queued; // in the composition's arrival queue
    boolean relayStarted;
    boolean successorStarted;
    private boolean closed;
    private boolean resent; // the call was sent once more after its connection failed before an answer
    private ScheduledFuture<?> pacing;

    Part(
            Composition composition,
            int index,
            PartConfig config,
            Upstream upstream,
            String path,
            ClientRequest.Forwarding forwarding,
            int readAhead,
            boolean validateJson) {
        this.composition = composition;
        this.index = index;
        this.config = config;
        this.upstream = upstream;
        this.path = path;
        this.forwarding = forwarding;
        this.readAhead = readAhead;
        this.validator = validateJson ? new JsonValidator() : null;
    }

    /** Starts the call, after the upstream's pacing wait when it has one. */
    void begin() {
        if (begun || closed || failed) {
            return;
        }
        begun = true;
        long wait = upstream.reserveStart();
        if (wait > 0) {
            pacing = composition.home.schedule(this::call, wait, TimeUnit.NANOSECONDS);
        } else {
            call();
        }
    }

    private void call() {
        pacing = null;
        if (closed || failed) {
            return;
        }
        acquiring = true;
        upstream.lane(composition.home).acquire(this);
    }

    /** A connection for the call: on the lane's loop. */
    @Override
    public void acquired(UpstreamConnection c) {
        composition.onLoop(() -> send(c));
    }

    @Override
    public void failed(Throwable error) {
        composition.onLoop(() -> acquiring = false);
        onError(error);
    }

    private void send(UpstreamConnection c) {
        acquiring = false;
        if (closed || failed) {
            c.lane.release(c); // never used: fit for the next call
            return;
        }
        connection = c;
        outstanding = true; // the status line, and whatever body bytes come with it
        HttpHeaders headers = UpstreamConnection.newHeaders();
        headers.set(HttpHeaderNames.ACCEPT, HttpHeaderValues.APPLICATION_JSON);
        forwarding.addTo(composition.route.rules, upstream.authority(), headers);
        c.send(this, HttpMethod.GET, path, headers);
    }

    /** The status line and headers: on the upstream connection's loop. */
    @Override
    public void onHead(HttpResponse response, UpstreamConnection c) {
        int code = response.status().code();
        String rejection = PartRules.rejection(code, response.headers().get(HttpHeaderNames.CONTENT_TYPE))
                .orElse(null);
        if (rejection != null) {
            c.abandon(this); // the body is not wanted: close rather than read it
        }
        composition.onLoop(() -> answered(code, rejection));
    }

    @Override
    public void onContent(ByteBuf chunk) {
        if (composition.home.inEventLoop()) {
            received(chunk);
        } else {
            composition.home.execute(() -> received(chunk));
        }
    }

    @Override
    public void onEnd() {
        composition.onLoop(this::completed);
    }

    @Override
    public void onError(Throwable error) {
        composition.onLoop(() -> {
            connection = null;
            if (!closed && !ended && !failed) {
                UpstreamFailure failure = Failures.classify(error);
                if (!Failures.isUpstreams(error)) { // not the upstream's doing: a bug, never silent
                    LOG.error(
                            "composition part '{}' (upstream {}) failed inside the gateway; reported as {}",
                            config.name(),
                            config.upstream(),
                            failure.code(),
                            error);
                }
                if (failure == UpstreamFailure.RESET && status == 0 && !resent) { // a GET, no body: RetryRule
                    resent = true;
                    outstanding = false;
                    call();
                    return;
                }
                fail(failure.reason(), Failures.isTimeout(failure));
            }
        });
    }

    private void answered(int code, String rejection) {
        status = code;
        if (closed || failed) {
            return;
        }
        answered = true;
        if (rejection != null) {
            fail(rejection, false);
            return;
        }
        composition.changed(this);
    }

    private void received(ByteBuf chunk) {
        outstanding = false;
        if (closed || failed) {
            chunk.release();
            return;
        }
        int n = chunk.readableBytes();
        if (n > 0 && validator != null) {
            for (ByteBuffer nio : chunk.nioBuffers()) {
                validator.feed(nio);
            }
            if (validator.failed()) {
                chunk.release();
                fail("invalid JSON: " + validator.error(), false);
                return;
            }
        }
        if (n == 0) {
            chunk.release();
        } else {
            received += n;
            buffered += n;
            buffer.add(chunk);
        }
        requestMore();
        composition.changed(this);
    }

    private void completed() {
        connection = null; // back in its lane, or closed
        if (closed || failed || ended) {
            return;
        }
        if (received == 0) {
            fail("empty body", false);
        } else if (validator != null && !validator.finish()) {
            fail("invalid JSON: " + validator.error(), false);
        } else {
            ended = true;
            endNanos = System.nanoTime();
            composition.changed(this);
        }
    }

    /** Asks the upstream for the next body bytes, unless the read-ahead is full or the body is done. */
    void requestMore() {
        if (!outstanding && !ended && !failed && !closed && connection != null && buffered < readAhead) {
            outstanding = true;
            connection.read();
        }
    }

    /**
     * Ready to relay: answered, and its body has ended, or bytes are buffered (with validate-json:
     * the read-ahead is full, so a small body is checked whole first); or failed.
     */
    boolean isReady() {
        return failed || (answered && (ended || (buffered > 0 && (validator == null || buffered >= readAhead))));
    }

    /** Whether the read-ahead is full and waiting for this part's turn. */
    boolean isBlocked() {
        return answered && !ended && !failed && buffered >= readAhead;
    }

    /** The next buffered chunk to relay, or null. The caller asks for more with {@link #requestMore()}. */
    ByteBuf poll() {
        ByteBuf chunk = buffer.poll();
        if (chunk != null) {
            buffered -= chunk.readableBytes();
        }
        return chunk;
    }

    /** Whether every byte of the body has been relayed. */
    boolean isDrained() {
        return ended && buffer.isEmpty();
    }

    /**
     * Fails the part: it becomes {@code null} in the response, or, when its bytes are already being
     * relayed, the client response is aborted.
     */
    void fail(String reason, boolean timeout) {
        if (failed || closed) {
            return;
        }
        if (relayStarted) {
            composition.abort();
            return;
        }
        failed = true;
        timedOut = timeout;
        error = reason;
        endNanos = System.nanoTime();
        free();
        composition.changed(this);
    }

    PartOutcome outcome(long start) {
        return failed
                ? PartOutcome.failed(config.name(), status, error, endNanos - start)
                : PartOutcome.ok(config.name(), status, endNanos - start, relayed);
    }

    /** Stops the call and frees the buffer, for good: the composition is over. Idempotent. */
    void close() {
        closed = true;
        free();
    }

    private void free() {
        if (pacing != null) {
            pacing.cancel(false);
            pacing = null;
        }
        if (connection != null && !ended) {
            connection.abandon(this);
        }
        connection = null;
        if (acquiring) {
            acquiring = false;
            upstream.lane(composition.home).cancel(this);
        }
        ByteBuf chunk;
        while ((chunk = buffer.poll()) != null) {
            chunk.release();
        }
        buffered = 0;
    }
}
