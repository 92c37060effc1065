package dev.sluice.policy;

import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code server.limits.max-requests}: at most {@code max} requests in flight across every route of
 * the gateway, and {@code 503 overloaded} at once beyond it (no queue: the limit is there to shed
 * load before memory runs out, not to smooth it). One counter, no lock: it is asked on every routed
 * request, ahead of the route's own policies.
 */
public final class InFlightLimit implements InboundPolicy {

    private final int max;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Decision.Reject overloaded;

    public InFlightLimit(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max-requests: 1 or more (got " + max + ")");
        }
        this.max = max;
        this.overloaded = new Decision.Reject(
                503,
                "overloaded",
                "the gateway has " + max + " requests in flight (server.limits.max-requests)",
                Map.of("Retry-After", "1"));
    }

    @Override
    public String name() {
        return "server-limits";
    }

    @Override
    public Decision admit(Inbound request) {
        if (inFlight.incrementAndGet() > max) {
            inFlight.decrementAndGet();
            return overloaded;
        }
        return new Decision.Proceed(new Slot());
    }

    /** Requests in flight now. */
    public int inFlight() {
        return inFlight.get();
    }

    private final class Slot implements Decision.Permit {
        private final AtomicBoolean released = new AtomicBoolean();

        @Override
        public void release() {
            if (released.compareAndSet(false, true)) {
                inFlight.decrementAndGet();
            }
        }
    }
}
