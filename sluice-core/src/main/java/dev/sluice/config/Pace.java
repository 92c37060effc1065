package dev.sluice.config;

import java.time.Duration;

/**
 * Pacing for a rate-limited upstream: at most {@code permits} calls start in each {@code per}
 * window; further calls wait their turn (seed 003: one call per 200 ms).
 */
public record Pace(int permits, Duration per) {
    public Pace {
        if (permits <= 0) {
            throw new IllegalArgumentException("permits: " + permits + " (expected: > 0)");
        }
        if (per.isNegative() || per.isZero()) {
            throw new IllegalArgumentException("per: " + per + " (expected: > 0)");
        }
    }
}
