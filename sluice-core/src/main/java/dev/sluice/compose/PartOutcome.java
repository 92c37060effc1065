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
 * @param attempts tries of its upstream call (more than 1 when the upstream's {@code retry} retried it)
 * @param cached relayed from the part cache ({@link PartCache}): its upstream was not called
 */
public record PartOutcome(
        String name, int status, Optional<String> error, long latencyNanos, long bytes, int attempts, boolean cached) {
    public PartOutcome {
        requireNonNull(name, "name");
        requireNonNull(error, "error");
    }

    /** An outcome of {@code attempts} tries, none from the cache. */
    public PartOutcome(String name, int status, Optional<String> error, long latencyNanos, long bytes, int attempts) {
        this(name, status, error, latencyNanos, bytes, attempts, false);
    }

    /** An outcome of one try. */
    public PartOutcome(String name, int status, Optional<String> error, long latencyNanos, long bytes) {
        this(name, status, error, latencyNanos, bytes, 1);
    }

    /** The same outcome after {@code n} tries. */
    public PartOutcome withAttempts(int n) {
        return n == attempts ? this : new PartOutcome(name, status, error, latencyNanos, bytes, n, cached);
    }

    /** The same outcome, relayed from the part cache. */
    public PartOutcome fromCache() {
        return new PartOutcome(name, status, error, latencyNanos, bytes, attempts, true);
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
