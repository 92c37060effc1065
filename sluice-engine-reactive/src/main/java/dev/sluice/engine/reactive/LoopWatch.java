package dev.sluice.engine.reactive;

import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether the gateway's event loops still run. A loop that stopped (an {@link Error} such as an
 * {@code OutOfMemoryError} ended its thread) or that has not run a task for {@code stuckAfter} (a
 * handler blocked it) leaves a process that accepts connections and answers nothing; {@link
 * #failure()} says so, and {@code sluice run} then exits, so that whatever supervises it starts a
 * fresh one. Each check posts one heartbeat task to every loop; a loop is stuck when the heartbeat
 * posted longest ago has not run.
 */
final class LoopWatch {

    private final List<Beat> beats = new ArrayList<>();
    private final long stuckAfterNanos;

    LoopWatch(Iterable<EventExecutor> loops, long stuckAfter, TimeUnit unit) {
        for (EventExecutor loop : loops) {
            beats.add(new Beat(loop));
        }
        this.stuckAfterNanos = unit.toNanos(stuckAfter);
    }

    /** Why the loops can no longer serve, or empty while every one of them runs. */
    Optional<String> failure() {
        long now = System.nanoTime();
        for (Beat beat : beats) {
            Optional<String> failure = beat.check(now);
            if (failure.isPresent()) {
                return failure;
            }
        }
        return Optional.empty();
    }

    private final class Beat {
        private final EventExecutor loop;
        private final AtomicLong postedAt = new AtomicLong(); // 0: none pending

        Beat(EventExecutor loop) {
            this.loop = loop;
        }

        Optional<String> check(long now) {
            if (loop.isShuttingDown() || loop.isTerminated()) {
                return Optional.of("event loop " + loop + " has stopped");
            }
            long posted = postedAt.get();
            if (posted != 0) {
                long waited = now - posted;
                return waited > stuckAfterNanos
                        ? Optional.of("event loop " + loop + " has run no task for "
                                + TimeUnit.NANOSECONDS.toSeconds(waited) + " s")
                        : Optional.empty();
            }
            if (postedAt.compareAndSet(0, now)) {
                try {
                    loop.execute(() -> postedAt.set(0));
                } catch (RejectedExecutionException e) {
                    return Optional.of("event loop " + loop + " refuses tasks: " + e.getMessage());
                }
            }
            return Optional.empty();
        }
    }
}
