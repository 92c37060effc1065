package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import dev.sluice.routing.PathTemplate;
import java.time.Duration;
import java.util.Optional;

/**
 * One part of a composition: a GET to {@code upstream} at {@code path} (expanded with the route's
 * path variables and the request's query parameters).
 *
 * @param optional an optional part that fails is {@code null} in the response even when {@code
 *     on-error: fail}
 * @param timeout optional bound on this part alone (the route's timeout bounds all parts)
 */
public record PartConfig(
        String name, String upstream, PathTemplate path, boolean optional, Optional<Duration> timeout) {
    public PartConfig {
        requireNonNull(name, "name");
        requireNonNull(upstream, "upstream");
        requireNonNull(path, "path");
        requireNonNull(timeout, "timeout");
    }
}
