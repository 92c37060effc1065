package dev.sluice.upstream;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.ConfigChange;
import dev.sluice.engine.RunningGateway;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * What becomes of an upstream's connection pool once a reload removed or changed the upstream
 * ({@link ConfigChange#retired()}, the pools {@link ConfigChange#swap} hands back), decided once for
 * every engine; the engine only closes connections when told.
 *
 * <pre>
 *   retire ──► drain now      its idle connections close; a busy one closes when its exchange
 *                             ends, never going back to the pool; a call still begun on the old
 *                             snapshot (a composition's later part) may open one, closed likewise
 *          ──► close after    {@link RunningGateway#RETIRE_AFTER}: the pool is shut, a late
 *                             call fails
 *   the gateway closes ──► every pool still retiring closes at once
 * </pre>
 *
 * Safe to use from any thread.
 *
 * @param <P> the engine's pool type
 */
public final class PoolRetirement<P> {

    /** Runs a task once after a delay: the engine's timer. */
    @FunctionalInterface
    public interface Timer {
        void schedule(Runnable task, Duration delay);
    }

    private final Consumer<P> drain;
    private final Consumer<P> close;
    private final Timer timer;
    private final Duration after;
    private final Set<P> retiring = ConcurrentHashMap.newKeySet();

    /**
     * @param drain closes a pool's idle connections now and each busy one when its exchange ends
     *     (none goes back to the pool), while the pool still opens connections for late calls
     * @param close shuts a pool: idle connections close, busy ones when their exchanges end, no call
     *     is taken any more
     * @param timer the engine's timer
     */
    public PoolRetirement(Consumer<P> drain, Consumer<P> close, Timer timer) {
        this(drain, close, timer, RunningGateway.RETIRE_AFTER);
    }

    PoolRetirement(Consumer<P> drain, Consumer<P> close, Timer timer, Duration after) {
        this.drain = requireNonNull(drain, "drain");
        this.close = requireNonNull(close, "close");
        this.timer = requireNonNull(timer, "timer");
        this.after = requireNonNull(after, "after");
    }

    /** Retires the pools a reload swapped out ({@link ConfigChange.Swapped#retired()}). */
    public void retire(List<P> pools) {
        for (P pool : pools) {
            retiring.add(pool);
            drain.accept(pool);
            timer.schedule(
                    () -> {
                        if (retiring.remove(pool)) {
                            close.accept(pool);
                        }
                    },
                    after);
        }
    }

    /** The gateway closes: every pool still retiring closes now. */
    public void closeAll() {
        for (P pool : List.copyOf(retiring)) {
            if (retiring.remove(pool)) {
                close.accept(pool);
            }
        }
    }

    /** How many retired pools have not closed yet. */
    public int retiring() {
        return retiring.size();
    }
}
