package dev.sluice.tck;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waiting for something a test can see happen (a recorded upstream arrival, an endpoint's health, a
 * count reached), up to a generous bound: never a fixed sleep before checking that nothing happened.
 */
final class Await {

    private Await() {}

    /** Returns once {@code condition} holds; fails naming {@code what} if it has not within {@code bound}. */
    static void until(Duration bound, BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(what + ": not within " + bound.toMillis() + " ms");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2)); // only the pace of looking again
        }
    }

    /** Returns once {@code latch} is down; fails naming {@code what} if it is not within {@code bound}. */
    static void until(Duration bound, CountDownLatch latch, String what) throws InterruptedException {
        if (!latch.await(bound.toNanos(), TimeUnit.NANOSECONDS)) {
            throw new AssertionError(
                    what + ": " + latch.getCount() + " still to come after " + bound.toMillis() + " ms");
        }
    }
}
