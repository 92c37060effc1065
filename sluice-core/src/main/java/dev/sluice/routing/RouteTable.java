package dev.sluice.routing;

import dev.sluice.config.FilterConfig;
import dev.sluice.config.RouteConfig;
import dev.sluice.config.RouteMatch;
import dev.sluice.http.QueryString;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Finds the route for a request: the first route, in declared order, whose path, host, headers,
 * query parameters, cookies and method all match ({@link ValueMatch}: present, absent, exact, prefix,
 * full-match regex). The query is read (decoded, {@link QueryString}) and the {@code Cookie} header
 * parsed ({@link Cookies}) only when a route asks, so routes that match on neither cost nothing more. The path is normalised first ({@link RequestPath}); one that cannot be is {@link
 * Result.BadPath}. When some route matched everything but the method, the result is {@link
 * Result.MethodNotAllowed} with the methods that would have matched. A route that serves {@code GET}
 * serves {@code HEAD} too, and its {@code Allow} says so. A CORS preflight matches a route
 * with a {@code cors} filter by the method it announces, even when the route's methods lack {@code
 * OPTIONS}.
 */
public final class RouteTable {

    private final RouteConfig[] routes;
    private final boolean[] cors; // whether routes[i] has a cors filter
    private final boolean readsCookies;

    public RouteTable(List<RouteConfig> routes) {
        this.routes = routes.toArray(RouteConfig[]::new);
        this.cors = new boolean[this.routes.length];
        for (int i = 0; i < this.routes.length; i++) {
            cors[i] = this.routes[i].filters().stream().anyMatch(f -> f instanceof FilterConfig.Cors);
        }
        this.readsCookies = routes.stream().anyMatch(r -> !r.match().cookies().isEmpty());
    }

    /**
     * Whether some route matches on cookies, so that {@link #match} may ask for the {@code cookie}
     * header: a caller whose request may carry several {@code Cookie} fields (HTTP/2 lets a client
     * split them, RFC 9113 §8.2.3) then answers it with them joined by {@code "; "} (as {@link
     * #joinedCookies}); one whose routes never ask pays nothing.
     */
    public boolean readsCookies() {
        return readsCookies;
    }

    /** {@link #match(String, String, String, String, Function)} for a request without a query. */
    public Result match(String method, String host, String rawPath, Function<String, String> headers) {
        return match(method, host, rawPath, null, headers);
    }

    /**
     * @param method upper-case request method
     * @param host the Host header (port allowed), or null
     * @param rawPath the request path as the client sent it, without query
     * @param rawQuery the query as the client sent it, without the '?', or null
     * @param headers header lookup by lower-case name, returning null when absent
     */
    public Result match(String method, String host, String rawPath, String rawQuery, Function<String, String> headers) {
        String path;
        switch (RequestPath.normalise(rawPath)) {
            case RequestPath.Normalised normalised -> path = normalised.path();
            case RequestPath.Rejected rejected -> {
                return new Result.BadPath(rejected.reason());
            }
        }
        java.util.SortedSet<String> allowed = null;
        Result.Matched preflightRoute = null; // the first cors route whose path matched a preflight
        String announced = null; // the method a CORS preflight asks about, when the request is one
        Map<String, String> query = null; // the decoded query, once a route asks for it
        String cookie = null; // the Cookie header ("" when absent), once a route asks for it
        for (int i = 0; i < routes.length; i++) {
            RouteConfig route = routes[i];
            RouteMatch m = route.match();
            var pathMatch = m.path().match(path);
            if (pathMatch.isEmpty() || !hostMatches(m, host) || !valuesMatch(m.headers(), headers)) {
                continue;
            }
            if (m.readsQueryOrCookies()) {
                if (query == null && !m.query().isEmpty()) {
                    query = QueryString.parameters(rawQuery); // parsed on its first get
                }
                if (cookie == null && !m.cookies().isEmpty()) {
                    String header = headers.apply("cookie");
                    cookie = header == null ? "" : header;
                }
                if ((query != null && !valuesMatch(m.query(), query::get)) || !cookiesMatch(m.cookies(), cookie)) {
                    continue;
                }
            }
            if (m.methods().isEmpty() || m.methods().contains(method) || headOfGet(method, m)) {
                PathPattern.Match pm = pathMatch.get();
                return new Result.Matched(route, path, pm.variables(), pm.remainder());
            }
            if (cors[i] && (announced != null || (announced = announcedMethod(method, headers)) != null)) {
                PathPattern.Match pm = pathMatch.get();
                Result.Matched matched = new Result.Matched(route, path, pm.variables(), pm.remainder());
                if (m.methods().contains(announced)) {
                    return matched;
                }
                if (preflightRoute == null) {
                    preflightRoute = matched;
                }
            }
            if (allowed == null) {
                allowed = new TreeSet<>();
            }
            allowed.addAll(m.methods());
            if (m.methods().contains("GET")) {
                allowed.add("HEAD");
            }
        }
        if (preflightRoute != null) {
            return preflightRoute; // no route takes the announced method: its cors filter refuses it
        }
        return allowed == null
                ? Result.NotFound.INSTANCE
                : new Result.MethodNotAllowed(java.util.Collections.unmodifiableSortedSet(allowed));
    }

    /**
     * The method a CORS preflight ({@code OPTIONS} with {@code Origin} and {@code
     * Access-Control-Request-Method}) announces, or null when the request is none. A preflight is
     * routed as the request it asks about: to the first route with a {@code cors} filter that takes
     * the announced method, else to the first route with a {@code cors} filter whose path matched
     * (its filter then refuses the method), so that a {@code cors} filter answers it whatever the
     * route's {@code methods}.
     */
    private static String announcedMethod(String method, Function<String, String> headers) {
        if (!method.equals("OPTIONS") || headers.apply("origin") == null) {
            return null;
        }
        String announced = headers.apply("access-control-request-method");
        return announced == null ? null : announced.strip();
    }

    /**
     * A {@code HEAD} on a route that serves {@code GET} (RFC 9110 §9.3.2: a server that answers GET
     * answers HEAD with the same head and no body): a proxy route forwards it as {@code HEAD}, a
     * composition answers it from its configuration ({@code dev.sluice.compose.ComposedHead}).
     */
    private static boolean headOfGet(String method, RouteMatch m) {
        return method.equals("HEAD") && m.methods().contains("GET");
    }

    private static boolean hostMatches(RouteMatch m, String host) {
        if (m.host().isEmpty()) {
            return true;
        }
        if (host == null) {
            return false;
        }
        int colon = host.lastIndexOf(':');
        String name = colon > 0 && host.indexOf(']') < colon ? host.substring(0, colon) : host;
        return name.toLowerCase(Locale.ROOT).equals(m.host().get().toLowerCase(Locale.ROOT));
    }

    private static boolean valuesMatch(Map<String, ValueMatch> required, Function<String, String> values) {
        if (required.isEmpty()) {
            return true;
        }
        for (Map.Entry<String, ValueMatch> e : required.entrySet()) {
            if (!e.getValue().test(values.apply(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    private static boolean cookiesMatch(Map<String, ValueMatch> required, String cookie) {
        for (Map.Entry<String, ValueMatch> e : required.entrySet()) {
            if (!e.getValue().test(Cookies.value(cookie, e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /** The {@code Cookie} fields of a request as one header value, or null when it has none. */
    public static String joinedCookies(List<String> fields) {
        return switch (fields.size()) {
            case 0 -> null;
            case 1 -> fields.getFirst();
            default -> String.join("; ", fields);
        };
    }

    /** What {@link #match} found. */
    public sealed interface Result {
        /**
         * A route matched {@code path}, the normalised request path (the one to forward, never the raw
         * one); {@code variables} are its path variables, still percent-encoded, {@code remainder} the
         * wildcard's part of it.
         */
        record Matched(RouteConfig route, String path, Map<String, String> variables, String remainder)
                implements Result {}

        /** The request path cannot be normalised ({@link RequestPath.Rejected}): answer 400 with the reason. */
        record BadPath(String reason) implements Result {}

        /** A route matched the path but not the method: answer 405 with {@code Allow}; {@code allowed} iterates sorted. */
        record MethodNotAllowed(Set<String> allowed) implements Result {}

        /** Nothing matched: answer 404. */
        enum NotFound implements Result {
            INSTANCE
        }
    }
}
