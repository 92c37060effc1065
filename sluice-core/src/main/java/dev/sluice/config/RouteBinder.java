package dev.sluice.config;

import dev.sluice.routing.PathPattern;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Binds {@code routes:}, checks ids are unique and that no route is shadowed by an earlier one. */
final class RouteBinder {

    private static final String ID_EXPECTED = "a route id of letters, digits, '.', '_' and '-'";

    private final List<Problem> problems;
    private final TargetBinder targets;

    /** @param redis whether the configuration has a top-level {@code redis:} (which {@code store: redis} needs) */
    RouteBinder(Set<String> upstreams, java.nio.file.Path base, boolean redis, List<Problem> problems) {
        this.problems = problems;
        this.targets = new TargetBinder(upstreams, base, redis, problems);
    }

    /** A route whose match bound, kept for the shadowing check. */
    private record Matched(int index, String name, RouteMatch match) {}

    List<RouteConfig> routes(Mapping root) {
        List<RouteConfig> routes = new ArrayList<>();
        if (!root.require("routes", "a list of at least one route")) {
            return routes;
        }
        Optional<List<?>> items = root.list("routes", "a list of routes");
        if (items.isEmpty()) {
            return routes;
        }
        if (items.get().isEmpty()) {
            root.problem("routes", "[] (expected: at least one route)");
            return routes;
        }
        Map<String, Integer> ids = new HashMap<>();
        List<Matched> matched = new ArrayList<>();
        for (int i = 0; i < items.get().size(); i++) {
            int index = i;
            Mapping.of(
                            items.get().get(i),
                            "routes[" + i + "]",
                            "a mapping with id, match and proxy or compose",
                            problems)
                    .flatMap(m -> route(index, m, ids, matched))
                    .ifPresent(routes::add);
        }
        checkShadowing(matched);
        return routes;
    }

    private Optional<RouteConfig> route(int index, Mapping m, Map<String, Integer> ids, List<Matched> matched) {
        m.allowOnly("id", "match", "proxy", "compose", "filters");
        int before = problems.size();
        Optional<String> id = m.requiredString("id", ID_EXPECTED);
        if (id.isPresent()) {
            if (!isRouteId(id.get())) {
                m.problem("id", "'" + id.get() + "' (expected: " + ID_EXPECTED + ")");
            }
            Integer earlier = ids.putIfAbsent(id.get(), index);
            if (earlier != null) {
                m.problem(
                        "id",
                        "'" + id.get() + "' is already the id of routes[" + earlier + "] (expected: unique route ids)");
            }
        }
        Optional<RouteMatch> match = Optional.empty();
        if (m.require("match", "a mapping with path and optional methods, host, headers")) {
            match = m.mapping("match", "a mapping with path and optional methods, host, headers")
                    .flatMap(this::match);
        }
        match.ifPresent(rm ->
                matched.add(new Matched(index, id.map(s -> "'" + s + "'").orElse("routes[" + index + "]"), rm)));
        Optional<PathPattern> routePath = match.map(RouteMatch::path);
        Optional<Target> target = Optional.empty();
        boolean proxy = m.has("proxy");
        boolean compose = m.has("compose");
        if (proxy && compose) {
            problems.add(new Problem(m.path(), "both proxy and compose (expected: exactly one of proxy, compose)"));
        } else if (proxy) {
            target = m.mapping("proxy", "a mapping with upstream and optional strip-prefix, path, timeout")
                    .flatMap(p -> targets.proxy(p, routePath));
        } else if (compose) {
            target = m.mapping(
                            "compose",
                            "a mapping with parts and optional fanout, order, on-error, timeout, validate-json")
                    .flatMap(c -> targets.compose(c, routePath));
        } else {
            problems.add(new Problem(m.path(), "neither proxy nor compose (expected: exactly one of proxy, compose)"));
        }
        List<FilterConfig> filters = m.list("filters", "a list of filters such as '- request-headers: {set: {x-a: b}}'")
                .map(list -> targets.filters(list, m.child("filters")))
                .orElse(List.of());
        if (problems.size() != before || id.isEmpty() || match.isEmpty() || target.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new RouteConfig(id.get(), match.get(), target.get(), filters));
    }

    private Optional<RouteMatch> match(Mapping m) {
        m.allowOnly("path", "methods", "host", "headers");
        int before = problems.size();
        Optional<PathPattern> path = m.requiredString("path", "a path such as /products/{id} or /orders/**")
                .flatMap(p -> {
                    try {
                        return Optional.of(PathPattern.parse(p));
                    } catch (IllegalArgumentException e) {
                        m.problem("path", e.getMessage());
                        return Optional.empty();
                    }
                });
        Set<String> methods = new LinkedHashSet<>();
        m.list("methods", "a list of methods such as [GET, POST]").ifPresent(list -> {
            if (list.isEmpty()) {
                m.problem("methods", "[] (expected: at least one method, or no 'methods' key to match any method)");
            }
            for (int j = 0; j < list.size(); j++) {
                Object item = list.get(j);
                String at = m.child("methods") + "[" + j + "]";
                if (item instanceof String s && Headers.isToken(s)) {
                    methods.add(s.toUpperCase(Locale.ROOT));
                } else {
                    problems.add(new Problem(at, Mapping.describe(item) + " (expected: a method such as GET)"));
                }
            }
        });
        Optional<String> host = m.string("host", "a host name without port");
        if (host.isPresent() && !isHost(host.get())) {
            m.problem("host", "'" + host.get() + "' (expected: a host name without port, such as shop.example.com)");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        m.mapping("headers", "a mapping of header name to value, or '*' for any value")
                .ifPresent(h -> headers.putAll(Headers.values(h)));
        if (path.isEmpty() || problems.size() != before) {
            return Optional.empty();
        }
        return Optional.of(new RouteMatch(path.get(), methods, host, headers));
    }

    private void checkShadowing(List<Matched> routes) {
        for (int i = 0; i < routes.size(); i++) {
            Matched later = routes.get(i);
            for (int j = 0; j < i; j++) {
                Matched earlier = routes.get(j);
                if (shadows(earlier.match(), later.match())) {
                    problems.add(
                            new Problem(
                                    "routes[" + later.index() + "].match",
                                    "never matches: route " + earlier.name() + " (routes[" + earlier.index()
                                            + "]) comes first and takes every request it could match (expected: a narrower route before a wider one)"));
                    break;
                }
            }
        }
    }

    /** Whether every request {@code later} matches is taken by {@code earlier}. */
    static boolean shadows(RouteMatch earlier, RouteMatch later) {
        if (!later.path().isShadowedBy(earlier.path())) {
            return false;
        }
        if (!earlier.methods().isEmpty() && !earlier.methods().containsAll(later.methods())) {
            return false;
        }
        if (!earlier.methods().isEmpty() && later.methods().isEmpty()) {
            return false;
        }
        if (earlier.host().isPresent()
                && !(later.host().isPresent()
                        && later.host().get().equalsIgnoreCase(earlier.host().get()))) {
            return false;
        }
        for (Map.Entry<String, String> e : earlier.headers().entrySet()) {
            String mine = later.headers().get(e.getKey());
            if (mine == null || (!e.getValue().equals("*") && !e.getValue().equals(mine))) {
                return false;
            }
        }
        return true;
    }

    private static boolean isRouteId(String id) {
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (!((c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '.'
                    || c == '_'
                    || c == '-')) {
                return false;
            }
        }
        return !id.isEmpty();
    }

    private static boolean isHost(String host) {
        if (host.isEmpty()) {
            return false;
        }
        if (host.length() > 2 && host.startsWith("[") && host.endsWith("]")) {
            return host.substring(1, host.length() - 1)
                    .chars()
                    .allMatch(c -> c == ':' || c == '.' || Character.digit(c, 16) >= 0);
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if (!((c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '.'
                    || c == '-'
                    || c == '_')) {
                return false;
            }
        }
        return true;
    }
}
