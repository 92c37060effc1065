package dev.sluice.config;

import static java.util.Objects.requireNonNull;

/**
 * {@code mirror:} of a proxy route: a copy of a share of its requests sent to another upstream, fire
 * and forget ({@link dev.sluice.upstream.Mirror} decides which, and the copy's shape).
 *
 * @param upstream where the copies go
 * @param percent the share of requests copied, 0 to 100 (fractions allowed)
 * @param maxInFlight the most copies outstanding at once; a request beyond it is not copied
 */
public record MirrorConfig(String upstream, double percent, int maxInFlight) {
    public MirrorConfig {
        requireNonNull(upstream, "upstream");
        if (!(percent >= 0 && percent <= 100)) {
            throw new IllegalArgumentException("percent: " + percent + " (expected: 0 to 100)");
        }
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight: " + maxInFlight + " (expected: 1 or more)");
        }
    }
}
