package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Optional;

/**
 * A part's {@code cache:}: its answers may be kept in the gateway's part cache ({@code
 * dev.sluice.compose.PartCache}) and relayed from memory while fresh.
 *
 * @param ttl how long an answer whose upstream gives no {@code max-age} stays fresh; empty: only
 *     answers with {@code max-age} (or {@code s-maxage}) are kept
 * @param maxEntryBytes the largest body kept; a bigger one streams through uncached
 */
public record PartCaching(Optional<Duration> ttl, long maxEntryBytes) {

    /** {@code max-entry}'s default. */
    public static final long DEFAULT_MAX_ENTRY_BYTES = 1024 * 1024;

    public PartCaching {
        requireNonNull(ttl, "ttl");
        if (maxEntryBytes < 1) {
            throw new IllegalArgumentException("maxEntryBytes: " + maxEntryBytes + " (expected: > 0)");
        }
    }

    /** Kept for {@code ttl} when the upstream gives no {@code max-age}. */
    public static PartCaching ttl(Duration ttl) {
        return new PartCaching(Optional.of(ttl), DEFAULT_MAX_ENTRY_BYTES);
    }

    /** Kept only as long as the upstream's {@code max-age} says. */
    public static PartCaching upstreamOnly() {
        return new PartCaching(Optional.empty(), DEFAULT_MAX_ENTRY_BYTES);
    }
}
