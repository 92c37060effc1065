package dev.sluice.engine.reactive;

import dev.sluice.compose.CompositionBudget;
import dev.sluice.compose.CompositionPlan;
import dev.sluice.compose.JsonPointerTap;
import dev.sluice.compose.JsonShaper;
import dev.sluice.compose.JsonValidator;
import dev.sluice.compose.PartCache;
import dev.sluice.compose.PartRequest;
import dev.sluice.compose.ReadAheadBudget;
import dev.sluice.config.PartConfig;
import dev.sluice.http.UpstreamFailure;
import dev.sluice.transcode.TranscodeException;
import dev.sluice.transcode.TranscodedPart;
import dev.sluice.upstream.Attempt;
import dev.sluice.upstream.UpstreamCall;
import dev.sluice.upstream.UpstreamCall.Action;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One part of a {@link Composition}: its upstream call and its bounded read-ahead buffer. It moves
 * bytes and reports to the composition's plan, which decides what they mean.
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
 *
 * <p>Every byte it reads is the gateway's {@link ReadAheadBudget}'s, through its composition's
 * {@link CompositionBudget}: before each socket read it reserves a read's worth ({@link #HEAD_SHARE}
 * for the read that brings the answer's head, {@link #READ_SHARE} for each body read), from its
 * composition's floor when the plan waits on it ({@link CompositionPlan#need}), else from the pool if
 * that gives it without waiting, and the read is capped to what it reserved ({@link CappedReads}); when
 * it cannot, it reads nothing (its upstream connection holds the rest) and tries again when its
 * composition is told of room ({@link #roomMade}). A part waiting for its answer so holds 16 KiB of
 * the budget, not a whole read's 64 KiB: with slow upstreams, the waiting parts alone once filled
 * {@code auto}'s budget and capped the compositions a second (seed 004; figures in
 * docs/MEASUREMENTS.md, session 28). The bytes that arrive stay taken while they are buffered here
 * and until the composition has written them to the client; what a read did not fill goes back once the
 * part stops reading.
 */
final class Part implements Lane.Acquirer, UpstreamConnection.Exchange {

    private static final HttpMethod METHOD = HttpMethod.valueOf(PartRequest.METHOD);

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Part.class);

    /**
     * What one socket read may allocate, taken from the budget before it: Netty's adaptive receive
     * allocator grows a read's buffer to 64 KiB at most, and the response decoder hands body bytes on
     * in pieces of at most {@code Lane.MAX_CHUNK}, the same.
     */
    static final int READ_SHARE = CappedReads.MAX;

    /**
     * The share of the read that brings the answer's head, and a composition's floor per share
     * ({@link CompositionBudget}): enough for a head and the start of a small body. An h2 part's reads
     * are DATA frames of at most 16 KiB (the default SETTINGS_MAX_FRAME_SIZE), so each of its reads
     * takes this share.
     */
    static final int HEAD_SHARE = 16 * 1024;

    final int index;
    final PartConfig config;
    private final Composition composition;
    private final CompositionPlan plan;
    private final Upstream upstream;
    private String path; // the plan's target, given when it starts the part
    private final ClientRequest.Forwarding forwarding;
    private final int readAhead;
    private final JsonValidator validator; // the plan's; null unless validate-json
    private final JsonShaper shaper; // the plan's; null unless the part is shaped
    private final JsonPointerTap tap; // the plan's; null unless chained parts wait for this one's values
    private final ArrayDeque<ByteBuf> buffer = new ArrayDeque<>(4);
    private final CompositionBudget.Reader reader; // this part's bytes in its composition's budget
    private final PartCache cache; // the gateway's when the part has cache:, else null
    private HttpHeaders sent; // a cached part's request headers, for the cache's Vary
    private PartCache.Recorder recorder; // a cached part's answer, copied as it streams; null: not kept

    // all below: on the composition's loop
    private UpstreamConnection connection; // while the call has one
    private H2Part stream; // instead, on an h2/h2c upstream: while the try's stream is open
    private boolean grpcHead; // a gRPC part's try: its head was told to the try loop
    private boolean acquiring; // asked its lane for a connection, none given yet
    private boolean outstanding; // a read is pending upstream
    private long buffered;
    private int status;
    private boolean begun;
    private boolean ended;
    private boolean done; // failed, or no longer wanted: reads nothing more
    private boolean closed;
    private ScheduledFuture<?> pacing; // the pacing wait, or the backoff before a retry
    private ScheduledFuture<?> tryTimer; // the try's per-try timeout
    private final UpstreamCall tries; // decides each try's next step
    private Attempt attempt; // the try in progress, or the last one
    private boolean between; // a try was dropped, the next not begun: its late signals are ignored
    private Runnable afterGrant; // what goes on once there is room for a read (null: not waiting)
    private long polledFloor; // of the last chunk polled, bytes that were its composition's floor's
    private boolean moreAsked; // a read gave chunks: the next is asked once all of them came (onReadComplete)
    private final Runnable requestMoreTask = this::readComplete;

    Part(
            Composition composition,
            int index,
            PartConfig config,
            Upstream upstream,
            ClientRequest.Forwarding forwarding,
            int readAhead) {
        this.composition = composition;
        this.plan = composition.plan;
        this.index = index;
        this.config = config;
        this.upstream = upstream;
        this.forwarding = forwarding;
        this.readAhead = readAhead;
        this.reader = composition.account.reader();
        this.validator = plan.validator(index);
        this.shaper = plan.shaper(index);
        this.tap = plan.tap(index);
        this.tries = new UpstreamCall(upstream.guard(), PartRequest.METHOD, 0, System::nanoTime);
        this.cache = config.cache().isPresent() ? composition.route.partCache : null;
    }

    /** Starts the call to {@code target}, after the upstream's pacing wait when it has one. */
    void begin(String target) {
        if (begun || closed || done) {
            return;
        }
        begun = true;
        path = target;
        if (cache != null && answeredFromCache()) {
            return;
        }
        long wait = upstream.reserveStart();
        if (wait > 0) {
            pacing = composition.home.schedule(this::call, wait, TimeUnit.NANOSECONDS);
        } else {
            call();
        }
    }

    /** A try: the first, or a retry on the endpoint the guard picks. */
    private void call() {
        pacing = null;
        between = false;
        if (closed || done) {
            return;
        }
        if (!reserveRead(HEAD_SHARE, this::call)) {
            return; // waiting for the budget is not the try's time: its timer starts once it is granted
        }
        carry(tries.next());
    }

    /** Carries out the step {@link UpstreamCall} decided ({@link Action.Relay} is {@link #answered}'s). */
    private void carry(Action action) {
        switch (action) {
            case Action.Send send -> {
                attempt = send.attempt();
                if (attempt.number() > 1) {
                    plan.attempts(index, attempt.number());
                }
                if (send.timeoutNanos() > 0) {
                    tryTimer = composition.home.schedule(this::tryExpired, send.timeoutNanos(), TimeUnit.NANOSECONDS);
                }
                acquire(false);
            }
            case Action.Resend resend -> {
                outstanding = false;
                acquire(true); // a stale connection: the same try, on a fresh one
            }
            case Action.RetryAfter retry -> dropTry(retry.nanos()); // an answer is dropped unread, with its connection
            case Action.Fail fail -> {
                cancelTryTimer();
                if (connection != null) {
                    connection.abandon(this);
                    connection = null;
                }
                abandonStream();
                plan.failed(index, fail.failure(), status);
                stop();
                composition.changed();
            }
            default -> {} // Ignore: a dropped try's late signal (a Relay is answered()'s)
        }
    }

    /**
     * Asks the lane for a connection, with the first read's share taken from the budget (by {@link
     * #call}; again here for a resend, should it have gone meanwhile): the status line's read brings
     * body bytes with it.
     */
    private void acquire(boolean fresh) {
        if (!reserveRead(HEAD_SHARE, () -> acquire(fresh))) {
            return; // the budget is spent: asks again when granted
        }
        if (upstream.h2() != null) {
            sendStream();
            return;
        }
        acquiring = true;
        upstream.lane(attempt.endpoint(), composition.home).acquire(this, fresh);
    }

    /** On an h2/h2c upstream: the try is a stream on the endpoint's multiplexed client ({@link H2Part}). */
    private void sendStream() {
        abandonStream();
        if (config.grpc().isPresent()) {
            sendGrpc();
            return;
        }
        stream = new H2Part(this, null);
        outstanding = true; // the head, and the first body buffer
        HttpHeaders headers = requestHeaders(upstream.authority(attempt.endpoint()));
        if (cache != null) {
            sent = headers; // what its answer is kept under, as on HTTP/1.1
        }
        stream.send(upstream.h2().client(attempt.endpoint()), path, headers);
    }

    /** A gRPC part's try: the call {@link TranscodedPart} makes of the target; one no method takes fails at once. */
    private void sendGrpc() {
        TranscodedPart grpc;
        try {
            grpc = TranscodedPart.open(config.grpc().get(), path);
        } catch (TranscodeException e) {
            TranscodedPart.Step refusal = TranscodedPart.refusal(e);
            cancelTryTimer();
            plan.failed(index, refusal.failedStatus(), refusal.error());
            stop();
            composition.changed();
            return;
        }
        grpcHead = false;
        stream = new H2Part(this, grpc);
        outstanding = true;
        stream.sendGrpc(
                upstream.h2().client(attempt.endpoint()),
                upstream.config().basePath(),
                requestHeaders(upstream.authority(attempt.endpoint())),
                plan.nanosLeft(index));
    }

    /**
     * One step of a gRPC part's answer ({@link TranscodedPart}): on the stream's loop. {@code headStatus}
     * is the upstream's HTTP status when the step is the head's (the try loop, breaker and outlier
     * ejection learn it as a proxied call's), else 0.
     */
    void grpcStep(H2Part from, TranscodedPart.Step step, int headStatus) {
        composition.onLoop(() -> {
            if (from == stream) { // else a dropped try's late step
                stepped(step, headStatus);
            }
        });
    }

    private void stepped(TranscodedPart.Step step, int headStatus) {
        if (closed || done || between || ended) {
            return;
        }
        if (headStatus != 0 && !grpcHead) {
            grpcHead = true;
            Action action = tries.answered(headStatus); // the try got its answer: no retry now
            if (!(action instanceof Action.Relay)) {
                carry(action);
                return;
            }
            cancelTryTimer();
        }
        if (step.failed()) {
            cancelTryTimer();
            abandonStream();
            status = step.failedStatus();
            plan.failed(index, step.failedStatus(), step.error());
            stop();
            composition.changed();
            return;
        }
        if (step.answered() != 0) {
            status = step.answered();
            if (!plan.answered(index, step.answered(), TranscodedPart.CONTENT_TYPE)) {
                stop();
                composition.changed();
                return;
            }
        }
        byte[] json = step.json();
        if (json.length > 0) {
            received(composition.alloc().directBuffer(json.length).writeBytes(json));
        } else if (headStatus == 0 && !step.end()) {
            outstanding = false; // a chunk that completed no message: read on
            requestMore();
        }
        if (step.end() && !closed && !done) {
            abandonStream(); // its trailers came: nothing more of it
            completed();
        }
        if (step.answered() != 0 && json.length == 0) {
            composition.changed();
        }
    }

    private void abandonStream() {
        if (stream != null) {
            stream.abandon();
            stream = null;
        }
    }

    /*
     * An h2 stream's signals, each from the stream's loop, name their stream: a dropped try's stream is
     * reset from the home loop (H2Part.abandon), but a signal its loop had begun meanwhile still comes,
     * maybe after the next try began (a retry's backoff is 1 ms at least, a preempted loop can be late by
     * more). Only the current stream's count; an HTTP/1.1 try needs no such check, as its next try begins
     * only once its connection has let it go (UpstreamConnection.abandonThen).
     */

    /** An h2 stream's answer head. */
    void h2Head(H2Part from, int code, String contentType, HttpHeaders responseHeaders) {
        HttpHeaders headers = cache == null ? null : responseHeaders;
        composition.onLoop(() -> {
            if (from == stream) {
                answered(code, contentType, headers);
            }
        });
    }

    /** An h2 stream's body buffer. */
    void h2Content(H2Part from, ByteBuf chunk) {
        composition.onLoop(() -> {
            if (from == stream) {
                received(chunk);
            } else {
                chunk.release(); // a dropped try's
            }
        });
    }

    /** An h2 stream's read is whole ({@link #onReadComplete}). */
    void h2ReadComplete(H2Part from) {
        composition.onLoop(() -> {
            if (from == stream) {
                readComplete();
            }
        });
    }

    /** An h2 stream's answer ended. */
    void h2End(H2Part from) {
        composition.onLoop(() -> {
            if (from == stream) {
                completed();
            }
        });
    }

    /** An h2 stream failed. */
    void h2Error(H2Part from, Throwable error) {
        composition.onLoop(() -> {
            if (from == stream) {
                failedOnLoop(error);
            }
        });
    }

    /** The try's per-try timeout passed before its answer: it fails, and may be tried again. */
    private void tryExpired() {
        tryTimer = null;
        Action action = tries.expired(); // Ignore once the try ended, was dropped or the part stopped
        if (action == Action.Ignore.INSTANCE) {
            return;
        }
        if (acquiring) {
            acquiring = false;
            upstream.lane(attempt.endpoint(), composition.home).cancel(this);
        }
        outstanding = false;
        carry(action);
    }

    /** Drops the try (its connection, if it had one, and any answer unread) and begins the next after {@code wait}. */
    private void dropTry(long wait) {
        cancelTryTimer();
        UpstreamConnection c = connection;
        connection = null;
        between = true;
        outstanding = false;
        recorder = null; // a dropped try's answer is never kept
        afterGrant = null; // the next try reserves again
        abandonStream();
        if (c == null) {
            retryAfter(wait);
        } else {
            c.abandonThen(this, () -> composition.onLoop(() -> retryAfter(wait)));
        }
    }

    private void retryAfter(long wait) {
        if (closed || done) {
            return;
        }
        if (wait <= 0) {
            call();
        } else {
            pacing = composition.home.schedule(this::call, wait, TimeUnit.NANOSECONDS);
        }
    }

    private void cancelTryTimer() {
        if (tryTimer != null) {
            tryTimer.cancel(false);
            tryTimer = null;
        }
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
        if (closed || done) {
            c.lane.release(c); // never used: fit for the next call
            return;
        }
        connection = c;
        outstanding = true; // the status line, and whatever body bytes come with it
        moreAsked = false;
        HttpHeaders headers = requestHeaders(upstream.authority(attempt.endpoint()));
        if (cache != null) {
            sent = headers;
        }
        int armed = c.armedRead(); // io_uring: its first read was taken while idle, at its own size
        if (armed > reader.reserved()) {
            reader.reserveUpTo(armed, plan.need(index)); // what it cannot get is taken as it arrives
        }
        c.send(this, METHOD, path, headers, readCap());
    }

    /** The status line and headers: on the upstream connection's loop. */
    @Override
    public void onHead(HttpResponse response, UpstreamConnection c) {
        int code = response.status().code();
        String contentType = response.headers().get(HttpHeaderNames.CONTENT_TYPE);
        HttpHeaders headers = cache == null ? null : response.headers();
        composition.onLoop(() -> answered(code, contentType, headers));
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
        composition.onLoop(() -> failedOnLoop(error));
    }

    private void failedOnLoop(Throwable error) {
        if (closed || ended || done || between) {
            return;
        }
        connection = null;
        stream = null;
        UpstreamFailure failure = Failures.classify(error);
        if (!Failures.isUpstreams(error)) { // not the upstream's doing: a bug, never silent
            LOG.error(
                    "composition part '{}' (upstream {}) failed inside the gateway; reported as {}",
                    config.name(),
                    config.upstream(),
                    failure.code(),
                    error);
        }
        carry(tries.failed(failure, status != 0));
    }

    private void answered(int code, String contentType, HttpHeaders headers) {
        Action action = tries.answered(code); // Ignore once the try was dropped or the part stopped
        if (!(action instanceof Action.Relay)) {
            carry(action); // an answer to try again (a 503 on the retry list): dropped unread
            return;
        }
        cancelTryTimer();
        status = code;
        if (!plan.answered(index, code, contentType)) {
            stop(); // the body is not wanted: close rather than read it
        } else if (headers != null && sent != null) {
            HttpHeaders request = sent;
            recorder = cache.record(config.upstream(), path, config.cache().get(), code, headers::get, request::get);
        }
        composition.changed();
    }

    private void received(ByteBuf chunk) {
        if (between) {
            chunk.release();
            return;
        }
        if (closed || done) {
            outstanding = false;
            chunk.release();
            return;
        }
        int n = chunk.readableBytes();
        if (n == 0) {
            outstanding = false;
            chunk.release();
            requestMore();
            return;
        }
        if (recorder != null) {
            for (ByteBuffer nio : chunk.nioBuffers()) {
                if (!recorder.add(nio)) {
                    recorder = null; // past max-entry: the rest streams uncopied
                    break;
                }
            }
        }
        reader.arrived(n); // the read's share covers what it gave; more (a TLS record completed): held all the same
        if (validator != null) {
            for (ByteBuffer nio : chunk.nioBuffers()) {
                validator.feed(nio);
            }
        }
        if (shaper != null) {
            ByteBuf shaped = Shaped.shape(shaper, chunk, composition.alloc());
            int m = shaped.readableBytes();
            if (m < n) {
                reader.dropped(n - m);
            } else if (m > n) {
                reader.grew(m - n);
            }
            chunk = shaped;
            n = m;
        }
        if (tap != null && n > 0) {
            for (ByteBuffer nio : chunk.nioBuffers()) {
                tap.feed(nio);
            }
        }
        if (!plan.received(index, n)) {
            chunk.release();
            reader.dropped(n);
            stop();
        } else {
            buffered += n;
            if (n > 0) {
                buffer.add(chunk);
            } else {
                chunk.release(); // shaped to nothing
            }
            requestMoreAfterThisRead();
        }
        composition.changed();
    }

    private void completed() {
        if (between) {
            return;
        }
        connection = null; // back in its lane, or closed
        stream = null; // ended
        if (closed || done || ended) {
            return;
        }
        ended = true;
        giveBackReserve(); // no more reads
        if (recorder != null) {
            recorder.finish(); // the whole answer: kept
            recorder = null;
        }
        if (!plan.ended(index)) {
            stop();
        }
        composition.changed();
    }

    /** The part's request headers, sent to {@code authority}. */
    private HttpHeaders requestHeaders(String authority) {
        HttpHeaders headers = UpstreamConnection.newHeaders();
        headers.set(HttpHeaderNames.ACCEPT, PartRequest.ACCEPT);
        forwarding.addTo(composition.route.rules, authority, headers);
        return headers;
    }

    /**
     * A fresh answer in the part cache is the part's, without calling its upstream: its body is
     * copied into one buffer (taken from the budget like bytes read) and the part ends at once.
     * Whether it is kept depends on headers other than {@code Host}, so the lookup's have none.
     */
    private boolean answeredFromCache() {
        var hit = cache.lookup(config.upstream(), path, requestHeaders("")::get);
        if (hit.isEmpty()) {
            return false;
        }
        PartCache.Entry entry = hit.get();
        plan.cached(index);
        status = 200;
        if (!plan.answered(index, 200, entry.contentType())) {
            stop();
            composition.changed();
            return true;
        }
        byte[] body = entry.body(); // the cache's: never relayed itself (NDJSON and SSE flatten in place)
        received(composition.alloc().directBuffer(body.length).writeBytes(body));
        completed();
        return true;
    }

    /**
     * Asks the upstream for the next body bytes, unless the read-ahead is full or the body is done,
     * once the budget gives a read's share; while it does not, the part waits for room ({@link #roomMade}).
     */
    void requestMore() {
        if (outstanding || (connection == null && stream == null)) { // none: not reading yet, or never again
            return;
        }
        if (ended || done || closed || buffered >= readAhead) {
            giveBackReserve(); // not reading now: the share is someone else's meanwhile
            return;
        }
        if (!reserveRead(stream != null ? HEAD_SHARE : READ_SHARE, this::requestMore)) {
            return;
        }
        outstanding = true;
        if (stream != null) {
            stream.read();
        } else {
            connection.read(readCap());
        }
    }

    /**
     * {@link #requestMore()} once the rest of this socket read's chunks (a chunked body's) have come
     * ({@link #onReadComplete}); the read stays outstanding until then: asked at once (here, or by a
     * relay), the next read would be asked with a share those chunks spend, and its bytes held beyond
     * the budget.
     */
    private void requestMoreAfterThisRead() {
        moreAsked = true;
    }

    @Override
    public void onReadComplete() {
        if (composition.home.inEventLoop()) {
            readComplete();
        } else {
            composition.home.execute(requestMoreTask);
        }
    }

    private void readComplete() {
        if (moreAsked) {
            moreAsked = false;
            outstanding = false; // the read's chunks have all come: only now may the next be asked
            requestMore();
        }
    }

    /**
     * Whether a read's share is reserved ({@link CompositionBudget.Reader#reserve}, as the plan needs
     * this part now); if not, the part reads nothing and {@code then} runs when there is room.
     */
    private boolean reserveRead(int share, Runnable then) {
        if (reader.reserveUpTo(share, plan.need(index))) {
            afterGrant = null;
            return true;
        }
        afterGrant = then;
        composition.hungry();
        return false;
    }

    /** The next socket read's most bytes: what the part holds reserved for it. */
    private int readCap() {
        return (int) Math.min(reader.reserved(), READ_SHARE);
    }

    /** Its composition gave bytes back, or its plan moved on (on the home loop): a part waiting for room tries again. */
    void roomMade() {
        Runnable then = afterGrant;
        afterGrant = null;
        if (then != null && !closed && !done) {
            then.run();
        }
    }

    private void giveBackReserve() {
        reader.unreserve();
    }

    /** Of the chunk {@link #poll()} gave last, how many bytes are its composition's floor's. */
    long polledFloor() {
        return polledFloor;
    }

    /**
     * The next buffered chunk to relay. Its bytes stay taken from the budget: the caller gives them
     * back once they are written to the client ({@link CompositionBudget#written}). The caller asks for more with {@link #requestMore()}.
     */
    ByteBuf poll() {
        ByteBuf chunk = buffer.poll();
        buffered -= chunk.readableBytes();
        polledFloor = reader.handedOn(chunk.readableBytes());
        return chunk;
    }

    /** The part failed, or is not wanted: it reads and holds nothing more. */
    private void stop() {
        done = true;
        free();
    }

    /** Stops the call and frees the buffer, for good: the plan stopped it, or the composition is over. Idempotent. */
    void close() {
        closed = true;
        free();
    }

    private void free() {
        if (pacing != null) {
            pacing.cancel(false);
            pacing = null;
        }
        cancelTryTimer();
        tries.abandoned(); // nothing if its try had ended
        if (connection != null && !ended) {
            connection.abandon(this);
        }
        connection = null;
        abandonStream();
        if (acquiring) {
            acquiring = false;
            upstream.lane(attempt.endpoint(), composition.home).cancel(this);
        }
        ByteBuf chunk;
        while ((chunk = buffer.poll()) != null) {
            chunk.release();
        }
        afterGrant = null;
        reader.free(); // its buffered bytes and its reserve; a read in flight may still deliver: received() drops
        // those bytes uncounted
        buffered = 0;
    }
}
