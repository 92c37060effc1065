package dev.sluice.observe;

import static java.util.Objects.requireNonNull;

import dev.sluice.compose.PartOutcome;

/**
 * One composition part: an upstream call and what became of its bytes.
 *
 * @param route the composition's route id
 * @param upstream the part's upstream
 * @param outcome status, error (empty when relayed whole), latency from the composition's start and
 *     bytes relayed, as {@code _meta} reports them
 */
public record PartEvent(String route, String upstream, PartOutcome outcome) {
    public PartEvent {
        requireNonNull(route, "route");
        requireNonNull(upstream, "upstream");
        requireNonNull(outcome, "outcome");
    }
}
