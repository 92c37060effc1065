package dev.sluice.compose;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * What became of one part of a composition, for {@code _meta}.
 *
 * @param name the part's name
 * @param status the upstream's status code, or 0 when no response came
 * @param error why the part is {@code null} in the response, or empty when it was relayed
 * @param latencyNanos from the start of the composition until the part's body ended (or failed)
 * @param bytes body bytes relayed to the client
 */
public record PartOutcome(String name, int status, Optional<String> error, long latencyNanos, long bytes) {
    public PartOutcome {
        requireNonNull(name, "name");
        requireNonNull(error, "error");
    }

    public static PartOutcome ok(String name, int status, long latencyNanos, long bytes) {
        return new PartOutcome(name, status, Optional.empty(), latencyNanos, bytes);
    }

    public static PartOutcome failed(String name, int status, String error, long latencyNanos) {
        return new PartOutcome(name, status, Optional.of(error), latencyNanos, 0);
    }

    public boolean isOk() {
        return error.isEmpty();
    }
}
