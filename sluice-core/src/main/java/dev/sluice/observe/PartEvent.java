package dev.sluice.observe;

import static java.util.Objects.requireNonNull;

import dev.sluice.compose.PartOutcome;

/**
 * One composition part: an upstream call and what became of its bytes.
 *
 * @param route the composition's route id
 * @param upstream the part's upstream
 * @param outcome status (the upstream's, 0 when none came), error (empty when relayed whole),
 *     latency from the composition's start and bytes relayed, as {@code _meta} reports them
 * @param kind how it settled
 * @param firstByteNanos from the part's start to its upstream's status line, or -1 when none came
 */
public record PartEvent(String route, String upstream, PartOutcome outcome, PartKind kind, long firstByteNanos) {
    public PartEvent {
        requireNonNull(route, "route");
        requireNonNull(upstream, "upstream");
        requireNonNull(outcome, "outcome");
        requireNonNull(kind, "kind");
    }
}
