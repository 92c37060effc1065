package dev.sluice.config;

import dev.sluice.routing.PathPattern;
import dev.sluice.routing.ValueMatch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.PatternSyntaxException;

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

    private static final List<String> TARGETS = List.of("proxy", "compose", "redirect", "respond");
    private static final String TARGET_NAMES = "proxy, compose, redirect, respond";

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
        m.allowOnly("id", "match", "proxy", "compose", "redirect", "respond", "filters");
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
        if (m.require("match", "a mapping with path and optional methods, host, headers, query, cookies")) {
            match = m.mapping("match", "a mapping with path and optional methods, host, headers, query, cookies")
                    .flatMap(this::match);
        }
        match.ifPresent(rm ->
                matched.add(new Matched(index, id.map(s -> "'" + s + "'").orElse("routes[" + index + "]"), rm)));
        Optional<PathPattern> routePath = match.map(RouteMatch::path);
        Optional<Target> target = Optional.empty();
        List<String> kinds = TARGETS.stream().filter(m::has).toList();
        if (kinds.size() > 1) {
            problems.add(new Problem(
                    m.path(),
                    "both " + String.join(" and ", kinds) + " (expected: exactly one of " + TARGET_NAMES + ")"));
        } else if (kinds.isEmpty()) {
            problems.add(new Problem(m.path(), "none of " + TARGET_NAMES + " (expected: exactly one of them)"));
        } else {
            target = switch (kinds.get(0)) {
                case "proxy" ->
                    m.mapping("proxy", "a mapping with upstream and optional strip-prefix, path, rewrite, timeout")
                            .flatMap(p -> targets.proxy(p, routePath));
                case "compose" ->
                    m.mapping(
                                    "compose",
                                    "a mapping with parts and optional fanout, order, on-error, timeout, validate-json")
                            .flatMap(c -> targets.compose(c, routePath));
                case "redirect" ->
                    m.mapping("redirect", "a mapping with to (or https: true) and optional status, keep-query")
                            .flatMap(r -> AnswerBinder.redirect(r, routePath, problems));
                default ->
                    m.mapping("respond", "a mapping with status and optional body, content-type")
                            .flatMap(r -> AnswerBinder.respond(r, problems));
            };
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
        m.allowOnly("path", "methods", "host", "headers", "query", "cookies");
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
        Map<String, ValueMatch> headers = m.mapping("headers", "a mapping of header name to " + VALUE_EXPECTED)
                .map(h -> valueMatches(h, Kind.HEADER))
                .orElse(Map.of());
        Map<String, ValueMatch> query = m.mapping("query", "a mapping of query parameter name to " + VALUE_EXPECTED)
                .map(q -> valueMatches(q, Kind.QUERY))
                .orElse(Map.of());
        Map<String, ValueMatch> cookies = m.mapping("cookies", "a mapping of cookie name to " + VALUE_EXPECTED)
                .map(c -> valueMatches(c, Kind.COOKIE))
                .orElse(Map.of());
        if (path.isEmpty() || problems.size() != before) {
            return Optional.empty();
        }
        return Optional.of(new RouteMatch(path.get(), methods, host, headers, query, cookies));
    }

    private static final String VALUE_EXPECTED =
            "a value, present, absent, '*' (present), or one of {exact: v}, {prefix: p}, {regex: r}";

    /** What a {@code match} value map names: headers (case ignored), query parameters, cookies. */
    private enum Kind {
        HEADER("a header name of letters, digits and !#$%&'*+-.^_`|~"),
        QUERY("a non-empty query parameter name"),
        COOKIE("a cookie name of letters, digits and !#$%&'*+-.^_`|~");

        final String expected;

        Kind(String expected) {
            this.expected = expected;
        }
    }

    /**
     * A mapping of name → {@link ValueMatch}: a scalar is an exact value, except {@code present} (and
     * today's {@code *}) and {@code absent}; a one-key mapping {@code exact}, {@code prefix} or {@code
     * regex} (compiled here, once; full match). Header names are lower-cased.
     */
    private Map<String, ValueMatch> valueMatches(Mapping m, Kind kind) {
        Map<String, ValueMatch> matches = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : m.entries()) {
            String name = e.getKey();
            boolean nameOk = kind == Kind.QUERY ? !name.isEmpty() : Headers.isToken(name);
            if (!nameOk) {
                m.problem(name, "'" + name + "' (expected: " + kind.expected + ")");
                continue;
            }
            Optional<ValueMatch> match = valueMatch(m, name, e.getValue(), kind);
            if (match.isEmpty()) {
                continue;
            }
            String key = kind == Kind.HEADER ? name.toLowerCase(Locale.ROOT) : name;
            if (matches.putIfAbsent(key, match.get()) != null) {
                m.problem(name, "'" + name + "' is given twice, ignoring case (expected: each header once)");
            }
        }
        return matches;
    }

    private Optional<ValueMatch> valueMatch(Mapping m, String name, Object value, Kind kind) {
        if (value instanceof String || value instanceof Number || value instanceof Boolean) {
            String text = String.valueOf(value);
            return switch (text) {
                case "present", "*" -> Optional.of(ValueMatch.Present.INSTANCE);
                case "absent" -> Optional.of(ValueMatch.Absent.INSTANCE);
                default -> checkedValue(m, name, text, kind).map(ValueMatch.Exact::new);
            };
        }
        if (!(value instanceof Map<?, ?>)) {
            m.problem(name, Mapping.describe(value) + " (expected: " + VALUE_EXPECTED + ")");
            return Optional.empty();
        }
        Optional<Mapping> form = Mapping.of(value, m.child(name), VALUE_EXPECTED, problems);
        if (form.isEmpty()) {
            return Optional.empty();
        }
        Mapping f = form.get();
        f.allowOnly("exact", "prefix", "regex");
        List<String> keys = f.keys();
        if (keys.size() != 1) {
            problems.add(
                    new Problem(f.path(), "" + keys.size() + " keys (expected: exactly one of exact, prefix, regex)"));
            return Optional.empty();
        }
        String form1 = keys.get(0);
        Optional<String> text = f.string(form1, "a string");
        if (text.isEmpty()) {
            return Optional.empty();
        }
        return switch (form1) {
            case "exact" -> checkedValue(f, form1, text.get(), kind).map(ValueMatch.Exact::new);
            case "prefix" -> checkedValue(f, form1, text.get(), kind).map(ValueMatch.Prefix::new);
            case "regex" -> {
                try {
                    yield Optional.of(ValueMatch.Regex.of(text.get()));
                } catch (PatternSyntaxException e) {
                    f.problem(
                            form1,
                            "'" + text.get() + "' is not a valid regular expression: " + e.getDescription()
                                    + " at index " + e.getIndex() + " (expected: a Java regular expression)");
                    yield Optional.empty();
                }
            }
            default -> Optional.empty(); // already a problem (allowOnly)
        };
    }

    /** {@code text} when it can be a value of {@code kind}: a header's or cookie's has no control characters. */
    private static Optional<String> checkedValue(Mapping m, String key, String text, Kind kind) {
        if (kind != Kind.QUERY && !Headers.isValue(text)) {
            m.problem(key, "'" + text + "' (expected: a value without control characters)");
            return Optional.empty();
        }
        return Optional.of(text);
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
        return implied(earlier.headers(), later.headers())
                && implied(earlier.query(), later.query())
                && implied(earlier.cookies(), later.cookies());
    }

    /** Whether every request meeting {@code later}'s requirements meets {@code earlier}'s. */
    private static boolean implied(Map<String, ValueMatch> earlier, Map<String, ValueMatch> later) {
        for (Map.Entry<String, ValueMatch> e : earlier.entrySet()) {
            ValueMatch mine = later.get(e.getKey());
            if (mine == null || !mine.impliedBy(e.getValue())) {
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
