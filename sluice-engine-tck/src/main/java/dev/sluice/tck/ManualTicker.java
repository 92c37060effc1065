package dev.sluice.tck;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A nanosecond clock that moves only when a test says so ({@link TestGateway.Builder#ticker}): what
 * the core decides in time (a breaker's open time, an endpoint's ejection) then waits for the test,
 * not for the wall clock. It starts at an arbitrary point far from zero, as {@code System.nanoTime}
 * may.
 */
public final class ManualTicker implements LongSupplier {

    private final AtomicLong now = new AtomicLong(1L << 40);

    @Override
    public long getAsLong() {
        return now.get();
    }

    /** Moves time on by {@code by}. */
    public void advance(Duration by) {
        now.addAndGet(by.toNanos());
    }
}
