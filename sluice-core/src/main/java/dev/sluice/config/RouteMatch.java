package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import dev.sluice.routing.PathPattern;
import dev.sluice.routing.ValueMatch;
import java.util.LinkedHashMap;
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
 * @param headers header name (lower case) → what its first value must be
 * @param query query parameter name (decoded) → what its first value (decoded) must be
 * @param cookies cookie name → what its first value must be
 */
public record RouteMatch(
        PathPattern path,
        Set<String> methods,
        Optional<String> host,
        Map<String, ValueMatch> headers,
        Map<String, ValueMatch> query,
        Map<String, ValueMatch> cookies) {
    public RouteMatch {
        requireNonNull(path, "path");
        methods = Set.copyOf(methods);
        requireNonNull(host, "host");
        headers = Map.copyOf(headers);
        query = Map.copyOf(query);
        cookies = Map.copyOf(cookies);
    }

    /**
     * Header predicates in today's short form: header name (lower case) → required value, the value
     * {@code *} only requiring presence.
     */
    public RouteMatch(PathPattern path, Set<String> methods, Optional<String> host, Map<String, String> headers) {
        this(path, methods, host, shortForm(headers), Map.of(), Map.of());
    }

    public static RouteMatch path(String pattern) {
        return new RouteMatch(PathPattern.parse(pattern), Set.of(), Optional.empty(), Map.of(), Map.of(), Map.of());
    }

    /** Whether the route asks anything of the query or the cookies (beside path, method, host, headers). */
    public boolean readsQueryOrCookies() {
        return !query.isEmpty() || !cookies.isEmpty();
    }

    private static Map<String, ValueMatch> shortForm(Map<String, String> headers) {
        Map<String, ValueMatch> forms = new LinkedHashMap<>();
        headers.forEach((name, value) ->
                forms.put(name, value.equals("*") ? ValueMatch.Present.INSTANCE : new ValueMatch.Exact(value)));
        return forms;
    }
}
