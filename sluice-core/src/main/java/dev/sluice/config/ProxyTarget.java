package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import dev.sluice.routing.PathTemplate;
import java.time.Duration;
import java.util.Optional;

/**
 * Reverse proxy to one upstream, bodies streamed both ways.
 *
 * <p>The upstream path is, in order of precedence: {@code path} expanded with the path variables,
 * query parameters and {@code {**}} (the wildcard remainder); else the request path with {@code
 * strip-prefix} removed; else the request path. The client's query string is kept in the last two
 * cases. The upstream's base path is prefixed in every case.
 *
 * @param timeout optional bound on the whole exchange (beyond the upstream's read timeout) → 504
 */
public record ProxyTarget(
        String upstream, Optional<String> stripPrefix, Optional<PathTemplate> path, Optional<Duration> timeout)
        implements Target {
    public ProxyTarget {
        requireNonNull(upstream, "upstream");
        requireNonNull(stripPrefix, "stripPrefix");
        requireNonNull(path, "path");
        requireNonNull(timeout, "timeout");
    }

    public static ProxyTarget to(String upstream) {
        return new ProxyTarget(upstream, Optional.empty(), Optional.empty(), Optional.empty());
    }
}
