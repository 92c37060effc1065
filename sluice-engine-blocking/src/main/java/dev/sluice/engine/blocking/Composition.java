package dev.sluice.engine.blocking;

import dev.sluice.compose.Completeness;
import dev.sluice.compose.CompositionBudget;
import dev.sluice.compose.CompositionPlan;
import dev.sluice.compose.DeliveryFrames;
import dev.sluice.compose.JsonShaper;
import dev.sluice.compose.JsonSplice;
import dev.sluice.compose.ReadAheadBudget;
import dev.sluice.engine.blocking.upstream.UpstreamRequest;
import dev.sluice.http.HeaderRules;
import dev.sluice.http.UpstreamFailure;
import java.io.IOException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

/**
 * One composed response in flight: the blocking engine's hands for a {@link CompositionPlan}, which
 * makes every decision. Parts are fetched on fan-out threads ({@link PartFetch}) into their rings and
 * report to the plan; the request thread carries out the plan's steps, relaying one part at a time
 * through {@link ClientOutput}. One lock guards the plan, its budget account and every ring's
 * bookkeeping; every event, every relayed chunk and every byte given back signal {@link #changed}.
 *
 * <p>Its parts' rings are the gateway's {@link ReadAheadBudget}'s through one {@link CompositionBudget}:
 * the composition is admitted (its floor taken, waiting in the budget's line) before any part is
 * handed to a fan-out thread, and a part is handed over only once its ring is reserved, as the plan
 * needs it ({@link #startReserved}): no fetch thread ever waits for the budget. Every grant of the budget is handed to the gateway's timer, so bytes may be given
 * back under this lock without taking another composition's.
 */
final class Composition {

    private static final int STAGING = 32 * 1024;

    final ReentrantLock lock = new ReentrantLock();
    final Condition changed = lock.newCondition();

    private final CompositionPlan plan; // guarded by lock
    final ReadAheadBudget budget; // the gateway's
    private final CompositionBudget account; // guarded by lock: its floor and its parts' rings in the budget
    private final boolean flatten; // NDJSON, SSE: relayed bytes lose their line breaks
    private final Executor fanout;
    private final PartFetch[] parts;
    private final ByteBufferPool buffers; // the server's
    private final ScheduledExecutorService timer;
    private final BiFunction<String, String, UpstreamRequest> newRequest; // a part's request (method, target)
    private RuntimeException crash; // guarded by lock: a fetch's own fault, thrown by run()
    private ScheduledFuture<?> alarm; // guarded by lock: wakes run() at the plan's nearest deadline
    private long alarmAt; // guarded by lock: when it rings (System.nanoTime)
    private final long ringCost; // what a part reserves before it starts: its largest ring
    private final int[] pending; // guarded by lock: parts the plan started, not yet handed over (no room yet)
    private int pendingCount; // guarded by lock

    Composition(
            CompositionPlan plan,
            Executor fanout,
            int partCount,
            ByteBufferPool buffers,
            ScheduledExecutorService timer,
            BiFunction<String, String, UpstreamRequest> newRequest,
            ReadAheadBudget budget,
            int share) {
        this.plan = plan;
        this.budget = budget;
        this.account = new CompositionBudget(budget, plan.floorShares(), share, changed::signalAll);
        this.ringCost = budget.fit(RingPool.length(share, share));
        this.pending = new int[partCount];
        this.newRequest = newRequest;
        this.flatten = plan.flattensRelayed();
        this.buffers = buffers;
        this.timer = timer;
        this.fanout = fanout;
        this.parts = new PartFetch[partCount];
    }

    /** Part {@code i}'s shaper, or null: set when the plan was made, so read without the lock. */
    JsonShaper shaper(int i) {
        return plan.shaper(i);
    }

    /** Part {@code i}'s tap, or null: set when the plan was made, so read without the lock. */
    dev.sluice.compose.JsonPointerTap tap(int i) {
        return plan.tap(i);
    }

    /** How long part {@code i} has left before its deadline ({@link CompositionPlan#nanosLeft}): no lock needed. */
    long nanosLeft(int i) {
        return plan.nanosLeft(i);
    }

    void add(PartFetch part) {
        parts[part.index] = part;
    }

    /** A part's account in the budget: made once per part, before the composition runs. */
    CompositionBudget.Reader reader() {
        lock.lock();
        try {
            return account.reader();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The budget took this composition's floor for it, on whichever thread released bytes (which may
     * hold another composition's lock): handed to the timer, which takes this one's.
     */
    private void admissionGranted(long bytes) {
        try {
            timer.execute(this::admitted);
        } catch (RejectedExecutionException e) { // the gateway stopped: nobody admits it any more
            budget.release(bytes);
        }
    }

    private void admitted() {
        lock.lock();
        try {
            account.admitted(); // false: it ended meanwhile, the floor went back
            changed.signalAll(); // run() starts the parts the plan started
        } finally {
            lock.unlock();
        }
    }

    /** The composition is over (every path, after {@link #cancelAll}): its floor goes back, or it leaves the line. */
    void closeBudget() {
        lock.lock();
        try {
            account.close();
        } finally {
            lock.unlock();
        }
    }

    // ---- fetch side (fan-out threads): events for the plan ----

    boolean beginFetch(PartFetch part) {
        lock.lock();
        try {
            return !part.cancelled;
        } finally {
            lock.unlock();
        }
    }

    /** The part's status line arrived. Returns whether to read the body (into a ring of {@code capacity} bytes). */
    boolean answered(PartFetch part, int status, String contentType, int capacity) {
        lock.lock();
        try {
            plan.attempts(part.index, part.request.tries());
            boolean read = !part.cancelled && plan.answered(part.index, status, contentType, capacity);
            changed.signalAll();
            return read;
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@code n} bytes landed at the ring's write position (already fed to the part's validator, or
     * its shaper's output), or the body ended ({@code n < 0}). Returns whether to read on.
     */
    boolean received(PartFetch part, int n) {
        lock.lock();
        try {
            boolean more;
            if (n < 0) {
                part.ended = true;
                plan.ended(part.index);
                more = false;
                if (part.count == 0) { // relayed already (no write of it in flight): its ring goes back now
                    part.relayLetsGo(); // else the relay's last write of it lets go
                }
            } else {
                part.count += n;
                part.writePos = (part.writePos + n) % part.ring.length;
                more = plan.received(part.index, n);
            }
            changed.signalAll();
            return more;
        } finally {
            lock.unlock();
        }
    }

    /** Part {@code i} is answered from the part cache. */
    void cached(int i) {
        lock.lock();
        try {
            plan.cached(i);
        } finally {
            lock.unlock();
        }
    }

    void failed(PartFetch part, UpstreamFailure failure, int status) {
        lock.lock();
        try {
            plan.attempts(part.index, part.request.tries());
            plan.failed(part.index, failure, status);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** A gRPC part failed: its gRPC status, mapped to an HTTP status, and its error ({@code TranscodedPart}). */
    void failed(PartFetch part, int status, String error) {
        lock.lock();
        try {
            plan.attempts(part.index, part.request.tries());
            plan.failed(part.index, status, error);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * A fetch broke on a fault of the gateway's own (not its upstream's): the request thread throws
     * it, so the exchange is answered as any internal failure (a 500 before the head, else aborted)
     * rather than waiting out the part's deadline.
     */
    void crashed(RuntimeException e) {
        lock.lock();
        try {
            if (crash == null) {
                crash = e;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Stops every fetch: called when the response is done, failed or aborted. */
    void cancelAll() {
        lock.lock();
        try {
            for (PartFetch part : parts) {
                part.cancelled = true;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        for (PartFetch part : parts) {
            // never started: no request; an ended part's connection is back in the pool, or about to be
            if (part.request != null && !part.ended) {
                part.request.cancel();
            }
        }
    }

    // ---- the request thread: the plan's steps ----

    /**
     * Carries out the plan until its last step: the whole response, or an error answer.
     *
     * @throws GatewayError when the plan answers an error before committing
     * @throws AbortedPart when a part broke after its bytes began to reach the client
     */
    void run(Request request, Response response, HeaderRules rules)
            throws IOException, InterruptedException, GatewayError, AbortedPart {
        ClientOutput out = null;
        int[] starts = new int[parts.length];
        lock.lock();
        try {
            account.admit(this::admissionGranted); // or waits in the line: the plan's deadlines run meanwhile
            while (true) {
                if (crash != null) {
                    throw crash;
                }
                CompositionPlan.Step step = plan.next();
                if (step == CompositionPlan.Step.START) { // started together, outside the lock
                    pending[pendingCount++] = plan.part();
                    parts[plan.part()].target = plan.target();
                    continue;
                }
                // no part is asked for before the floor is taken, nor before its ring is reserved
                if (pendingCount > 0 && account.isAdmitted() && startReserved(starts)) {
                    if (step == CompositionPlan.Step.WAIT) {
                        continue; // the started parts may have changed the plan meanwhile
                    }
                }
                switch (step) {
                    case WAIT -> {
                        if (out != null && out.hasStaged()) { // the client is not kept waiting for what is staged
                            lock.unlock();
                            try {
                                out.flush();
                            } finally {
                                lock.lock();
                            }
                        } else {
                            long wait = plan.waitNanos();
                            if (wait != Long.MAX_VALUE) {
                                setAlarm(Math.max(1, wait));
                            }
                            changed.await();
                        }
                    }
                    case START -> throw new IllegalStateException("started above");
                    case STOP -> {
                        PartFetch part = parts[plan.part()];
                        part.cancelled = true;
                        if (part.request != null) { // null: its start waits for the admission or room
                            part.request.cancel();
                        }
                        changed.signalAll();
                    }
                    case FAIL ->
                        throw new GatewayError(plan.failureStatus(), plan.failureCode(), plan.failureMessage());
                    case COMMIT -> {
                        response.setStatus(plan.status());
                        HttpFields.Mutable fields = response.getHeaders();
                        if (plan.commitFields(
                                rules, request.getHeaders().get(HttpHeader.TE), fields::put, fields::add)) {
                            completedInTrailer(response);
                        }
                        out = new ClientOutput(response, buffers, STAGING);
                    }
                    case OPEN -> write(out, plan.key(), null);
                    case NULL -> {
                        PartFetch part = parts[plan.part()];
                        part.relayLetsGo(); // a failed part is never relayed: its ring (and budget) goes back now
                        write(out, plan.key(), JsonSplice.NULL);
                    }
                    case CLOSE -> write(out, plan.closer(), null);
                    case RELAY -> relay(out, parts[plan.part()]);
                    case FINISH -> {
                        byte[] meta = plan.meta();
                        lock.unlock();
                        try {
                            out.write(meta);
                            out.finish();
                        } finally {
                            lock.lock();
                        }
                        return;
                    }
                    case ABORT -> throw new AbortedPart(plan.abortReason());
                }
            }
        } finally {
            if (alarm != null) {
                alarm.cancel(false);
                alarm = null;
            }
            lock.unlock();
            if (out != null) {
                out.close();
            }
        }
    }

    /**
     * Under lock, at COMMIT, when the plan announced {@link Completeness#HEADER} as a trailer: its value
     * is read from the plan when the last chunk is written (after FINISH, so every part has settled).
     */
    private void completedInTrailer(Response response) {
        response.setTrailersSupplier(() -> {
            lock.lock();
            try {
                return HttpFields.build(1).put(Completeness.HEADER, plan.completedTrailer());
            } finally {
                lock.unlock();
            }
        });
    }

    /**
     * Under lock: makes sure run() is woken within {@code wait} nanoseconds, by one alarm on the
     * gateway's timer for the whole composition, moved only when a nearer deadline comes. A timed
     * wait would cost a task on the JDK's delay scheduler for every wait (a virtual thread's timed
     * park), several per composition; an alarm that rings before a deadline that has since moved
     * later only makes run() look again and wait anew.
     */
    private void setAlarm(long wait) {
        long at = System.nanoTime() + wait;
        if (alarm != null) {
            if (at - alarmAt >= 0) {
                return; // it rings first
            }
            alarm.cancel(false);
        }
        alarmAt = at;
        alarm = timer.schedule(this::ring, wait, TimeUnit.NANOSECONDS);
    }

    /** On the timer: the plan's nearest deadline passed, run() looks. */
    private void ring() {
        lock.lock();
        try {
            alarm = null;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under lock: hands over the pending parts whose rings are reserved now ({@link
     * CompositionBudget.Reader#reserve}, as {@link CompositionPlan#need} says: the part the plan waits
     * on from the floor, any other only from what the pool gives without waiting). A part without room
     * stays pending, holding no thread and no upstream connection, and is tried again whenever run()
     * looks: after this composition's bytes come back ({@link #changed}) or its plan moves on; a part
     * stopped meanwhile (its deadline) is never asked for.
     *
     * @return whether any part was handed over
     */
    private boolean startReserved(int[] starts) {
        int count = 0;
        int kept = 0;
        for (int k = 0; k < pendingCount; k++) {
            PartFetch part = parts[pending[k]];
            if (part.cancelled) {
                continue;
            }
            if (part.reader.reserve(ringCost, plan.need(part.index))) {
                starts[count++] = part.index;
            } else {
                pending[kept++] = part.index;
            }
        }
        pendingCount = kept;
        if (count > 0) {
            startAll(starts, count);
        }
        return count > 0;
    }

    /**
     * Under lock: hands the parts the plan started, each with its request to the target the plan gave,
     * to fan-out threads, without the lock (each fetch's first step takes it); a refused hand-over
     * fails its part.
     */
    private void startAll(int[] starts, int count) {
        lock.unlock();
        int refused = 0;
        try {
            for (int i = 0; i < count; i++) {
                PartFetch part = parts[starts[i]];
                part.request = part.request(newRequest);
                try {
                    fanout.execute(part);
                } catch (RejectedExecutionException e) {
                    starts[refused++] = starts[i];
                }
            }
        } finally {
            lock.lock();
        }
        for (int i = 0; i < refused; i++) {
            parts[starts[i]].reader.free(); // its reserve: no fetch will use it
            plan.failed(starts[i], "fan-out pool is shut down", false);
        }
    }

    /** Under lock: writes without it. */
    private void write(ClientOutput out, byte[] first, byte[] second) throws IOException {
        lock.unlock();
        try {
            out.write(first);
            if (second != null) {
                out.write(second);
            }
        } finally {
            lock.lock();
        }
    }

    /** Under lock: writes the part's buffered bytes (one contiguous stretch of its ring) without it. */
    private void relay(ClientOutput out, PartFetch part) throws IOException {
        int pos = part.readPos;
        int len = Math.min(part.count, part.ring.length - pos);
        if (flatten) {
            DeliveryFrames.flatten(part.ring, pos, pos + len); // this range is the relay's alone
        }
        lock.unlock();
        try {
            out.write(part.ring, pos, len);
        } finally {
            lock.lock();
        }
        part.readPos = (pos + len) % part.ring.length;
        part.count -= len;
        plan.relayed(part.index, len);
        changed.signalAll(); // the fetch may be waiting for room
        if (part.ended && part.count == 0) { // wholly relayed: its ring's budget goes back now, not at the end
            part.relayLetsGo();
        }
    }

    /**
     * A part broke after some of its bytes were relayed: the response must be aborted. An upstream's
     * failure, not the gateway's: a response already on the wire is cut (no last chunk); one still in
     * the output buffer (not committed yet) becomes 502 {@code part_failed} with the part's reason,
     * never a 500 {@code internal_error} and an ERROR with a stack trace.
     */
    static final class AbortedPart extends Exception implements dev.sluice.http.FailureAnswer.Decided {
        AbortedPart(String reason) {
            super(reason, null, false, false);
        }

        @Override
        public int status() {
            return 502;
        }

        @Override
        public String code() {
            return "part_failed";
        }
    }
}
