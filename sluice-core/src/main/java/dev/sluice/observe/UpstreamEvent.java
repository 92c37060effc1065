package dev.sluice.observe;

import static java.util.Objects.requireNonNull;

import dev.sluice.http.UpstreamFailure;

/**
 * One upstream call: a proxied request's, or a composition part's.
 *
 * @param route the route that made it
 * @param upstream the upstream's name
 * @param outcome how it ended
 * @param status the upstream's status, or 0 when none came
 * @param latencyNanos from the call's start (taking a connection included) to the answer's status
 *     line, or to the failure
 */
public record UpstreamEvent(String route, String upstream, UpstreamOutcome outcome, int status, long latencyNanos) {
    public UpstreamEvent {
        requireNonNull(route, "route");
        requireNonNull(upstream, "upstream");
        requireNonNull(outcome, "outcome");
    }

    /** The event of a call whose status line came {@code latencyNanos} after it began: {@link UpstreamOutcome#of(int)}. */
    public static UpstreamEvent answered(String route, String upstream, int status, long latencyNanos) {
        return new UpstreamEvent(route, upstream, UpstreamOutcome.of(status), status, latencyNanos);
    }

    /** The event of a call that failed before any status line came: {@link UpstreamOutcome#of(UpstreamFailure)}. */
    public static UpstreamEvent failed(String route, String upstream, UpstreamFailure failure, long latencyNanos) {
        return new UpstreamEvent(route, upstream, UpstreamOutcome.of(failure), 0, latencyNanos);
    }

    /**
     * The event of a proxied call that ended in {@code failure}, or null when none is due, decided
     * once for every engine: a call whose status line came was told already ({@link #answered}),
     * and a failure of the client's own request body (too large, broken) is nothing the upstream
     * did. A call the route's deadline stopped is a {@link UpstreamFailure#TIMEOUT}, whatever its
     * try saw as the connection was cut.
     *
     * @param answered the call's status line came before the failure
     * @param clientsBody the failure is the client's request body's
     * @param deadlinePassed the route's {@code timeout} stopped the call
     */
    public static UpstreamEvent ofFailedCall(
            String route,
            String upstream,
            UpstreamFailure failure,
            boolean answered,
            boolean clientsBody,
            boolean deadlinePassed,
            long latencyNanos) {
        if (answered || clientsBody) {
            return null;
        }
        return failed(route, upstream, deadlinePassed ? UpstreamFailure.TIMEOUT : failure, latencyNanos);
    }
}
