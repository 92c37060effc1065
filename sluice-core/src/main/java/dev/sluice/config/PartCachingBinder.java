package dev.sluice.config;

import java.time.Duration;
import java.util.Optional;

/** Binds a part's {@code cache:} ({@link PartCaching}): {@code true}, or {@code {ttl, max-entry}}. */
final class PartCachingBinder {

    private static final String EXPECTED = "true, or a mapping with ttl and max-entry";

    private PartCachingBinder() {}

    static Optional<PartCaching> cache(Mapping part) {
        if (!part.has("cache")) {
            return Optional.empty();
        }
        Object raw = part.raw("cache");
        if (raw instanceof Boolean on) {
            return on ? Optional.of(PartCaching.upstreamOnly()) : Optional.empty();
        }
        return part.mapping("cache", EXPECTED).map(m -> {
            m.allowOnly("ttl", "max-entry");
            Optional<Duration> ttl = m.duration("ttl");
            ttl.filter(d -> d.isZero() || d.isNegative())
                    .ifPresent(d -> m.problem("ttl", d + " (expected: a positive duration such as 30s)"));
            long maxEntry = m.longSize(
                    "max-entry",
                    PartCaching.DEFAULT_MAX_ENTRY_BYTES,
                    1,
                    "a size such as 256KiB: the largest body kept; a bigger one streams uncached");
            return new PartCaching(ttl, maxEntry);
        });
    }
}
