package dev.sluice.compose;

/**
 * One composition's account with the gateway's {@link ReadAheadBudget}: the rule that keeps what all
 * compositions hold within {@code max-read-ahead} and still lets every composition whose client reads
 * make progress.
 *
 * <p>Why a rule beyond the budget: a composition writes a part's bytes only in that part's turn, and
 * they stay taken until written. Were every part to wait in the budget's line for each read, the
 * budget could be held whole by parts that wait for their turn, while the part each composition
 * waits on stands in the line behind them: nobody gives anything back (a deadlock only the
 * compositions' timeouts broke).
 *
 * <pre>
 *   admit() ──► the floor: floorShares() read shares, taken in the budget's FIFO line before any part starts
 *   reader(i).reserve(share, plan.need(i))
 *       ANY  (the part the plan waits on)         ──► from the floor, else tryAcquire from the pool, else wait
 *       ONE  (a part the head waits for)          ──► one share at most from the floor, else the pool, else wait
 *       NONE (any other)                          ──► tryAcquire from the pool (fails while anyone waits), else wait
 *   written(n, floor) ──► the pool's bytes back to the pool first, the floor's refill the floor; room() is told
 *   close()           ──► the floor back to the pool (what is still out goes to the pool when given back)
 * </pre>
 *
 * <p>Progress: the awaited part can always read, as the floor holds a share for it besides the
 * shares the others may hold (each non-awaited part holds at most one floor share, drawn while it was
 * awaited or the head waited for it), and its bytes once written come back to the floor. Parts that
 * wait for room are told through the room callback when their composition's bytes are written; they
 * never stand in the budget's line, only admissions do, so the line moves as compositions end. What
 * the gateway holds stays within the budget's capacity (floors included), except bytes a read gave
 * beyond its share ({@link Reader#arrived}) or that shaping added.
 *
 * <p>Engines: the reactive engine reserves a read's share before each socket read ({@link
 * Reader#reserveUpTo}: a small one for the read that brings the answer's head, a whole socket read's
 * for the body), caps the read to what it reserved and hands the bytes on as they are written; the blocking engines read a part into one ring, so they reserve a
 * whole ring once ({@code reserve(ring, need)}) before the part is handed to a fetch thread (a part
 * without room waits unstarted, holding no thread), {@link Reader#shrink} it to the ring's size once
 * the status line tells it, and give it back with {@link Reader#free} once neither the fetch nor the
 * relay uses the ring.
 *
 * <p>Not thread-safe: one guard at a time (an event loop, a composition's lock), like the plan; only
 * the admission's grant arrives elsewhere, and the engine hands it over with {@link #admitted()}.
 */
public final class CompositionBudget {

    /** How a part's reads may draw on its composition's floor: {@link CompositionPlan#need(int)}. */
    public enum Need {
        /** Not awaited: only what the pool gives without waiting. */
        NONE,
        /** The head waits for it: one read share at most from the floor. */
        ONE,
        /** The part the plan waits on: as much as it reads. */
        ANY
    }

    private static final int NEW = 0;
    private static final int WAITING = 1;
    private static final int ADMITTED = 2;
    private static final int CLOSED = 3;

    private final ReadAheadBudget pool;
    private final long floor;
    private final Runnable room;
    private long floorFree; // floor bytes not held by a part nor in flight to the client
    private int state = NEW;
    private ReadAheadBudget.Grant grant; // while waiting for admission

    /**
     * @param pool the gateway's budget
     * @param shares {@link CompositionPlan#floorShares()}
     * @param share what one read of a part takes at most
     * @param room told (on the guard) when bytes this composition held are back: parts waiting for
     *     room try again
     */
    public CompositionBudget(ReadAheadBudget pool, int shares, long share, Runnable room) {
        this.pool = pool;
        this.floor = pool.fit(Math.max(1, shares) * Math.max(1, share));
        this.room = room;
    }

    /** Its floor's size in bytes. */
    public long floor() {
        return floor;
    }

    /** Whether it holds its floor: its parts may start. */
    public boolean isAdmitted() {
        return state == ADMITTED;
    }

    /**
     * Takes the floor from the budget, or waits in its line: then {@code grant} is told (on any
     * thread) and the engine calls {@link #admitted()} on its guard.
     *
     * @return whether it was taken now
     */
    public boolean admit(ReadAheadBudget.Grant grant) {
        if (state != NEW) {
            throw new IllegalStateException("admit() once");
        }
        if (pool.acquire(floor, grant)) {
            state = ADMITTED;
            floorFree = floor;
            return true;
        }
        state = WAITING;
        this.grant = grant;
        return false;
    }

    /**
     * The admission's grant arrived (on the guard).
     *
     * @return whether the composition goes on; false: it was closed meanwhile, the floor is given back
     */
    public boolean admitted() {
        grant = null;
        if (state == CLOSED) {
            pool.release(floor);
            return false;
        }
        state = ADMITTED;
        floorFree = floor;
        return true;
    }

    /** A part's reader: its bytes' account, by where they came from. */
    public Reader reader() {
        return new Reader();
    }

    /**
     * {@code n} bytes of parts were written to the client (or dropped), {@code fromFloor} of them the
     * floor's: the rest goes back to the pool, those refill the floor.
     */
    public void written(long n, long fromFloor) {
        pool.release(n - fromFloor);
        refill(fromFloor);
        if (n > 0) {
            room.run();
        }
    }

    private void refill(long bytes) {
        if (bytes <= 0) {
            return;
        }
        if (state == ADMITTED) {
            floorFree += bytes;
        } else {
            pool.release(bytes); // the composition ended: floor bytes still out go back as they come
        }
    }

    /** The composition ended (every path): its floor goes back, or it leaves the line. Idempotent. */
    public void close() {
        switch (state) {
            case ADMITTED -> pool.release(floorFree);
            case WAITING -> {
                if (pool.cancel(grant)) {
                    grant = null;
                } // else the grant is on its way: admitted() gives the floor back
            }
            default -> {}
        }
        floorFree = 0;
        state = CLOSED;
    }

    @Override
    public String toString() {
        return "CompositionBudget[floor " + floor + ", " + floorFree + " free, state " + state + "]";
    }

    /**
     * One part's bytes: reserved for reads not yet filled, and held (buffered, not yet handed to the
     * client), each by where it came from, the floor or the pool. What is given back goes to the
     * pool first.
     */
    public final class Reader {
        private long reservedFloor;
        private long reservedPool;
        private long heldFloor;
        private long heldPool;

        private Reader() {}

        /**
         * Tops the reserve up to one read's {@code share} ({@link ReadAheadBudget#fit} applied).
         *
         * @return whether it is; false: the part reads nothing now and tries again when told of room
         */
        public boolean reserve(long share, Need need) {
            long want = pool.fit(share) - reservedFloor - reservedPool;
            if (want <= 0) {
                return true;
            }
            boolean mayFloor =
                    state == ADMITTED && (need == Need.ANY || (need == Need.ONE && heldFloor + reservedFloor == 0));
            if (mayFloor && floorFree >= want) {
                floorFree -= want;
                reservedFloor += want;
                return true;
            }
            if (state != CLOSED && pool.tryAcquire(want)) {
                reservedPool += want;
                return true;
            }
            return false;
        }

        /**
         * {@link #reserve}, but the part the plan waits on ({@link Need#ANY}) takes what is left of the
         * floor when neither the floor nor the pool has the whole share: it reads less, and never
         * waits while its floor has a byte. For an engine that can bound each read by {@link #reserved()}
         * (the reactive engine caps its socket reads), so a floor smaller than a whole read still lets
         * the awaited part go on.
         *
         * @return whether any share is reserved ({@link #reserved()} bytes may be read)
         */
        public boolean reserveUpTo(long share, Need need) {
            if (reserve(share, need)) {
                return true;
            }
            if (need == Need.ANY && state == ADMITTED && floorFree > 0) {
                reservedFloor += floorFree;
                floorFree = 0;
                return true;
            }
            return reserved() > 0;
        }

        /**
         * The part needs only {@code keep} bytes of its reserve (the blocking engines reserve a whole
         * ring before the part's request is sent, and learn its size from the status line): the rest
         * goes back now, the pool's first.
         */
        public void shrink(long keep) {
            long extra = reservedFloor + reservedPool - Math.max(0, keep);
            if (extra <= 0) {
                return;
            }
            long p = Math.min(extra, reservedPool);
            reservedPool -= p;
            long f = extra - p;
            reservedFloor -= f;
            written(extra, f);
        }

        /** Bytes reserved and not yet filled. */
        public long reserved() {
            return reservedFloor + reservedPool;
        }

        /** Bytes held: arrived and not yet handed on. */
        public long held() {
            return heldFloor + heldPool;
        }

        /**
         * {@code n} bytes arrived: the reserve covers them (the pool's first); beyond it (a read that gave
         * more than its share) they are taken from the pool all the same.
         */
        public void arrived(long n) {
            long p = Math.min(n, reservedPool);
            reservedPool -= p;
            long f = Math.min(n - p, reservedFloor);
            reservedFloor -= f;
            heldFloor += f;
            long beyond = n - p - f;
            pool.take(beyond);
            heldPool += p + beyond;
        }

        /** Shaping made {@code n} more bytes of what arrived: taken from the pool. */
        public void grew(long n) {
            pool.take(n);
            heldPool += n;
        }

        /**
         * {@code n} held bytes are handed to the client's connection.
         *
         * @return how many of them are the floor's: give them back with {@link #written} once written
         */
        public long handedOn(long n) {
            long p = Math.min(n, heldPool);
            heldPool -= p;
            long f = Math.min(n - p, heldFloor);
            heldFloor -= f;
            return f;
        }

        /** {@code n} held bytes are gone (shaped away, dropped): back at once. */
        public void dropped(long n) {
            if (n > 0) {
                written(n, handedOn(n));
            }
        }

        /** The part reads no more for now: its reserve goes back. */
        public void unreserve() {
            long n = reservedFloor + reservedPool;
            if (n > 0) {
                long f = reservedFloor;
                reservedFloor = 0;
                reservedPool = 0;
                written(n, f);
            }
        }

        /** The part is over: everything it holds goes back. */
        public void free() {
            unreserve();
            dropped(heldFloor + heldPool);
        }
    }
}
