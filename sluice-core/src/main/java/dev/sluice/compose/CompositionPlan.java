package dev.sluice.compose;

import dev.sluice.config.ComposeTarget;
import dev.sluice.config.ComposeTarget.Delivery;
import dev.sluice.config.PartConfig;
import dev.sluice.http.ErrorBody;
import dev.sluice.http.HeaderRules;
import dev.sluice.http.UpstreamFailure;
import dev.sluice.observe.ExchangeTally;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.observe.PartKind;
import dev.sluice.routing.PathTemplate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;

/**
 * Every decision of one composed response, made once for every engine: when each part's call
 * starts, when a part is ready, which part is relayed next, when the status line is committed or an
 * error answered instead, which deadlines apply, when a part is {@code null} and when the response
 * must be aborted, and what {@code _meta} says.
 *
 * <p>An engine moves bytes and waits. It feeds the plan <em>events</em> (a part answered, bytes are
 * buffered, a body ended, a call failed, bytes were relayed) and carries out the <em>steps</em>
 * {@link #next()} returns until it says {@link Step#WAIT}; it calls {@code next()} again after any
 * event and when {@link #waitNanos()} has passed. The plan holds no bytes: the engine keeps each
 * part's read-ahead (a ring, a queue of buffers) and reports its size.
 *
 * <pre>
 *   events ──► answered / received / ended / failed / relayed
 *   steps  ◄── START(i) STOP(i) COMMIT | FAIL  OPEN(i) RELAY(i)… NULL(i) …  FINISH | ABORT
 * </pre>
 *
 * <p>Not thread-safe: one guard at a time (the blocking engine's lock, the reactive engine's event
 * loop). Time comes from the clock it is given, so tests drive it.
 */
public final class CompositionPlan {

    /** What the engine does next. {@link #part()} names the part for the steps that have one. */
    public enum Step {
        /** Nothing to do until the next event, or until {@link #waitNanos()} have passed. */
        WAIT,
        /**
         * Start part {@link #part()}'s upstream call (after its upstream's pacing wait, if any): a
         * {@link PartRequest} to {@link #target()}.
         */
        START,
        /** Part {@link #part()} failed on the plan's own account (its deadline): stop its call, free its bytes. */
        STOP,
        /** Send {@link #status()} with the composition's headers: body bytes follow. */
        COMMIT,
        /** Answer {@link #failureStatus()} with {@link #errorBody()} instead (only before COMMIT). Last step. */
        FAIL,
        /** Write {@link #key()} (part {@link #part()}'s key); its bytes follow in RELAY steps. */
        OPEN,
        /** Write part {@link #part()}'s buffered bytes, then report them with {@link #relayed}. */
        RELAY,
        /** Write {@link #key()} and {@link JsonSplice#NULL}: part {@link #part()} failed. */
        NULL,
        /**
         * Write {@link #closer()}: part {@link #part()}'s frame is complete (a line, an event, a
         * multipart payload). Only when delivered part by part, after its last RELAY or its NULL.
         */
        CLOSE,
        /** Write {@link #meta()} and end the response. Last step. */
        FINISH,
        /** A part broke after its bytes began to reach the client: abort the connection, no clean end. Last step. */
        ABORT
    }

    private final CompositionReport report;
    private final List<PartConfig> configs;
    private final JsonSplice splice;
    private final Delivery delivery;
    private final DeliveryFrames frames; // null for the JSON object
    private final long start;
    private final ComposeTarget config;
    private final LongSupplier clock;
    private final boolean sequential;
    private final boolean declared;
    private final Completeness completeness;
    private final boolean commitsWhenFull;
    private final boolean chained; // some part waits for another's values
    private final int top; // the configured parts; past them in `parts`, collection parts' element slots
    private final PartState[] parts;
    private final PartRequest.Targets targets;
    private final int[] ready; // arrival order: a FIFO of part indexes, each enqueued once
    private int readyHead;
    private int readyTail;
    private final int[] actions; // START / STOP steps not yet handed out: index, negated-1 for STOP
    private int actionHead;
    private int actionTail;
    private int nextDeclared;
    private boolean committed;
    private boolean over;
    private boolean firstWritten;
    private int relaying = -1;
    private int closing = -1; // a part whose frame is to be closed before anything else is written
    private String abortReason;
    private String completed; // X-Sluice-Completed at COMMIT, or null: in a trailer at FINISH
    private PartState failedPart;
    private int part = -1;
    private boolean first;
    private boolean anyDeadline; // some part's deadline still applies
    private long earliest; // the nearest of them

    /**
     * @param route the route's id, for the observer's events
     * @param target the route's composition
     * @param splice the route's framing bytes
     * @param readAhead bytes a part may buffer before it waits for its turn (engines may give a part
     *     a smaller ring with {@link #answered(int, int, String, long)})
     * @param clock {@code System::nanoTime}, or a test's ticker
     * @param observer told of every part as it settles ({@link GatewayObserver#NONE}: nobody is)
     * @param tally the exchange's, given every part's outcome once all have settled (null: none)
     * @param delivery the format chosen by {@link DeliveryNegotiation#choose} for this request
     * @param targets the parts' upstream targets for this request ({@link PartRequest#expand})
     */
    public CompositionPlan(
            String route,
            ComposeTarget target,
            JsonSplice splice,
            int readAhead,
            LongSupplier clock,
            GatewayObserver observer,
            ExchangeTally tally,
            Delivery delivery,
            PartRequest.Targets targets) {
        this.configs = target.parts();
        this.targets = targets;
        this.splice = splice;
        this.delivery = delivery;
        this.frames = delivery == Delivery.JSON ? null : new DeliveryFrames(delivery);
        this.config = target;
        this.clock = clock;
        this.sequential = target.fanout() == ComposeTarget.Fanout.SEQUENTIAL;
        this.declared = target.relaysInDeclaredOrder();
        this.completeness = new Completeness(target);
        this.commitsWhenFull = target.commitsWhenAPartIsFull();
        long start = clock.getAsLong();
        this.start = start;
        long routeDeadline = start + target.timeout().toNanos();
        int n = configs.size();
        int slots = n;
        for (PartConfig config : configs) {
            slots += config.collection().map(PartConfig.Collection::max).orElse(0);
        }
        this.top = n;
        this.parts = new PartState[slots];
        int slot = n;
        for (int i = 0; i < n; i++) {
            PartConfig config = configs.get(i);
            long deadline = routeDeadline;
            if (config.timeout().isPresent()) {
                long own = start + config.timeout().get().toNanos();
                if (own - routeDeadline < 0) {
                    deadline = own;
                }
            }
            JsonShaper shaper = config.shaping().map(JsonShaper::new).orElse(null);
            JsonValidator validator = shaper == null && target.validateJson() ? new JsonValidator() : null;
            parts[i] = new PartState(config, i, deadline, Math.max(1, readAhead), validator, shaper);
            if (config.collection().isPresent()) { // a slot per element it may have, each a part of its own
                PartConfig.Collection c = config.collection().get();
                PartState[] elements = new PartState[c.max()];
                for (int e = 0; e < elements.length; e++, slot++) {
                    JsonShaper own = config.shaping().map(JsonShaper::new).orElse(null);
                    elements[e] = parts[slot] = new PartState(
                            config,
                            slot,
                            deadline,
                            Math.max(1, readAhead),
                            own == null && target.validateJson() ? new JsonValidator() : null,
                            own);
                    elements[e].owner = parts[i];
                }
                parts[i].col = new PartState.Collection(elements, c.concurrency(), c.arrival());
            }
        }
        PartState[] topLevel = slots == n ? parts : java.util.Arrays.copyOf(parts, n);
        this.report = new CompositionReport(route, observer, tally, clock, start, topLevel);
        refreshEarliest();
        this.ready = declared ? null : new int[n];
        this.actions = new int[2 * slots];
        this.chained = chain(topLevel);
        if (sequential) {
            begin(0);
        } else {
            for (int i = 0; i < n; i++) {
                if (parts[i].after < 0 && parts[i].col == null) {
                    begin(i);
                } else if (parts[i].after < 0) { // a collection over a query parameter's values: known now
                    list(
                            parts[i],
                            targets.queryValues(parts[i].config
                                    .collection()
                                    .get()
                                    .queryName()
                                    .get()));
                }
            }
        }
    }

    /**
     * Links each chained part to the part it waits for, and gives that part a tap for the values
     * its dependents refer to. Whether any part is chained.
     */
    private static boolean chain(PartState[] parts) {
        Map<String, Integer> byName = null;
        for (PartState p : parts) {
            if (p.config.after().isEmpty()) {
                continue;
            }
            if (byName == null) {
                byName = new HashMap<>();
                for (PartState q : parts) {
                    byName.put(q.config.name(), q.index);
                }
            }
            p.after = byName.get(p.config.after().get()); // TargetBinder checked the name
            PartState earlier = parts[p.after];
            earlier.dependents = earlier.dependents == null
                    ? new PartState[] {p}
                    : java.util.Arrays.copyOf(earlier.dependents, earlier.dependents.length + 1);
            earlier.dependents[earlier.dependents.length - 1] = p;
            p.references = p.col != null
                    ? new String[] {p.config.collection().get().each()}
                    : p.config.path().references().toArray(String[]::new);
        }
        if (byName == null) {
            return false;
        }
        for (PartState earlier : parts) {
            if (earlier.dependents == null) {
                continue;
            }
            List<String> pointers = new ArrayList<>();
            int maxValue = 1;
            for (PartState d : earlier.dependents) {
                d.slots = new int[d.references.length];
                for (int r = 0; r < d.references.length; r++) {
                    String pointer = PartConfig.referencedPointer(d.references[r]);
                    int slot = pointers.indexOf(pointer);
                    if (slot < 0) {
                        slot = pointers.size();
                        pointers.add(pointer);
                    }
                    d.slots[r] = slot;
                }
                maxValue = Math.max(maxValue, d.config.maxValue());
            }
            earlier.tap = pointers.isEmpty()
                    ? null
                    : new JsonPointerTap(earlier.config.name() + PathTemplate.REFERENCE, pointers, maxValue);
        }
        return true;
    }

    // ---- events ----

    /**
     * Part {@code i}'s upstream answered with a status line.
     *
     * @param capacity the part's read-ahead, when the engine gives it less than the route's
     * @return whether to read its body; false: the part failed (or is no longer wanted), stop its call
     */
    public boolean answered(int i, int status, String contentType, long capacity) {
        PartState p = parts[i];
        p.status = status;
        if (p.answeredNanos < 0) {
            p.answeredNanos = clock.getAsLong();
        }
        if (over || p.failed) {
            return false;
        }
        p.answered = true;
        p.capacity = Math.min(p.capacity, Math.max(1, capacity));
        String rejection = PartRules.rejection(status, contentType).orElse(null);
        if (rejection != null) {
            fail(p, rejection, status < 200 || status > 299 ? PartKind.STATUS : PartKind.INVALID);
            return false;
        }
        changed(p);
        return true;
    }

    /** {@link #answered(int, int, String, long)} with the route's read-ahead. */
    public boolean answered(int i, int status, String contentType) {
        return answered(i, status, contentType, Long.MAX_VALUE);
    }

    /**
     * The tap to feed part {@code i}'s bytes to as they are buffered (after its {@link #shaper}), before
     * {@link #received}: it finds the values chained parts wait for. Null when no part refers to
     * part {@code i}'s values (then nothing is scanned).
     */
    public JsonPointerTap tap(int i) {
        return parts[i].tap;
    }

    /** The validator to feed part {@code i}'s body bytes to, before {@link #received}; null without {@code validate-json}. */
    public JsonValidator validator(int i) {
        return parts[i].validator;
    }

    /**
     * The filter part {@code i}'s body bytes pass through, into the engine's buffer, before {@link
     * #received} (which counts its output); null when the part has no shaping. A shaped part has no
     * {@link #validator}: its shaper validates.
     */
    public JsonShaper shaper(int i) {
        return parts[i].shaper;
    }

    /**
     * {@code n} more bytes of part {@code i}'s body are buffered by the engine.
     *
     * @return whether to go on reading; false: the part failed (invalid JSON) or is not wanted, stop its call
     */
    public boolean received(int i, long n) {
        PartState p = parts[i];
        if (over || p.failed) {
            return false;
        }
        p.buffered += n;
        p.total += n;
        if (p.validator != null && p.validator.failed()) {
            fail(p, "invalid JSON: " + p.validator.error(), PartKind.INVALID);
            return false;
        }
        if (p.shaper != null && p.shaper.failed()) {
            fail(p, shapingError(p.shaper), PartKind.INVALID);
            return false;
        }
        if (p.tap != null && p.tap.resolved() != p.tapSeen) {
            p.tapSeen = p.tap.resolved();
            startDependents(p, false);
        }
        changed(p);
        return true;
    }

    private static String shapingError(JsonShaper shaper) {
        String error = shaper.error();
        return error.startsWith("take:") || error.startsWith("a member name") ? error : "invalid JSON: " + error;
    }

    /**
     * Part {@code i}'s body ended: every byte of it is buffered or relayed.
     *
     * @return whether the body is whole and fit to relay; false: the part failed (empty, invalid
     *     JSON) or is not wanted, free what it holds
     */
    public boolean ended(int i) {
        PartState p = parts[i];
        if (over || p.failed || p.ended) {
            return !over && p.ended;
        }
        if (p.total == 0 && (p.shaper == null || p.shaper.consumed() == 0)) {
            fail(p, "empty body", PartKind.INVALID);
            return false;
        }
        if (p.shaper != null && (!p.shaper.finish() || p.shaper.absent())) {
            fail(p, shapingError(p.shaper), PartKind.INVALID);
            return false;
        }
        if (p.validator != null && !p.validator.finish()) {
            fail(p, "invalid JSON: " + p.validator.error(), PartKind.INVALID);
            return false;
        }
        p.ended = true;
        p.endNanos = clock.getAsLong();
        refreshEarliest();
        callDone(p);
        if (p.dependents != null) {
            if (p.tap != null) {
                p.tap.finish(); // what it has not found by now is missing
            }
            startDependents(p, true);
        }
        changed(p);
        return true;
    }

    /**
     * Part {@code i}'s call failed. The first failure of a part is the one reported.
     *
     * @param status the upstream's status when one came, else 0
     */
    public void failed(int i, UpstreamFailure failure, int status) {
        PartState p = parts[i];
        if (status != 0) {
            p.status = status;
        }
        if (p.failure == null && !over && !p.failed && !p.ended) {
            p.failure = failure;
            p.failedNanos = clock.getAsLong();
        }
        failed(i, failure.partError(), failure.isTimeout());
    }

    /** Part {@code i}'s call failed for a reason of the gateway's own. */
    public void failed(int i, String reason, boolean timeout) {
        PartState p = parts[i];
        if (!over && !p.failed && !p.ended) {
            fail(p, reason, timeout ? PartKind.TIMEOUT : PartKind.FAILED);
        }
    }

    /**
     * Part {@code i}'s call failed with a status the gateway decided ({@code _meta} reports it): a gRPC
     * part's non-OK {@code grpc-status} ({@link dev.sluice.transcode.TranscodedPart}).
     */
    public void failed(int i, int status, String reason) {
        PartState p = parts[i];
        if (!over && !p.failed && !p.ended) {
            p.status = status;
            fail(p, reason, PartKind.STATUS);
        }
    }

    /** Part {@code i} is answered from the {@link PartCache}, not its upstream ({@code _meta}: {@code "cached": true}). */
    public void cached(int i) {
        parts[i].cached = true;
    }

    /** Part {@code i}'s upstream call was tried {@code n} times so far ({@code _meta} says so past 1). */
    public void attempts(int i, int n) {
        parts[i].attempts = Math.max(1, n); // 0 for a part answered from the cache: no call was tried
    }

    /** The engine wrote {@code n} of part {@code i}'s buffered bytes to the client. */
    public void relayed(int i, long n) {
        PartState p = parts[i];
        p.buffered -= n;
        p.relayed += n;
    }

    // ---- steps ----

    /** The next thing to do. After a last step (FAIL, FINISH, ABORT) it answers WAIT for good. */
    public Step next() {
        return next(clock.getAsLong());
    }

    /**
     * {@link #next()} with the time read once by the engine for a whole pass of steps ({@link #now()}):
     * for an engine whose steps never block (an event loop's), so that the time is a few microseconds
     * old at most. A profile of the reactive engine put a clock reading per step at 0.5 us per
     * composition on this VM. An engine whose steps block on the client (a blocking write) asks
     * {@link #next()}, which reads the clock each time.
     */
    public Step next(long now) {
        if (over) {
            return Step.WAIT;
        }
        expire(now);
        if (abortReason != null) {
            over = true;
            report.closeOut(abortReason);
            return Step.ABORT;
        }
        if (actionHead != actionTail) {
            int a = actions[actionHead++];
            part = a >= 0 ? a : -a - 1;
            return a >= 0 ? Step.START : Step.STOP;
        }
        if (!committed) {
            return commit();
        }
        if (closing >= 0) {
            part = closing;
            closing = -1;
            return Step.CLOSE;
        }
        if (relaying >= 0 && parts[relaying].col != null) {
            return relayElements(parts[relaying]);
        }
        if (relaying >= 0) {
            PartState p = parts[relaying];
            if (p.buffered > 0) {
                part = relaying;
                return Step.RELAY;
            }
            if (!p.ended) {
                return Step.WAIT;
            }
            report.settle(p);
            relaying = -1;
            if (frames != null) {
                part = p.index;
                return Step.CLOSE;
            }
        }
        int i = nextReady();
        if (i < 0) {
            if (report.allSettled()) {
                over = true;
                return Step.FINISH;
            }
            return Step.WAIT;
        }
        PartState p = parts[i];
        part = i;
        first = !firstWritten;
        firstWritten = true;
        if (p.failed) {
            report.settle(p);
            if (frames != null) {
                closing = i;
            }
            return Step.NULL;
        }
        p.relayStarted = true;
        relaying = i;
        return Step.OPEN;
    }

    private Step commit() {
        if (completeness.holdsHead()) {
            for (int i = 0; i < top; i++) { // an element's failure is its collection's _meta's, never the response's
                PartState p = parts[i];
                if (completeness.refuses(p)) {
                    failedPart = p;
                    over = true;
                    report.closeOut("not relayed: the response failed");
                    return Step.FAIL;
                }
            }
            boolean waiting = false;
            boolean blocked = false;
            for (PartState p : parts) {
                waiting |= p.owner == null && !p.answered && !p.failed && completeness.holdsHeadFor(p);
                blocked |= p.isBlocked();
            }
            if (waiting && !(blocked && (commitsWhenFull || chained))) {
                return Step.WAIT;
            }
        } else if (declared ? !isReady(parts[nextDeclared]) : readyHead == readyTail) {
            return Step.WAIT;
        }
        committed = true;
        completed = completeness.atCommit(parts);
        return Step.COMMIT;
    }

    /**
     * The steps of a collection part being relayed: its elements one at a time, in the array's order
     * or as they are ready, each {@code OPEN} (a comma before all but the first), {@code RELAY}… or
     * {@code NULL}; then {@code CLOSE} ({@code ]}).
     */
    private Step relayElements(PartState c) {
        PartState.Collection col = c.col;
        if (col.current >= 0) {
            PartState e = parts[col.current];
            if (e.buffered > 0) {
                part = e.index;
                return Step.RELAY;
            }
            if (!e.ended) {
                return Step.WAIT;
            }
            col.current = -1;
            report.element(e);
        }
        if (col.relayedCount == col.count) {
            c.ended = true;
            c.endNanos = clock.getAsLong();
            for (int e = 0; e < col.count; e++) {
                c.relayed += col.elements[e].relayed;
            }
            report.settle(c);
            relaying = -1;
            part = c.index;
            return Step.CLOSE;
        }
        PartState e;
        if (col.arrival) {
            e = col.arrivedHead == col.arrivedTail ? null : parts[col.arrived[col.arrivedHead++]];
        } else {
            e = col.elements[col.relayedCount];
            e = e.isReady() ? e : null;
        }
        if (e == null) {
            return Step.WAIT;
        }
        first = col.relayedCount == 0;
        col.relayedCount++;
        part = e.index;
        if (e.failed) {
            report.element(e);
            return Step.NULL;
        }
        e.relayStarted = true;
        col.current = e.index;
        return Step.OPEN;
    }

    /** Whether part {@code p} can be relayed next: for a collection, once listed and its next element can. */
    private boolean isReady(PartState p) {
        PartState.Collection col = p.col;
        if (col == null || p.failed) {
            return p.isReady();
        }
        if (!col.listed) {
            return false;
        }
        if (col.count == 0) {
            return true;
        }
        return col.arrival ? col.arrivedHead != col.arrivedTail : col.elements[col.relayedCount].isReady();
    }

    private int nextReady() {
        if (!declared) {
            return readyHead == readyTail ? -1 : ready[readyHead++];
        }
        if (nextDeclared < top && isReady(parts[nextDeclared])) {
            return nextDeclared++;
        }
        return -1;
    }

    /**
     * How part {@code i}'s reads may draw on its composition's floor ({@link CompositionBudget}) now:
     * {@link CompositionBudget.Need#ANY} for the part the plan waits on to go on (the part relayed, the
     * collection element relayed, or when nothing is relayed the first part not yet ready that the
     * plan will relay next), {@link CompositionBudget.Need#ONE} for a part the head waits for
     * ({@link Completeness#holdsHeadFor}) that has not answered, else {@link CompositionBudget.Need#NONE}.
     */
    public CompositionBudget.Need need(int i) {
        PartState p = parts[i];
        if (over || p.failed || p.ended) {
            return CompositionBudget.Need.NONE;
        }
        if (!committed && completeness.holdsHead()) {
            return !p.answered && p.owner == null && completeness.holdsHeadFor(p)
                    ? CompositionBudget.Need.ONE
                    : CompositionBudget.Need.NONE;
        }
        return i == awaited() ? CompositionBudget.Need.ANY : CompositionBudget.Need.NONE;
    }

    /** The slot the plan waits on to go on: relayed, or to be relayed next; -1 when none reads. */
    private int awaited() {
        if (relaying >= 0) {
            PartState r = parts[relaying];
            return r.col == null ? relaying : r.col.current >= 0 ? r.col.current : nextUnready(r.col.elements);
        }
        if (declared) {
            if (nextDeclared >= top) {
                return -1;
            }
            PartState d = parts[nextDeclared];
            return d.col == null ? nextDeclared : nextUnready(d.col.elements);
        }
        for (int i = 0; i < top; i++) {
            PartState p = parts[i];
            int s = p.col == null
                    ? (p.begun && !p.ended && !p.failed && !p.isReady() ? i : -1)
                    : nextUnready(p.col.elements);
            if (s >= 0) {
                return s;
            }
        }
        return -1;
    }

    private static int nextUnready(PartState[] slots) {
        for (PartState e : slots) {
            if (e.begun && !e.ended && !e.failed && !e.isReady()) {
                return e.index;
            }
        }
        return -1;
    }

    /**
     * How many read shares this composition's floor holds ({@link CompositionBudget}): one for the
     * part it waits on, one more for a part that arrives first when parts are relayed as they
     * arrive (the awaited part may hold one meanwhile), and one per part its head waits for.
     */
    public int floorShares() {
        int shares = declared ? 1 : 2;
        if (completeness.holdsHead()) {
            for (int i = 0; i < top; i++) {
                if (completeness.holdsHeadFor(parts[i])) {
                    shares++;
                }
            }
        }
        return shares;
    }

    /** For START: the part's upstream request target (origin form, its upstream's base path included). */
    public String target() {
        String chainedTarget = parts[part].target;
        return chainedTarget != null ? chainedTarget : targets.target(part);
    }

    /** The part the last step names. */
    public int part() {
        return part;
    }

    /** For OPEN and NULL: whether the part is the first written to the response (its key opens the object). */
    public boolean first() {
        return first;
    }

    /**
     * For OPEN and NULL: the bytes that open the part ({@link JsonSplice#key}, or {@link
     * DeliveryFrames#open} when delivered part by part).
     */
    public byte[] key() {
        PartState p = parts[part];
        if (p.owner != null) {
            return first ? EMPTY : COMMA;
        }
        if (p.col != null && !p.failed) {
            byte[] key = frames == null
                    ? splice.key(part, first)
                    : frames.open(p.config.name(), 200, clock.getAsLong() - start, null);
            byte[] open = java.util.Arrays.copyOf(key, key.length + 1);
            open[key.length] = '[';
            return open;
        }
        if (frames == null) {
            return splice.key(part, first);
        }
        return p.failed
                ? frames.open(p.config.name(), p.status, p.endNanos - start, p.error)
                : frames.open(p.config.name(), p.status, clock.getAsLong() - start, null);
    }

    /**
     * For CLOSE: the bytes that complete the part's frame ({@link DeliveryFrames#closer}), or a
     * collection part's array ({@code ]}, then its frame's closer).
     */
    public byte[] closer() {
        PartState p = parts[part];
        if (p.col != null && !p.failed) {
            if (frames == null) {
                return CLOSE_ARRAY;
            }
            byte[] closer = frames.closer();
            byte[] both = new byte[closer.length + 1];
            both[0] = ']';
            System.arraycopy(closer, 0, both, 1, closer.length);
            return both;
        }
        return frames.closer();
    }

    private static final byte[] EMPTY = {};
    private static final byte[] COMMA = {','};
    private static final byte[] CLOSE_ARRAY = {']'};

    /**
     * For OPEN: whether {@link #key()} is the route's {@link JsonSplice#key} for the part, which an
     * engine may keep ready-made per part (not when delivered part by part, nor for a collection
     * part or its elements).
     */
    public boolean keyIsSplice() {
        PartState p = parts[part];
        return frames == null && p.col == null && p.owner == null;
    }

    /** How many parts the engine keeps: the configured ones, then a slot per element a collection part may have. */
    public int slots() {
        return parts.length;
    }

    /** The configured part slot {@code s} belongs to (itself, or an element's collection part): its upstream. */
    public int configured(int s) {
        return parts[s].owner != null ? parts[s].owner.index : s;
    }

    /** For FINISH: {@code ,"_meta":{...}}} with every part's outcome (or the format's last frame). */
    public byte[] meta() {
        return frames == null ? report.meta() : report.meta(frames);
    }

    /** The format this response is delivered in: its Content-Type is {@link Delivery#contentType()}. */
    public Delivery delivery() {
        return delivery;
    }

    /**
     * For COMMIT: the composed response's header fields, each given to {@code set} (replacing a field
     * of that name) or {@code add} (beside one): {@link ComposedHead#fields} (what a {@code HEAD} gets
     * too), then {@link Completeness#HEADER} when it is known now. Returns whether it is to be a trailer
     * instead ({@link #completedInTrailer}, given the request's {@code TE}): then {@code Trailer} names
     * it here and the engine sends {@link #completedTrailer()} after the body.
     */
    public boolean commitFields(
            HeaderRules rules, String te, BiConsumer<String, String> set, BiConsumer<String, String> add) {
        ComposedHead.fields(config, delivery, rules, set, add);
        if (completed != null) {
            set.accept(Completeness.HEADER, completed);
            return false;
        }
        if (!completedInTrailer(te)) {
            return false;
        }
        set.accept("Trailer", Completeness.HEADER);
        return true;
    }

    /**
     * Whether the engine passes each relayed chunk through {@link DeliveryFrames#flatten} before
     * writing it (NDJSON and SSE: a line holds no raw line break).
     */
    public boolean flattensRelayed() {
        return frames != null && frames.flattens();
    }

    /**
     * For COMMIT: the status, 200 unless the {@code status-from} part failed ({@link Completeness}).
     */
    public int status() {
        return completeness.status(parts);
    }

    /**
     * For COMMIT: the value of {@link Completeness#HEADER} when it is known now, or null: announce it
     * ({@code Trailer: X-Sluice-Completed}) and send {@link #completedTrailer()} after the body.
     */
    public String completedHeader() {
        return completed;
    }

    /**
     * For COMMIT, when {@link #completedHeader()} is null: whether to announce {@link Completeness#HEADER}
     * as a trailer, given the request's {@code TE} field. Only a client that says {@code TE: trailers}
     * gets it (RFC 9110 §6.5.1: a field the client needs goes in a trailer only when it said it takes
     * them); any other client reads completeness from {@code _meta}, and its answers carry no trailer.
     */
    public boolean completedInTrailer(String te) {
        return completed == null && Completeness.takesTrailers(te);
    }

    /** For FINISH, when {@link #completedInTrailer} said so: the trailer's value. */
    public String completedTrailer() {
        return Completeness.trailer(parts);
    }

    /**
     * For FAIL: a required part's status (its upstream's 4xx/5xx, 504 for a timeout, else 502); with
     * {@code on-error: fail}, 504 when the failed part timed out, else 502.
     */
    public int failureStatus() {
        return completeness.failureStatus(failedPart);
    }

    /** For FAIL: {@code part_timeout} or {@code part_failed}. */
    public String failureCode() {
        return failedPart.kind == PartKind.TIMEOUT ? "part_timeout" : "part_failed";
    }

    /** For FAIL: the contract's JSON error body. */
    public byte[] errorBody() {
        return ErrorBody.of(failureStatus(), failureCode(), failureMessage());
    }

    /** For FAIL: which part failed, and why. */
    public String failureMessage() {
        return "part '" + failedPart.config.name() + "': " + failedPart.error;
    }

    /** For ABORT: why. */
    public String abortReason() {
        return abortReason;
    }

    /**
     * How long the engine may wait before it must call {@link #next()} again even without an event:
     * until the nearest deadline of a part still being fetched or relayed ({@code Long.MAX_VALUE}
     * when none is).
     */
    public long waitNanos() {
        return anyDeadline ? Math.max(0, earliest - clock.getAsLong()) : Long.MAX_VALUE;
    }

    /**
     * How long part {@code i} has left before its deadline (the route's timeout or its own, the
     * sooner), in nanoseconds, at least 1: a gRPC part's {@code grpc-timeout}. Reads only what the
     * plan fixed when it was made, and the clock, so any thread may ask.
     */
    public long nanosLeft(int i) {
        return Math.max(1, parts[i].deadline - clock.getAsLong());
    }

    /** The time on the plan's clock. */
    public long now() {
        return clock.getAsLong();
    }

    /** Whether some part's deadline still applies (then {@link #deadline()} is the nearest). */
    public boolean hasDeadline() {
        return anyDeadline;
    }

    /** The nearest deadline still applying, on the plan's clock; meaningful when {@link #hasDeadline()}. */
    public long deadline() {
        return earliest;
    }

    /** The nearest deadline that still applies, recomputed whenever a part stops being timed. */
    private void refreshEarliest() {
        boolean any = false;
        long min = 0;
        for (PartState p : parts) {
            if (p.deadlineApplies() && (!any || p.deadline - min < 0)) {
                min = p.deadline;
                any = true;
            }
        }
        anyDeadline = any;
        earliest = min;
    }

    // ---- decisions ----

    /**
     * A part whose deadline passed: {@code null} (and its call stopped) when none of its bytes has
     * been relayed yet, the response aborted when some have. A part whose body has wholly arrived is
     * not timed out: its upstream answered in time.
     */
    private void expire(long now) {
        if (!anyDeadline || now - earliest < 0) {
            return; // the common case: one comparison
        }
        for (PartState p : parts) {
            if (p.deadlineApplies() && now - p.deadline >= 0) {
                if (p.relayStarted) {
                    abortReason = "part '" + p.config.name() + "': timeout after " + p.relayed + " bytes were relayed";
                    return;
                }
                boolean stop = p.begun;
                fail(p, "timeout", PartKind.TIMEOUT);
                if (stop) {
                    actions[actionTail++] = -p.index - 1;
                }
            }
        }
    }

    private void fail(PartState p, String reason, PartKind kind) {
        if (p.relayStarted || (committed && completeness.abortsAfterCommit(p))) {
            if (abortReason == null) {
                abortReason = "part '" + p.config.name() + "': " + reason
                        + (p.relayStarted ? " after bytes were relayed" : " after the head was sent (required)");
            }
            return;
        }
        p.failed = true;
        p.kind = kind;
        p.error = reason;
        p.endNanos = clock.getAsLong();
        p.buffered = 0;
        refreshEarliest();
        changed(p);
        callDone(p);
        if (p.dependents != null) {
            for (PartState d : p.dependents) {
                if (!d.begun && !d.failed) {
                    fail(d, "part '" + p.config.name() + "' failed: " + reason, PartKind.FAILED);
                }
            }
        }
    }

    /**
     * Starts the parts waiting for part {@code p} whose values have all streamed past (or, for one
     * that refers to none, once {@code p} has ended); a value missing, too long or not a scalar, or
     * one its template cannot take, makes the waiting part {@code null} with the reason.
     */
    private void startDependents(PartState p, boolean ended) {
        for (PartState d : p.dependents) {
            if (d.begun || d.failed) {
                continue;
            }
            if (d.references.length == 0) {
                if (ended) {
                    begin(d.index);
                }
                continue;
            }
            Map<String, String> values = null;
            String problem = null;
            for (int r = 0; r < d.references.length && problem == null; r++) {
                int slot = d.slots[r];
                if (!p.tap.isResolved(slot)) {
                    values = null;
                    break;
                }
                String value = p.tap.value(slot);
                if (value == null) {
                    problem = p.tap.problem(slot);
                } else if (value.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > d.config.maxValue()) {
                    problem = "the value at '" + d.references[r] + "' is longer than max-value (" + d.config.maxValue()
                            + " bytes)";
                } else {
                    if (values == null) {
                        values = new HashMap<>();
                    }
                    values.put(d.references[r], value);
                }
            }
            if (problem != null) {
                fail(d, problem, PartKind.FAILED);
            } else if (values != null && d.col != null) {
                list(d, p.tap.scalars(d.slots[0]));
            } else if (values != null) {
                try {
                    d.target = targets.target(d.index, values);
                    begin(d.index);
                } catch (PathTemplate.ExpansionException e) {
                    fail(d, e.getMessage(), PartKind.FAILED);
                }
            }
        }
    }

    private void changed(PartState p) {
        if (p.owner != null) { // an element: queued among its collection's, which may now be ready
            PartState.Collection col = p.owner.col;
            if (col.arrival && !p.queued && p.isReady()) {
                p.queued = true;
                col.arrived[col.arrivedTail++] = p.index;
            }
            p = p.owner;
        }
        if (ready != null && !p.queued && isReady(p)) {
            p.queued = true;
            ready[readyTail++] = p.index;
        }
        if (sequential && p.begun && !p.successorStarted && (p.ended || p.failed)) {
            p.successorStarted = true;
            for (int i = p.index + 1; i < parts.length; i++) {
                if (!parts[i].failed) {
                    begin(i);
                    break;
                }
            }
        }
    }

    /** A collection part's array has streamed past: its elements' targets, the first calls started. */
    private void list(PartState c, List<String> scalars) {
        PartState.Collection col = c.col;
        col.count = Math.min(scalars.size(), col.elements.length);
        col.skipped = scalars.size() - col.count;
        col.listed = true;
        c.answered = true;
        c.status = 200;
        for (int e = 0; e < col.count; e++) {
            PartState el = col.elements[e];
            el.listedElement = true;
            try {
                el.target = targets.target(c.index, Map.of(PartConfig.Collection.EACH, scalars.get(e)));
            } catch (PathTemplate.ExpansionException bad) {
                fail(el, bad.getMessage(), PartKind.FAILED);
            }
        }
        refreshEarliest();
        startElements(col);
        changed(c);
    }

    /** Starts a collection's next elements while fewer than its {@code concurrency} are in flight. */
    private void startElements(PartState.Collection col) {
        while (col.inFlight < col.concurrency && col.started < col.count) {
            PartState el = col.elements[col.started++];
            if (!el.failed) {
                col.inFlight++;
                begin(el.index);
            }
        }
    }

    /** An element's call is over (its body ended, or it failed): the next may start. */
    private void callDone(PartState p) {
        if (p.owner != null && p.begun && !p.callDone) {
            p.callDone = true;
            PartState.Collection col = p.owner.col;
            col.inFlight--;
            if (!over) {
                startElements(col);
            }
        }
    }

    private void begin(int i) {
        PartState p = parts[i];
        p.begun = true;
        p.startNanos = clock.getAsLong();
        actions[actionTail++] = i;
    }
}
