package dev.sluice.engine;

import static java.util.Objects.requireNonNull;

/**
 * One upstream's connection pool at a moment, for the pool gauges (docs/METRICS.md). Read when
 * metrics are scraped, never on the request path.
 *
 * @param upstream the upstream's name
 * @param inUse connections carrying an exchange (or being opened for one)
 * @param idle open connections waiting in the pool for the next exchange
 * @param pending calls waiting for a connection to come free
 */
public record PoolStats(String upstream, int inUse, int idle, int pending) {
    public PoolStats {
        requireNonNull(upstream, "upstream");
    }

    /** These counts and {@code other}'s added (one upstream's pools on several event loops). */
    public PoolStats plus(PoolStats other) {
        return new PoolStats(upstream, inUse + other.inUse, idle + other.idle, pending + other.pending);
    }
}
