package dev.sluice.upstream;

import static java.util.Objects.requireNonNull;

import dev.sluice.http.UpstreamFailure;
import java.util.function.LongSupplier;

/**
 * The try loop of one upstream call, every engine's (docs/ENGINE-CONTRACT.md, "Resilience"): the
 * engine tells it how each try went and carries out the {@link Action} it answers. Made per call with
 * the upstream's {@link UpstreamGuard}, the request's method, its body's length (whether it is held
 * whole, so that a retry can send it again), and a clock ({@code System::nanoTime} in production; tests drive it).
 *
 * <p>A try is {@link #next() begun} on the endpoint the guard picks. It ends {@link #answered} (the
 * status line came), {@link #failed} (before it, or after it), {@link #expired} (its per-try timer
 * fired first) or {@link #abandoned} (the gateway stopped the call). A try whose connection is closed
 * or reset before any byte of an answer, for a bodyless idempotent request, is sent once more on a
 * fresh connection ({@link Action.Resend}): a pooled connection the upstream closed while it sat idle.
 * That allowance is per try. Otherwise the guard's retry policy decides: {@link Action.RetryAfter}
 * (drop what came, wait, call {@link #next()}), else the answer is relayed or the call fails.
 *
 * <p>Not thread-safe: an engine tells it from one thread at a time (the blocking engine's request
 * thread, the reactive engine's home loop). A signal of a try that has ended (a dropped try's late
 * answer or error) answers {@link Action.Ignore}: the engine drops what came.
 */
public final class UpstreamCall {

    /** What the engine does next. */
    public sealed interface Action {

        /**
         * Send the try on its endpoint: take a connection from its pool and send the request; call
         * {@link #expired()} when no status line came within {@code timeoutNanos} (0: only the read
         * timeout bounds the try).
         */
        record Send(Attempt attempt, long timeoutNanos) implements Action {}

        /** Send the same try again, on a fresh connection (not another pooled one, which may be as dead). */
        record Resend(Attempt attempt) implements Action {}

        /** Drop the try (its connection, any answer unread), wait {@code nanos}, then ask {@link #next()}. */
        record RetryAfter(long nanos) implements Action {}

        /** Relay the answer that came: the call's last try. */
        record Relay(int status) implements Action {}

        /** The call failed: answer the client as {@code failure} says. */
        record Fail(UpstreamFailure failure) implements Action {}

        /** A signal of a try that has ended: drop what came. */
        enum Ignore implements Action {
            INSTANCE
        }
    }

    private enum State {
        IDLE, // no try in progress: before the first, or between a dropped try and the next
        TRYING,
        DONE
    }

    private final UpstreamGuard guard;
    private final String method;
    private final boolean holdsBody;
    private final boolean replayable;
    private final boolean resendable;
    private final LongSupplier clock;
    private final long began;
    private Attempt attempt;
    private State state = State.IDLE;
    private boolean resent; // this try was sent again on a fresh connection
    private boolean answered; // the last try's status line came: the call is relayed
    private Action decision;

    /**
     * @param method the request's method
     * @param bodyLength the request body's declared length, 0 without a body, -1 when its length is
     *     not declared (chunked)
     * @param clock nanoseconds
     */
    public UpstreamCall(UpstreamGuard guard, String method, long bodyLength, LongSupplier clock) {
        this(requireNonNull(guard, "guard"), method, bodyLength, clock, 0);
    }

    private UpstreamCall(UpstreamGuard guard, String method, long bodyLength, LongSupplier clock, int unused) {
        this.guard = guard;
        this.method = requireNonNull(method, "method");
        this.holdsBody = guard != null && guard.holdsBody(bodyLength);
        this.replayable = bodyLength == 0 || holdsBody;
        this.resendable = bodyLength == 0 && idempotent(method);
        this.clock = requireNonNull(clock, "clock");
        this.began = clock.getAsLong();
    }

    /**
     * A call of one try on one connection, without a guard (a pool used on its own, as in its tests):
     * only the stale connection's resend; {@link Action.Send#attempt()} is null.
     */
    public static UpstreamCall single(String method, long bodyLength, LongSupplier clock) {
        return new UpstreamCall(null, method, bodyLength, clock, 0);
    }

    /**
     * Whether the engine reads the request body whole before the first try and sends it from memory on
     * each: only when retries are configured and its declared length fits the replay buffer ({@link
     * UpstreamGuard#holdsBody}). A body that is not held is streamed, and its request never retried.
     */
    public boolean holdsBody() {
        return holdsBody;
    }

    /** The idempotent methods of RFC 9110, section 9.2.2: a guard retries others only when told. */
    public static boolean idempotent(String method) {
        return switch (method) {
            case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE" -> true;
            default -> false;
        };
    }

    /** Each try's longest wait for its response head, or 0 when only the read timeout bounds it. */
    public long perTryTimeoutNanos() {
        return guard == null ? 0 : guard.perTryTimeoutNanos();
    }

    /** Begins a try: the first, or the retry after {@link Action.RetryAfter}. */
    public Action next() {
        if (state != State.IDLE) {
            return Action.Ignore.INSTANCE;
        }
        if (guard == null) {
            if (decision != null) {
                return Action.Ignore.INSTANCE; // one try only
            }
            state = State.TRYING;
            return decide(new Action.Send(null, 0));
        }
        attempt = guard.begin(attempt);
        resent = false;
        if (attempt == null) {
            return end(new Action.Fail(UpstreamFailure.CIRCUIT_OPEN));
        }
        state = State.TRYING;
        return decide(new Action.Send(attempt, guard.perTryTimeoutNanos()));
    }

    /** The try's status line came. */
    public Action answered(int status) {
        if (state != State.TRYING) {
            return Action.Ignore.INSTANCE;
        }
        long wait = -1;
        if (attempt != null) {
            attempt.answered(status);
            wait = guard.retryDelay(attempt, method, replayable);
        }
        if (wait >= 0) {
            return dropped(wait);
        }
        answered = true;
        return end(new Action.Relay(status));
    }

    /**
     * The try failed.
     *
     * @param anyAnswerByte whether any byte of the answer had come, or the connection is otherwise
     *     known not to be stale: then it is not resent (the guard may still retry it, until its status
     *     line is relayed)
     */
    public Action failed(UpstreamFailure failure, boolean anyAnswerByte) {
        requireNonNull(failure, "failure");
        if (answered && state == State.DONE) {
            return end(new Action.Fail(failure)); // the relayed answer broke off: the call fails
        }
        if (state != State.TRYING) {
            return Action.Ignore.INSTANCE;
        }
        if (!anyAnswerByte && !resent && resendable && failure == UpstreamFailure.RESET) {
            resent = true;
            return decide(new Action.Resend(attempt));
        }
        long wait = -1;
        if (attempt != null) {
            attempt.failed(failure);
            wait = guard.retryDelay(attempt, method, replayable); // a broken head may be retried
        }
        if (wait >= 0) {
            return dropped(wait);
        }
        return end(new Action.Fail(failure));
    }

    /** The try's per-try timer fired before its status line. */
    public Action expired() {
        if (state != State.TRYING) {
            return Action.Ignore.INSTANCE;
        }
        long wait = -1;
        if (attempt != null) {
            attempt.failed(UpstreamFailure.READ_TIMEOUT);
            wait = guard.retryDelay(attempt, method, replayable);
        }
        if (wait >= 0) {
            return dropped(wait);
        }
        return end(new Action.Fail(UpstreamFailure.READ_TIMEOUT));
    }

    /** The gateway stopped the call (the client went away, the route's deadline passed): nothing is learned. */
    public void abandoned() {
        if (attempt != null) {
            attempt.abandoned(); // nothing if it had ended
        }
        state = State.DONE;
    }

    /** The try in progress, or the last one; null before the first. */
    public Attempt attempt() {
        return attempt;
    }

    /** Whether a try is in progress: begun, not ended. */
    public boolean trying() {
        return state == State.TRYING;
    }

    /** The last action answered (not {@link Action.Ignore}); null before the first. */
    public Action decision() {
        return decision;
    }

    /** Nanoseconds since the call was made, by its clock. */
    public long elapsedNanos() {
        return clock.getAsLong() - began;
    }

    private Action dropped(long wait) {
        state = State.IDLE;
        return decide(new Action.RetryAfter(wait));
    }

    private Action end(Action action) {
        state = State.DONE;
        return decide(action);
    }

    private Action decide(Action action) {
        decision = action;
        return action;
    }
}
