package dev.sluice.config;

import dev.sluice.routing.PathRewrite;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Binds the traffic keys of a route's {@code proxy:}: {@code rewrite}, {@code backends}, {@code sticky}, {@code mirror}. */
final class ProxyBinder {

    private ProxyBinder() {}

    /** {@code rewrite: {regex, replacement}}, compiled once; its groups checked against the replacement. */
    static Optional<PathRewrite> rewrite(Mapping proxy, List<Problem> problems) {
        if (!proxy.has("rewrite")) {
            return Optional.empty();
        }
        Optional<Mapping> section = proxy.mapping(
                "rewrite",
                "a mapping with regex and replacement, such as {regex: \"^/api/(.*)\", replacement: \"/v2/$1\"}");
        if (section.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = section.get();
        m.allowOnly("regex", "replacement");
        Optional<String> regex = m.requiredString("regex", "a Java regular expression such as ^/api/(.*)");
        Optional<String> replacement = m.require("replacement", "a path such as /v2/$1")
                ? m.string("replacement", "a path such as /v2/$1")
                : Optional.empty();
        if (regex.isEmpty() || replacement.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(PathRewrite.of(regex.get(), replacement.get()));
        } catch (IllegalArgumentException e) {
            String key = e.getMessage().startsWith("'" + regex.get() + "' is not") ? "regex" : "replacement";
            m.problem(key, e.getMessage());
            return Optional.empty();
        }
    }

    private static final String BACKENDS_EXPECTED =
            "a list of {upstream, weight}, such as [{upstream: v1, weight: 90}," + " {upstream: v2, weight: 10}]";

    /** {@code backends: [{upstream, weight}, ...]} (two or more, distinct, weights summing above 0) and {@code sticky}. */
    static Optional<Backends> backends(Mapping proxy, Set<String> upstreams, List<Problem> problems) {
        int before = problems.size();
        Optional<List<?>> list = proxy.list("backends", BACKENDS_EXPECTED);
        if (list.isEmpty()) {
            return Optional.empty();
        }
        String at = proxy.child("backends");
        if (list.get().size() < 2) {
            proxy.problem("backends", list.get().size() + " backend(s) (expected: two or more; one is 'upstream')");
        }
        List<Backends.Backend> sides = new ArrayList<>();
        long total = 0;
        for (int i = 0; i < list.get().size(); i++) {
            Optional<Mapping> item =
                    Mapping.of(list.get().get(i), at + "[" + i + "]", "a mapping with upstream and weight", problems);
            if (item.isEmpty()) {
                continue;
            }
            Mapping b = item.get();
            b.allowOnly("upstream", "weight");
            Optional<String> name = b.requiredString("upstream", "the name of a declared upstream");
            if (name.isPresent() && !upstreams.contains(name.get())) {
                b.problem(
                        "upstream",
                        "'" + name.get() + "' is not a declared upstream (expected: one of "
                                + String.join(", ", upstreams) + ")");
            } else if (name.isPresent()
                    && sides.stream().anyMatch(s -> s.upstream().equals(name.get()))) {
                b.problem("upstream", "'" + name.get() + "' is already a backend of this route (expected: each once)");
            }
            if (!b.has("weight")) {
                b.problem("weight", "missing (expected: a whole number from 0 to 1000000)");
            }
            int weight = b.integer("weight", 0, 0, 1_000_000, "a whole number from 0 to 1000000");
            total += weight;
            name.ifPresent(n -> sides.add(new Backends.Backend(n, weight)));
        }
        if (total == 0 && problems.size() == before) {
            proxy.problem("backends", "every weight is 0 (expected: at least one above 0)");
        }
        Optional<Backends.Sticky> sticky = sticky(proxy);
        if (problems.size() != before) {
            return Optional.empty();
        }
        return Optional.of(new Backends(sides, sticky));
    }

    private static final String STICKY_EXPECTED = "{cookie: name} or {header: name}";

    private static Optional<Backends.Sticky> sticky(Mapping proxy) {
        Optional<Mapping> section = proxy.mapping("sticky", STICKY_EXPECTED);
        if (section.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = section.get();
        m.allowOnly("cookie", "header");
        if (m.keys().size() != 1) {
            proxy.problem("sticky", m.keys().size() + " keys (expected: " + STICKY_EXPECTED + ")");
            return Optional.empty();
        }
        String kind = m.keys().getFirst();
        Optional<String> name = m.requiredString(kind, "a " + kind + " name");
        if (name.isEmpty()) {
            return Optional.empty();
        }
        if (!Headers.isToken(name.get())) {
            m.problem(
                    kind,
                    "'" + name.get() + "' (expected: a " + kind + " name of letters, digits and !#$%&'*+-.^_`|~)");
            return Optional.empty();
        }
        return Optional.of(new Backends.Sticky(
                kind.equals("cookie") ? Backends.Sticky.Kind.COOKIE : Backends.Sticky.Kind.HEADER, name.get()));
    }

    private static final String MIRROR_EXPECTED =
            "a mapping with upstream and optional percent, max-in-flight, max-body";

    /** {@code mirror: {upstream, percent, max-in-flight, max-body}}. */
    static Optional<MirrorConfig> mirror(Mapping proxy, Set<String> upstreams, List<Problem> problems) {
        Optional<Mapping> section = proxy.mapping("mirror", MIRROR_EXPECTED);
        if (section.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = section.get();
        m.allowOnly("upstream", "percent", "max-in-flight", "max-body");
        int before = problems.size();
        Optional<String> name = m.requiredString("upstream", "the name of a declared upstream");
        if (name.isPresent() && !upstreams.contains(name.get())) {
            m.problem(
                    "upstream",
                    "'" + name.get() + "' is not a declared upstream (expected: one of " + String.join(", ", upstreams)
                            + ")");
        }
        double percent = 100;
        if (m.has("percent")) {
            Object value = m.raw("percent");
            if (value instanceof Number n && n.doubleValue() >= 0 && n.doubleValue() <= 100) {
                percent = n.doubleValue();
            } else {
                m.problem("percent", Mapping.describe(value) + " (expected: a share of requests from 0 to 100)");
            }
        }
        int maxInFlight = m.integer("max-in-flight", 16, 1, 100_000, "a whole number from 1 to 100000");
        String bodyExpected = "a size from 0 to 16MiB, such as 64KiB";
        long maxBody = m.longSize("max-body", MirrorConfig.DEFAULT_MAX_BODY, 0, bodyExpected);
        if (maxBody > MirrorConfig.MOST_MAX_BODY) {
            m.problem("max-body", maxBody + " bytes (expected: " + bodyExpected + ")");
        }
        if (name.isEmpty() || problems.size() != before) {
            return Optional.empty();
        }
        return Optional.of(new MirrorConfig(name.get(), percent, maxInFlight, (int) maxBody));
    }
}
