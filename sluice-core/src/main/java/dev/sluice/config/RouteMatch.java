package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import dev.sluice.routing.PathPattern;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The predicates of a route. All must hold.
 *
 * @param path exact ({@code /a/b}), template ({@code /products/{id}}) or prefix wildcard
 *     ({@code /orders/**})
 * @param methods upper-case methods; empty matches any method
 * @param host the Host header without port, compared ignoring case; empty matches any host
 * @param headers header name (lower case) → required value; the value {@code *} only requires presence
 */
public record RouteMatch(PathPattern path, Set<String> methods, Optional<String> host, Map<String, String> headers) {
    public RouteMatch {
        requireNonNull(path, "path");
        methods = Set.copyOf(methods);
        requireNonNull(host, "host");
        headers = Map.copyOf(headers);
    }

    public static RouteMatch path(String pattern) {
        return new RouteMatch(PathPattern.parse(pattern), Set.of(), Optional.empty(), Map.of());
    }
}
