package dev.sluice.upstream;

import dev.sluice.http.UpstreamFailure;

/**
 * One try of an upstream call, on one endpoint. The engine ends it exactly once: {@link #answered}
 * when the response head came, {@link #failed} when the call failed before it, {@link #abandoned}
 * when the gateway stopped it (the client went away, the route's deadline passed). Ending it again
 * does nothing, on whichever thread: the first end wins (an answer on an event loop may meet a
 * deadline's timer or a mirror's tee giving the try up).
 */
public final class Attempt {

    private final UpstreamGuard guard;
    private final Endpoint endpoint;
    private final int number;
    private final long began;
    private int status;
    private UpstreamFailure failure;
    private volatile int ended; // 0 until the first end: set once, by ENDED's compare-and-set

    Attempt(UpstreamGuard guard, Endpoint endpoint, int number, long began) {
        this.guard = guard;
        this.endpoint = endpoint;
        this.number = number;
        this.began = began;
    }

    public Endpoint endpoint() {
        return endpoint;
    }

    /** 1 for the first try, 2 for the first retry… */
    public int number() {
        return number;
    }

    /** The upstream answered with {@code status}: a 5xx counts as a failure of the endpoint. */
    public void answered(int status) {
        if (end()) {
            this.status = status;
            guard.settle(this, status, null, began);
        }
    }

    /** The call failed before any answer. */
    public void failed(UpstreamFailure failure) {
        if (end()) {
            this.failure = failure;
            guard.settle(this, 0, failure, began);
        }
    }

    /** The gateway stopped the call: nothing is learned of the endpoint. */
    public void abandoned() {
        if (end()) {
            guard.settle(this, 0, null, began);
        }
    }

    /** The status it was answered with, 0 without one. */
    public int status() {
        return status;
    }

    /** How it failed, or null. */
    public UpstreamFailure failure() {
        return failure;
    }

    private boolean end() {
        return ENDED.compareAndSet(this, 0, 1);
    }

    private static final java.lang.invoke.VarHandle ENDED;

    static {
        try {
            ENDED = java.lang.invoke.MethodHandles.lookup().findVarHandle(Attempt.class, "ended", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
