package dev.sluice.observe;

import static java.util.Objects.requireNonNull;

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
}
