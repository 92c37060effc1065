package dev.sluice.policy;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Isolation of a slow route (seed 003): at most {@code max} of its requests in flight; up to {@code
 * queue} more wait, each at most {@code queueTimeout}, for a slot; beyond that, {@code 503
 * overloaded} at once, before the upstream sees anything. A finished request hands its slot straight
 * to the oldest waiter, so the count never drops and rises again in between.
 *
 * <p>Never blocks: a waiter is a {@link Decision.Pending} completed by the request that frees a slot,
 * outside the lock.
 */
public final class ConcurrencyLimit implements InboundPolicy {

    private final int max;
    private final int queue;
    private final long queueTimeoutNanos;
    private final Decision.Reject overloaded;
    private final Decision.Reject waitedTooLong;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<CompletableFuture<Decision>> waiting = new ArrayDeque<>(); // guarded by lock
    private int inFlight; // guarded by lock

    public ConcurrencyLimit(int max, int queue, Duration queueTimeout) {
        if (max < 1 || queue < 0) {
            throw new IllegalArgumentException("concurrency: max >= 1 and queue >= 0 (got " + max + ", " + queue + ")");
        }
        this.max = max;
        this.queue = queue;
        this.queueTimeoutNanos = queueTimeout.toNanos();
        Map<String, String> retry = Map.of("Retry-After", "1");
        this.overloaded = new Decision.Reject(
                503,
                "overloaded",
                "the route has " + max + " requests in flight and " + queue + " waiting (its concurrency limit)",
                retry);
        this.waitedTooLong = new Decision.Reject(
                503,
                "overloaded",
                "no slot of the route's " + max + " came free within its queue-timeout (" + queueTimeout.toMillis()
                        + " ms)",
                retry);
    }

    @Override
    public String name() {
        return "concurrency";
    }

    @Override
    public Decision admit(Inbound request) {
        CompletableFuture<Decision> waiter;
        lock.lock();
        try {
            if (inFlight < max) {
                inFlight++;
                return new Decision.Proceed(new Slot());
            }
            if (waiting.size() >= queue) {
                return overloaded;
            }
            waiter = new CompletableFuture<>();
            waiting.addLast(waiter);
        } finally {
            lock.unlock();
        }
        waiter.completeOnTimeout(waitedTooLong, queueTimeoutNanos, TimeUnit.NANOSECONDS);
        waiter.whenComplete((decision, error) -> {
            if (!(decision instanceof Decision.Proceed)) { // timed out or abandoned: no longer waiting
                lock.lock();
                try {
                    waiting.remove(waiter);
                } finally {
                    lock.unlock();
                }
            }
        });
        return new Decision.Pending(waiter);
    }

    /** Requests in flight, for tests and gauges. */
    public int inFlight() {
        lock.lock();
        try {
            return inFlight;
        } finally {
            lock.unlock();
        }
    }

    /** Requests waiting for a slot. */
    public int waiting() {
        lock.lock();
        try {
            return waiting.size();
        } finally {
            lock.unlock();
        }
    }

    /** One request's slot: released once, to the oldest waiter still waiting, else back to the count. */
    private final class Slot implements Decision.Permit {
        private final AtomicBoolean released = new AtomicBoolean();

        @Override
        public void release() {
            if (!released.compareAndSet(false, true)) {
                return;
            }
            while (true) {
                CompletableFuture<Decision> next;
                lock.lock();
                try {
                    next = waiting.pollFirst();
                    if (next == null) {
                        inFlight--;
                        return;
                    }
                } finally {
                    lock.unlock();
                }
                if (next.complete(new Decision.Proceed(new Slot()))) { // outside the lock: it may run the request
                    return;
                }
            }
        }
    }
}
