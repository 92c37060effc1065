package dev.sluice.engine.blocking;

import dev.sluice.compose.JsonPointerTap;
import dev.sluice.compose.JsonShaper;
import dev.sluice.compose.JsonValidator;
import dev.sluice.compose.ReadAheadBudget;
import dev.sluice.config.PartConfig;
import dev.sluice.engine.blocking.upstream.UpstreamClient;
import dev.sluice.engine.blocking.upstream.UpstreamException;
import dev.sluice.engine.blocking.upstream.UpstreamRequest;
import dev.sluice.engine.blocking.upstream.UpstreamResponse;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One part of a composition, fetched on a fan-out thread into a fixed ring buffer: the bounded
 * read-ahead. When the ring is full the fetch waits and the upstream connection holds the rest. What
 * the bytes mean (ready, failed, relayed next) is the composition's plan's to decide.
 *
 * <pre>
 *   upstream ──read──► ring [readPos .. writePos) ──relay (request thread)──► client
 *                      └ at most read-ahead bytes
 * </pre>
 *
 * <p>The ring's bytes are the gateway's {@link ReadAheadBudget}'s: taken before the ring is, while
 * the body waits unread in the upstream connection, and given back with the ring when the composition
 * is over. A part whose ring the budget cannot give yet waits without reading; its composition's
 * deadline (or its end) ends that wait.
 *
 * <p>All fields below the constructor's are guarded by the composition's lock.
 */
final class PartFetch implements Runnable {

    final int index;
    final PartConfig config;
    private final Composition composition;
    private final UpstreamClient client;
    String target; // set under the lock with the plan's START
    UpstreamRequest request; // made from it when the request thread starts the part; null until then
    private final int capacity;
    private final JsonValidator validator; // the plan's, fed on the fetch thread only
    private final JsonShaper shaper; // the plan's, null unless the part is shaped; fetch thread only
    private final JsonPointerTap tap; // the plan's, null unless chained parts wait for this one's values
    private byte[] in; // a shaped part's bytes as read, before they are shaped into the ring
    private int inPos;
    private int inEnd;
    private final RingPool rings;
    private final ReadAheadBudget budget;
    /** Who still uses the ring: the fetch and the relay; the last to let go returns it to the pool. */
    private final AtomicInteger ringHolds = new AtomicInteger();

    // guarded by composition.lock
    boolean cancelled;
    boolean ended; // the whole body is in the ring
    byte[] ring;
    long charged; // the budget's bytes the ring holds, given back with it
    int readPos;
    int writePos;
    int count;

    PartFetch(
            Composition composition,
            int index,
            PartConfig config,
            UpstreamClient client,
            int capacity,
            JsonValidator validator,
            RingPool rings,
            ReadAheadBudget budget) {
        this.composition = composition;
        this.index = index;
        this.config = config;
        this.client = client;
        this.capacity = capacity;
        this.validator = validator;
        this.shaper = composition.shaper(index);
        this.tap = composition.tap(index);
        this.rings = rings;
        this.budget = budget;
    }

    @Override
    public void run() {
        try {
            fetch();
        } catch (RuntimeException e) { // a fault of the gateway's: the request thread answers it
            composition.crashed(e);
        } finally {
            letGoOfRing(); // the fetch reads into the ring no more
        }
    }

    private void fetch() {
        if (!composition.beginFetch(this)) {
            return;
        }
        UpstreamResponse response;
        try {
            response = client.send(request);
        } catch (UpstreamException e) {
            composition.failed(this, e.failure(), 0);
            return;
        }
        int status = response.status();
        try (response) {
            long contentLength = response.contentLength();
            int size = contentLength >= 0 && contentLength < capacity ? (int) contentLength + 1 : capacity;
            int length = RingPool.length(size, capacity);
            if (!composition.answered(this, status, response.header("Content-Type"), length)) {
                return;
            }
            long cost = budget.fit(length);
            if (!takeBudget(cost)) {
                return; // cancelled while it waited: the body was never read
            }
            if (!newRing(size, cost)) {
                return; // cancelled meanwhile: the relay has let go of the rings already
            }
            while (true) {
                int pos;
                int room;
                composition.lock.lock();
                try {
                    while (count == ring.length && !cancelled) {
                        composition.changed.awaitUninterruptibly();
                    }
                    if (cancelled) {
                        return;
                    }
                    pos = writePos;
                    room = Math.min(ring.length - count, ring.length - writePos);
                } finally {
                    composition.lock.unlock();
                }
                int n = shaper == null
                        ? response.readArrived(ring, pos, room) // one hand-over to the relay, not one per socket read
                        : shaped(response, pos, room);
                if (n > 0 && validator != null) {
                    validator.feed(ring, pos, n);
                }
                if (n > 0 && tap != null) {
                    tap.feed(ring, pos, n);
                }
                if (!composition.received(this, n)) {
                    return;
                }
            }
        } catch (UpstreamException e) {
            composition.failed(this, e.failure(), status);
        }
    }

    /**
     * Reads the body into {@link #in} when it is used up, and shapes what it holds into the ring's
     * room: the bytes written there, or -1 at the body's end.
     */
    private int shaped(UpstreamResponse response, int pos, int room) throws UpstreamException {
        if (inPos == inEnd && !shaper.hasPending()) {
            if (in == null) {
                in = new byte[Math.min(capacity, 16 * 1024)];
            }
            int n = response.readArrived(in, 0, in.length);
            if (n < 0) {
                return n;
            }
            inPos = 0;
            inEnd = n;
        }
        inPos += shaper.shape(in, inPos, inEnd - inPos, ring, pos, room);
        return shaper.produced();
    }

    /**
     * The ring for this part's body: the read-ahead, or less when the body's length is known and
     * smaller (one byte more, so that the end of the body is read without waiting for room), its
     * {@code cost} taken from the budget. Both the fetch and the relay let go of it, whether or not
     * the part's body is read.
     */
    private boolean newRing(int size, long cost) {
        byte[] r = rings.take(size, capacity);
        boolean late;
        composition.lock.lock();
        try {
            // cancelled before the relay lets go (both under the lock): a part cancelled by now may
            // have been let go of already, and a ring set now would never be given back
            late = cancelled;
            if (!late) {
                ringHolds.set(2);
                charged = cost;
                ring = r;
            }
        } finally {
            composition.lock.unlock();
        }
        if (late) {
            rings.give(r);
            budget.release(cost);
        }
        return !late;
    }

    /**
     * Takes {@code cost} bytes from the budget, waiting while it is spent (the body unread: the
     * upstream feels it as TCP backpressure) until they are granted or the part is cancelled (the
     * composition is over, or the plan stopped the part at its deadline).
     *
     * @return whether they were taken; false: cancelled, nothing taken (the caller still checks for a
     *     cancellation after a grant: {@link #newRing})
     */
    private boolean takeBudget(long cost) {
        BudgetWait wait = new BudgetWait(cost);
        if (budget.acquire(cost, wait)) {
            return true;
        }
        boolean granted;
        composition.lock.lock();
        try {
            while (!wait.granted && !cancelled) {
                composition.changed.awaitUninterruptibly();
            }
            granted = wait.granted;
            wait.abandoned = !granted;
        } finally {
            composition.lock.unlock();
        }
        if (!granted) {
            budget.cancel(wait); // too late when the grant is under way: it gives the bytes back itself
        }
        return granted;
    }

    /** A fetch waiting for the budget; told on the thread that released bytes, which holds no composition's lock. */
    private final class BudgetWait implements ReadAheadBudget.Grant {
        private final long cost;
        boolean granted; // guarded by composition.lock
        boolean abandoned; // guarded by composition.lock: the fetch stopped waiting

        BudgetWait(long cost) {
            this.cost = cost;
        }

        @Override
        public void granted(long bytes) {
            boolean giveBack;
            composition.lock.lock();
            try {
                giveBack = abandoned;
                granted = !abandoned;
                composition.changed.signalAll();
            } finally {
                composition.lock.unlock();
            }
            if (giveBack) {
                budget.release(cost); // outside the lock: it may tell other compositions' waiters
            }
        }
    }

    /**
     * The relay is done with the ring (the part wholly relayed, or the composition over): its hold
     * goes, once. Giving a relayed part's ring back before the composition ends is what keeps the
     * budget moving: rings held by parts already relayed would otherwise starve the parts relayed
     * after them (ReadAheadLivenessContract). Never under the composition's lock.
     */
    void relayLetsGo() {
        if (relayLetGo.compareAndSet(false, true)) {
            letGoOfRing();
        }
    }

    private final java.util.concurrent.atomic.AtomicBoolean relayLetGo =
            new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * Called once by the fetch (when it stops reading) and once by the relay ({@link #relayLetsGo}):
     * the second call returns the ring to the pool. The ring is set before either can
     * call, or never.
     */
    void letGoOfRing() {
        byte[] r;
        long cost;
        composition.lock.lock();
        try {
            r = ring;
            cost = charged;
        } finally {
            composition.lock.unlock();
        }
        if (r != null && ringHolds.decrementAndGet() == 0) {
            rings.give(r);
            budget.release(cost); // no lock held: it may tell other compositions' waiters
        }
    }
}
