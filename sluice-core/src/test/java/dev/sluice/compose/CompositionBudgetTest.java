package dev.sluice.compose;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ComposeTarget.Fanout;
import dev.sluice.config.ComposeTarget.OnError;
import dev.sluice.config.ComposeTarget.Order;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The read-ahead rule driven step by step, no clock and no threads: many compositions of three parts
 * larger than the whole budget, each part asking for a read's share before every read. Taken from
 * the shared line one read at a time (the rule before CompositionBudget), the budget ends up held by
 * parts that wait for their turn and nothing moves; with floors every composition completes.
 */
class CompositionBudgetTest {

    static final long SHARE = 10;
    static final long BODY = 55; // five and a half shares per part
    static final long CAPACITY = 4 * SHARE; // the whole budget: less than one part

    /** One composition and its parts, moved by hand: an engine whose client reads (or not). */
    final class Run {
        final CompositionPlan plan;
        final CompositionBudget account;
        final CompositionBudget.Reader[] readers = new CompositionBudget.Reader[3];
        final boolean[] started = new boolean[3];
        final long[] left = {BODY, BODY, BODY};
        final long[] buffered = new long[3];
        final ArrayDeque<long[]> inFlight = new ArrayDeque<>(); // written to the client, not yet taken by it
        final boolean reads;
        long bodyShare =
                SHARE; // with more, a read reserves up to it (reserveUpTo) and reads what it got: reactive's rule
        boolean granted;
        boolean finished;
        long relayed;

        Run(ReadAheadBudget pool, Order order, OnError onError, boolean reads) {
            this.plan = new CompositionPlanTest()
                    .plan(
                            Fanout.PARALLEL,
                            order,
                            onError,
                            CompositionPlanTest.part("a"),
                            CompositionPlanTest.part("b"),
                            CompositionPlanTest.part("c"));
            this.account = new CompositionBudget(pool, plan.floorShares(), SHARE, () -> {});
            for (int i = 0; i < 3; i++) {
                readers[i] = account.reader();
            }
            this.reads = reads;
            account.admit(bytes -> granted = true); // taken now, or told when room comes
        }

        /** One turn: the client takes what was written, the plan's steps, each part one read. */
        @Override
        public String toString() {
            StringBuilder b = new StringBuilder(account + " left " + java.util.Arrays.toString(left) + " buf "
                    + java.util.Arrays.toString(buffered) + " fl " + inFlight.size());
            for (int i = 0; i < 3; i++) {
                b.append(" r")
                        .append(i)
                        .append('=')
                        .append(readers[i].reserved())
                        .append('/')
                        .append(readers[i].held())
                        .append(plan.need(i));
            }
            return b.toString();
        }

        boolean turn() {
            boolean moved = false;
            while (reads && !inFlight.isEmpty()) { // written bytes come back after the end too
                long[] w = inFlight.poll();
                account.written(w[0], w[1]);
                moved = true;
            }
            if (finished) {
                return moved;
            }
            if (!account.isAdmitted()) {
                if (!granted) {
                    return false;
                }
                account.admitted();
                moved = true;
            }
            for (CompositionPlan.Step s = plan.next(); s != CompositionPlan.Step.WAIT; s = plan.next()) {
                moved = true;
                int i = plan.part();
                switch (s) {
                    case START -> started[i] = true;
                    case RELAY -> {
                        long n = buffered[i];
                        buffered[i] = 0;
                        plan.relayed(i, n);
                        relayed += n;
                        inFlight.add(new long[] {n, readers[i].handedOn(n)});
                    }
                    case FINISH, FAIL, ABORT -> {
                        finished = true;
                        for (CompositionBudget.Reader r : readers) {
                            r.free();
                        }
                        account.close();
                        return true;
                    }
                    default -> {}
                }
            }
            for (int i = 0; i < 3; i++) {
                if (!started[i] || left[i] == 0) {
                    continue;
                }
                boolean upTo = bodyShare > SHARE;
                if (upTo
                        ? !readers[i].reserveUpTo(left[i] == BODY ? SHARE : bodyShare, plan.need(i))
                        : !readers[i].reserve(SHARE, plan.need(i))) {
                    continue;
                }
                moved = true;
                long n = Math.min(upTo ? readers[i].reserved() : SHARE, left[i]);
                if (left[i] == BODY) {
                    plan.answered(i, 200, CompositionPlanTest.JSON);
                }
                left[i] -= n;
                readers[i].arrived(n);
                plan.received(i, n);
                buffered[i] += n;
                if (left[i] == 0) {
                    readers[i].unreserve();
                    plan.ended(i);
                }
            }
            return moved;
        }
    }

    /** Turns every composition until none moves; what the budget holds never passes its capacity. */
    static void turnAll(ReadAheadBudget pool, List<Run> runs) {
        for (int round = 0; round < 100_000; round++) {
            boolean moved = false;
            for (Run r : runs) {
                moved |= r.turn();
                assertThat(pool.held()).as("%s", pool).isLessThanOrEqualTo(CAPACITY);
            }
            if (!moved) {
                return;
            }
        }
        throw new AssertionError("still moving after 100000 rounds");
    }

    @Test
    void compositionsOfPartsLargerThanTheBudgetAllCompleteWhenTheirClientsRead() {
        for (Order order : Order.values()) {
            for (OnError onError : List.of(OnError.PARTIAL, OnError.FAIL)) {
                ReadAheadBudget pool = new ReadAheadBudget(CAPACITY);
                List<Run> runs = new ArrayList<>();
                for (int c = 0; c < 12; c++) {
                    runs.add(new Run(pool, order, onError, true));
                }
                turnAll(pool, runs);
                for (Run r : runs) {
                    assertThat(r.finished)
                            .as("%s %s: %s %s %s", order, onError, runs, pool, runs.indexOf(r))
                            .isTrue();
                    assertThat(r.relayed).isEqualTo(3 * BODY);
                }
                assertThat(pool.held()).as("%s", pool).isZero();
                assertThat(pool.waiting()).isZero();
            }
        }
    }

    @Test
    void aClientThatNeverReadsHoldsItsFloorAndTheOthersStillComplete() {
        ReadAheadBudget pool = new ReadAheadBudget(CAPACITY);
        List<Run> runs = new ArrayList<>();
        runs.add(new Run(pool, Order.DECLARED, OnError.PARTIAL, false)); // admitted first, never reads
        for (int c = 0; c < 8; c++) {
            runs.add(new Run(pool, Order.ARRIVAL, OnError.PARTIAL, true));
        }
        turnAll(pool, runs);
        assertThat(runs.getFirst().finished).isFalse();
        for (Run r : runs.subList(1, runs.size())) {
            assertThat(r.finished).as("%s", r.account).isTrue();
        }
        runs.getFirst().account.close(); // its client left
        for (CompositionBudget.Reader r : runs.getFirst().readers) {
            r.free();
        }
        while (!runs.getFirst().inFlight.isEmpty()) { // the connection's buffer went with it
            long[] w = runs.getFirst().inFlight.poll();
            runs.getFirst().account.written(w[0], w[1]);
        }
        assertThat(pool.held()).isZero();
    }

    /** The rule before: every read's share from the shared line. It deadlocks: nobody gives back. */
    /**
     * A blocking part reserves a whole ring before its request and keeps only what its ring needs:
     * the rest goes back, the pool's bytes first, the floor's refilling the floor.
     */
    /**
     * Reactive's rule: the floor counts a head read's share, a body read asks for more (here three
     * shares: three quarters of the budget) with {@code reserveUpTo} and reads only what it got. The
     * awaited part takes what is left of its floor when the pool has nothing, so every composition still
     * completes, and the budget is never passed.
     */
    @Test
    void bodyReadsLargerThanTheFloorsShareStillLetEveryCompositionComplete() {
        for (Order order : Order.values()) {
            ReadAheadBudget pool = new ReadAheadBudget(CAPACITY);
            List<Run> runs = new ArrayList<>();
            for (int c = 0; c < 12; c++) {
                Run run = new Run(pool, order, OnError.PARTIAL, true);
                run.bodyShare = 3 * SHARE;
                runs.add(run);
            }
            turnAll(pool, runs);
            for (Run r : runs) {
                assertThat(r.finished).as("%s: %s %s", order, runs, pool).isTrue();
                assertThat(r.relayed).isEqualTo(3 * BODY);
            }
            assertThat(pool.held()).as("%s", pool).isZero();
            assertThat(pool.waiting()).isZero();
        }
    }

    @Test
    void aShrunkReserveGivesThePoolsBytesBackFirstAndTheFloorRefills() {
        ReadAheadBudget pool = new ReadAheadBudget(CAPACITY);
        CompositionBudget account = new CompositionBudget(pool, 1, SHARE, () -> {});
        assertThat(account.admit(bytes -> {})).isTrue();
        CompositionBudget.Reader awaited = account.reader();
        CompositionBudget.Reader other = account.reader();
        assertThat(awaited.reserve(SHARE, CompositionBudget.Need.ANY)).isTrue(); // the floor's
        assertThat(other.reserve(SHARE, CompositionBudget.Need.NONE)).isTrue(); // the pool's
        assertThat(pool.available()).isEqualTo(CAPACITY - 2 * SHARE);

        other.shrink(3);
        assertThat(other.reserved()).isEqualTo(3);
        assertThat(pool.available()).isEqualTo(CAPACITY - SHARE - 3);
        awaited.shrink(4);
        assertThat(awaited.reserved()).isEqualTo(4);
        assertThat(pool.available()).as("floor bytes refill the floor").isEqualTo(CAPACITY - SHARE - 3);
        CompositionBudget.Reader next = account.reader();
        assertThat(next.reserve(SHARE - 4, CompositionBudget.Need.ANY))
                .as("what the shrink gave back is the floor's again")
                .isTrue();
        assertThat(pool.available()).isEqualTo(CAPACITY - SHARE - 3);
        awaited.shrink(SHARE); // more than it holds: nothing changes
        assertThat(awaited.reserved()).isEqualTo(4);

        awaited.free();
        other.free();
        next.free();
        account.close();
        assertThat(pool.available()).as("whole after").isEqualTo(CAPACITY);
    }

    @Test
    void takingEveryReadFromTheLineDeadlocks() {
        ReadAheadBudget pool = new ReadAheadBudget(CAPACITY);
        // two compositions' parts each got a share; each composition relays part a, whose next
        // read waits in line behind the others' parts, which wait for their turn
        List<String> granted = new ArrayList<>();
        for (String part : List.of("1a", "1b", "2b", "2c")) {
            assertThat(pool.acquire(SHARE, bytes -> granted.add(part))).isTrue();
        }
        for (String part : List.of("1c", "2a", "1a'")) {
            assertThat(pool.acquire(SHARE, bytes -> granted.add(part))).isFalse();
        }
        // 1a's share was written and given back: the line's head (1c, not relayed) takes it, 1a waits on
        pool.release(SHARE);
        assertThat(granted).containsExactly("1c");
        assertThat(pool.available()).isZero(); // and now every byte is held by a part waiting for its turn
    }
}
