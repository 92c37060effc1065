package dev.sluice.app;

import io.micrometer.core.instrument.Clock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The metrics registry's clock: wall time read from a field a daemon thread refreshes every
 * {@link #TICK_MILLIS} ms, monotonic time from {@link System#nanoTime()}: Micrometer reads the wall
 * clock twice per timer record only to decide whether a histogram's time window turns, and a
 * composed request records several timers (the profile is in docs/MEASUREMENTS.md, session 26).
 * The windows turn within {@code TICK_MILLIS} of when they would have; every duration recorded is
 * the caller's own, not this clock's.
 */
final class MetricsClock implements Clock {

    /** How stale {@link #wallTime()} may be. */
    static final long TICK_MILLIS = 100;

    static final MetricsClock INSTANCE = new MetricsClock();

    private volatile long wallMillis = System.currentTimeMillis();

    private MetricsClock() {
        Thread.ofPlatform().name("sluice-metrics-clock").daemon(true).start(this::tick);
    }

    private void tick() {
        while (true) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS));
            wallMillis = System.currentTimeMillis();
        }
    }

    @Override
    public long wallTime() {
        return wallMillis;
    }

    @Override
    public long monotonicTime() {
        return System.nanoTime();
    }
}
