package dev.sluice.engine.reactive;

import dev.sluice.compose.Completeness;
import dev.sluice.compose.CompositionBudget;
import dev.sluice.compose.CompositionPlan;
import dev.sluice.compose.DeliveryFrames;
import dev.sluice.compose.JsonSplice;
import dev.sluice.config.ComposeTarget.Delivery;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.Http2StreamChannel;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.netty.http.server.HttpServerResponse;

/**
 * One composed response in flight: the reactive engine's hands for a {@link CompositionPlan}, which
 * makes every decision. Everything happens on the client connection's event loop (the home loop):
 * part signals are moved there and fed to the plan, and the plan's steps are carried out there; the
 * body is written straight to the connection while it is writable ({@link WriteGate} says when it
 * is again), flushed once per turn of the loop, so parts that arrive together leave together. On
 * an HTTP/1.x connection what one turn writes is gathered into one buffer first, so it leaves as
 * one chunk: fewer chunk heads on the wire and fewer writes through the pipeline.
 *
 * <pre>
 *   part 0 ──┐   events                    steps: key(i) + part i's buffers ... key(j) + ...   _meta
 *   part 1 ──┼──────────► plan ──────────────────────────────────────────────────────────────────► client
 *   part 2 ──┘   (each holding at most read-ahead bytes)
 * </pre>
 *
 * One timer at a time wakes the plan for its nearest deadline.
 *
 * <p>A part's bytes stay taken from the gateway's {@link dev.sluice.compose.ReadAheadBudget} until
 * their write to the client completes (or fails: the connection closed), so that what clients do not
 * read counts against the budget wherever it waits, in a part or in the connection's outbound buffer.
 * The composition's {@link CompositionBudget} admits it (its floor taken, in the budget's line) before
 * its parts start: a START the plan hands out before then waits for the admission, within the plan's
 * deadlines.
 */
final class Composition {

    private static final byte[] NULL = JsonSplice.NULL;
    private static final int TURN_COMPONENTS = 64; // more are copied together by Netty: still correct

    final ComposeRoute route;
    final EventLoop home;
    final CompositionPlan plan;
    final CompositionBudget account; // its floor and its parts' bytes in the gateway's budget
    private final String[] deferred; // START targets handed out before the admission, by part
    private boolean hungry; // a part waits for room
    private boolean roomPending; // roomMade() scheduled
    private final boolean flatten; // NDJSON, SSE: relayed bytes lose their line breaks
    private final HttpServerResponse response;
    private final Channel channel;
    private final Part[] parts;

    private final WriteGate gate; // null only if the connection has none (then no flow control hint)
    private final boolean http10; // the client speaks HTTP/1.0
    private final boolean gather; // HTTP/1.x: one turn's bytes are written as one chunk
    private final Runnable flush = this::flush;
    private final Runnable wake = this::wake;
    /**
     * The client's connection closed: the composition ends, whatever it waits for (a part, the
     * budget), so that what it holds goes back now rather than at its timeout. Removed when it ends:
     * a kept-alive connection carries many compositions.
     */
    private final io.netty.util.concurrent.GenericFutureListener<io.netty.util.concurrent.Future<? super Void>>
            clientGone = f -> onLoop(this::clientGone);

    private MonoSink<Void> sink;
    private boolean open; // the status line is out: body bytes may be written
    private boolean flushPending;
    private boolean draining;
    private boolean missed;
    private boolean finished;
    private ByteBuf pendingKey; // the key of the part being relayed, not yet written
    private CompositeByteBuf turn; // this turn's bytes, not yet written (only when gathering)
    private long turnBudgeted; // how many of them are parts' bytes, taken from the budget
    private long turnFloor; // how many of those are the composition's floor's
    private ScheduledFuture<?> timer;
    private final String
            te; // the request's TE (whether the client takes the completeness trailer), read while its head is at hand
    private long timerDeadline;

    /** The client channel's allocator, for a shaped part's buffers. */
    io.netty.buffer.ByteBufAllocator alloc() {
        return channel.alloc();
    }

    Composition(
            ComposeRoute route,
            ClientRequest in,
            HttpServerResponse response,
            Channel channel,
            dev.sluice.compose.PartRequest.Targets targets,
            Delivery delivery) {
        this.http10 = in.request.version().equals(io.netty.handler.codec.http.HttpVersion.HTTP_1_0);
        this.te = in.request.requestHeaders().get(HttpHeaderNames.TE);
        this.route = route;
        this.response = response;
        this.channel = channel;
        this.home = channel.eventLoop();
        this.gate = channel.pipeline().get(WriteGate.NAME) instanceof WriteGate g ? g : null;
        // Not on h2: its frame writer slices what is written, and the io_uring transport wrote a
        // slice of a composite buffer from a wrong address (Http2Contract, fifty compositions)
        this.gather = !(channel instanceof Http2StreamChannel);
        this.plan = new CompositionPlan(
                route.id,
                route.target,
                route.splice,
                route.readAhead,
                System::nanoTime,
                route.observer,
                in.tally(),
                delivery,
                targets);
        this.flatten = plan.flattensRelayed();
        int n = plan.slots(); // a collection part's elements after the parts
        this.account = new CompositionBudget(route.budget, plan.floorShares(), Part.HEAD_SHARE, this::roomMade);
        this.deferred = new String[n];
        this.parts = new Part[n];
        ClientRequest.Forwarding forwarding = in.forwarding();
        for (int i = 0; i < n; i++) {
            int c = plan.configured(i);
            parts[i] = new Part(this, i, route.parts.get(c), route.upstreams[c], forwarding, route.readAhead);
        }
    }

    /** The handler's answer: completes when the response has been written, failed or aborted. */
    Mono<Void> run() {
        return Mono.create(sink -> {
            this.sink = sink;
            sink.onCancel(() -> onLoop(this::stop));
            channel.closeFuture().addListener(clientGone);
            account.admit(this::admissionGranted); // or waits in line: the deadlines run meanwhile
            onLoop(this::drain);
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

    /** The budget took this composition's floor for it: on whichever thread released bytes. */
    private void admissionGranted(long bytes) {
        try {
            home.execute(this::admitted);
        } catch (java.util.concurrent.RejectedExecutionException e) { // the loop is gone: the gateway stopped
            route.budget.release(bytes);
        }
    }

    private void admitted() {
        if (!account.admitted()) {
            return; // it ended meanwhile: the floor went back
        }
        for (int i = 0; i < deferred.length; i++) {
            if (deferred[i] != null) {
                String target = deferred[i];
                deferred[i] = null;
                parts[i].begin(target);
            }
        }
        drain();
    }

    /** A part could not reserve a read: it tries again once bytes come back or the plan moves on. */
    void hungry() {
        hungry = true;
    }

    /** Bytes of this composition came back, or its plan moved on: parts waiting for room try again, on a later turn. */
    private void roomMade() {
        if (hungry && !roomPending && !finished) {
            roomPending = true;
            home.execute(this::retryHungry);
        }
    }

    private void retryHungry() {
        roomPending = false;
        if (finished) {
            return;
        }
        hungry = false;
        for (Part part : parts) {
            part.roomMade(); // one that still finds no room says hungry() again
        }
    }

    /** A part fed the plan an event (on the home loop): carry out what follows. */
    void changed() {
        drain();
    }

    private void wake() {
        timer = null;
        drain();
    }

    // ---- the plan's steps ----

    private void drain() {
        if (finished) {
            return;
        }
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
        roomMade(); // the part the plan waits on may have changed
    }

    private void step() {
        long now = plan.now(); // once per pass: no step here blocks
        while (!finished) {
            CompositionPlan.Step step = plan.next(now);
            switch (step) {
                case WAIT -> {
                    armTimer();
                    return;
                }
                case START -> {
                    if (account.isAdmitted()) {
                        parts[plan.part()].begin(plan.target());
                    } else {
                        deferred[plan.part()] = plan.target(); // begun once admitted
                    }
                }
                case STOP -> parts[plan.part()].close();
                case COMMIT -> {
                    commit();
                    if (!open) { // the client is gone: the response's end stops the composition
                        return;
                    }
                }
                case FAIL -> failResponse();
                case OPEN -> {
                    if (pendingKey != null) { // a collection part's key and '[', before its first element's
                        emit(pendingKey);
                    }
                    // the part's key, or an element's comma
                    pendingKey = plan.keyIsSplice()
                            ? route.key(plan.part(), plan.first())
                            : Unpooled.wrappedBuffer(plan.key());
                }
                case NULL -> {
                    if (pendingKey != null) { // a collection part's key and '[', before its first element's null
                        emit(pendingKey);
                        pendingKey = null;
                    }
                    emit(Unpooled.wrappedBuffer(plan.key(), NULL));
                }
                case CLOSE -> {
                    if (pendingKey != null) { // a part that relayed no byte (a shaper kept none)
                        emit(pendingKey);
                        pendingKey = null;
                    }
                    emit(Unpooled.wrappedBuffer(plan.closer()));
                }
                case RELAY -> {
                    if (!channel.isWritable()) { // the gate calls drain() when it is again
                        armTimer();
                        return;
                    }
                    Part part = parts[plan.part()];
                    ByteBuf chunk = part.poll();
                    if (flatten) {
                        flatten(chunk);
                    }
                    plan.relayed(part.index, chunk.readableBytes());
                    if (pendingKey != null) {
                        emit(pendingKey);
                        pendingKey = null;
                    }
                    emitPartBytes(chunk, part.polledFloor());
                    part.requestMore(); // may deliver, end or fail the part right here
                }
                case FINISH -> finish();
                case ABORT -> abort();
            }
        }
    }

    /** Keeps one timer for the plan's nearest deadline. */
    private void armTimer() {
        if (!plan.hasDeadline()) {
            return;
        }
        long deadline = plan.deadline(); // on System.nanoTime, the plan's clock here
        if (timer != null) {
            if (timerDeadline - deadline <= 0) {
                return; // it fires first; the plan is asked again then
            }
            timer.cancel(false);
        }
        timerDeadline = deadline;
        timer = home.schedule(wake, Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /** Sends the status line and the composition's headers (with its first body bytes). */
    private void commit() {
        response.status(HttpResponseStatus.valueOf(plan.status()));
        if (http10) { // no chunked coding in HTTP/1.0 (RFC 9112 section 6.1): the close ends the body
            response.keepAlive(false);
            if (gate != null) {
                gate.endBodyWithClose();
            }
        }
        HttpHeaders headers = response.responseHeaders();
        if (plan.commitFields(route.rules, te, headers::set, headers::add)) {
            // the trailer is read at the last chunk, after FINISH: every part settled
            response.trailerHeaders(trailers -> trailers.set(Completeness.HEADER, plan.completedTrailer()));
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
    }

    private void failResponse() {
        stop();
        Responses.error(response, plan.failureStatus(), plan.errorBody()).subscribe(null, error -> done(), this::done);
    }

    private void finish() {
        emit(Unpooled.wrappedBuffer(plan.meta()));
        writeTurn(); // before the last chunk
        stop();
        done(); // Reactor Netty writes the last chunk and flushes everything
    }

    /**
     * Writes {@code chunk} to the connection, or adds it to this turn's bytes when gathering; it is
     * flushed at the end of this turn of the loop.
     */
    private void emit(ByteBuf chunk) {
        if (!channel.isActive()) {
            chunk.release();
            return;
        }
        if (gather) {
            if (turn == null) {
                turn = channel.alloc().compositeDirectBuffer(TURN_COMPONENTS);
            }
            turn.addComponent(true, direct(chunk));
        } else {
            channel.write(chunk, channel.voidPromise());
        }
        if (!flushPending) {
            flushPending = true;
            home.execute(flush);
        }
    }

    /**
     * {@link #emit} for a part's bytes, which go back to the budget once written (or dropped): with
     * the turn's write when gathering, else with their own.
     */
    /** NDJSON, SSE: the chunk's CR and LF become spaces, in place ({@link DeliveryFrames#flatten}); the chunk is this relay's. */
    private static void flatten(ByteBuf chunk) {
        if (chunk.hasArray()) {
            int from = chunk.arrayOffset() + chunk.readerIndex();
            DeliveryFrames.flatten(chunk.array(), from, from + chunk.readableBytes());
            return;
        }
        for (int i = chunk.readerIndex(), end = chunk.writerIndex(); i < end; i++) {
            byte b = chunk.getByte(i);
            if (b == '\n' || b == '\r') {
                chunk.setByte(i, ' ');
            }
        }
    }

    private void emitPartBytes(ByteBuf chunk, long floor) {
        int n = chunk.readableBytes();
        if (!channel.isActive()) {
            chunk.release();
            account.written(n, floor);
            return;
        }
        if (gather) {
            turnBudgeted += n;
            turnFloor += floor;
            emit(chunk);
        } else {
            channel.write(chunk, giveBackWhenWritten(n, floor));
            if (!flushPending) {
                flushPending = true;
                home.execute(flush);
            }
        }
    }

    /**
     * A promise that gives {@code n} bytes ({@code floor} of them the floor's) back to the budget when
     * the write it is for completes or fails.
     */
    private io.netty.channel.ChannelPromise giveBackWhenWritten(long n, long floor) {
        io.netty.channel.ChannelPromise promise = channel.newPromise();
        promise.addListener(f -> account.written(n, floor));
        return promise;
    }

    /**
     * {@code chunk}, or a direct copy of it when it is on the heap (a {@code null} or {@code _meta}, a
     * few bytes): a composite with one heap component is not direct, and the io_uring transport copies
     * a buffer that is not into a new direct one whole before writing it, parts' bytes included.
     */
    private ByteBuf direct(ByteBuf chunk) {
        if (chunk.isDirect()) {
            return chunk;
        }
        ByteBuf copy = channel.alloc().directBuffer(chunk.readableBytes());
        copy.writeBytes(chunk);
        chunk.release();
        return copy;
    }

    /** Writes the bytes this turn gathered, if any, as one chunk. */
    private void writeTurn() {
        CompositeByteBuf bytes = turn;
        if (bytes == null) {
            return;
        }
        turn = null;
        long budgeted = turnBudgeted;
        long floor = turnFloor;
        turnBudgeted = 0;
        turnFloor = 0;
        if (channel.isActive()) {
            channel.write(bytes, budgeted > 0 ? giveBackWhenWritten(budgeted, floor) : channel.voidPromise());
        } else {
            bytes.release();
            account.written(budgeted, floor);
        }
    }

    private void flush() {
        flushPending = false;
        writeTurn();
        channel.flush();
    }

    /** A part broke after its bytes began to reach the client: close the connection, no clean end. */
    private void abort() {
        stop();
        Responses.abort(channel);
        done();
    }

    /** Ends the composition: the timer and parts stop, buffers are released. Idempotent. */
    private void stop() {
        if (finished) {
            return;
        }
        finished = true;
        channel.closeFuture().removeListener(clientGone);
        if (gate != null) {
            gate.release();
        }
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        if (pendingKey != null) {
            pendingKey.release();
            pendingKey = null;
        }
        if (turn != null) { // aborted or cancelled before the turn ended: these bytes never leave
            turn.release();
            turn = null;
        }
        account.written(turnBudgeted, turnFloor);
        turnBudgeted = 0;
        turnFloor = 0;
        for (Part part : parts) {
            part.close();
        }
        account.close(); // the floor back (what is still being written goes back to the pool when it is)
    }

    private void clientGone() {
        if (!finished) {
            stop();
            done();
        }
    }

    private void done() {
        sink.success();
    }
}
