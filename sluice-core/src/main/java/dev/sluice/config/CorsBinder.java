package dev.sluice.config;

import dev.sluice.policy.CorsOrigins;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Binds the {@code cors:} filter, every problem by its path ({@code cors.allowed-origins[1]}). */
final class CorsBinder {

    private static final String ORIGIN_EXPECTED =
            "an origin such as https://shop.example or http://localhost:3000 (scheme, host and port, no path),"
                    + " a pattern such as https://*.example.com, or '*'";

    private final List<Problem> problems;

    CorsBinder(List<Problem> problems) {
        this.problems = problems;
    }

    Optional<FilterConfig> cors(Object body, String path) {
        Optional<Mapping> section =
                Mapping.of(body, path, "a mapping with allowed-origins, allowed-methods and allowed-headers", problems);
        if (section.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = section.get();
        m.allowOnly(
                "allowed-origins",
                "allowed-methods",
                "allowed-headers",
                "expose-headers",
                "allow-credentials",
                "max-age");
        int before = problems.size();
        if (!m.has("allowed-origins")) {
            m.problem("allowed-origins", "missing (expected: a list of " + ORIGIN_EXPECTED + ")");
        }
        List<String> origins = origins(m);
        List<String> methods = tokens(m, "allowed-methods", "a method such as GET or PUT, or '*'", true, false);
        List<String> headers = tokens(m, "allowed-headers", "a header name such as content-type, or '*'", true, true);
        List<String> expose = tokens(m, "expose-headers", "a header name such as x-request-id, or '*'", true, false);
        boolean credentials = m.bool("allow-credentials", false);
        Optional<Duration> maxAge = m.duration("max-age");
        if (credentials) {
            starWithCredentials(m, "allowed-origins", origins);
            starWithCredentials(m, "expose-headers", expose);
        }
        if (problems.size() != before) {
            return Optional.empty();
        }
        return Optional.of(new FilterConfig.Cors(
                origins,
                m.has("allowed-methods") ? methods : FilterConfig.Cors.DEFAULT_METHODS,
                headers,
                expose,
                credentials,
                maxAge));
    }

    /** Browsers ignore a '*' with credentials: a configuration that relies on one is refused. */
    private void starWithCredentials(Mapping m, String key, List<String> values) {
        if (values.contains("*")) {
            m.problem(
                    key,
                    "'*' with allow-credentials: true (expected: the origins listed one by one; browsers refuse"
                            + " a wildcard on a request with credentials)");
        }
    }

    private List<String> origins(Mapping m) {
        List<?> list = m.list("allowed-origins", "a list of origins").orElse(List.of());
        if (m.has("allowed-origins") && m.raw("allowed-origins") instanceof List<?> && list.isEmpty()) {
            m.problem("allowed-origins", "an empty list (expected: at least one origin)");
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            Object item = list.get(i);
            Optional<String> origin = item instanceof String s ? CorsOrigins.normalise(s.strip()) : Optional.empty();
            if (origin.isEmpty()) {
                m.problem(
                        "allowed-origins[" + i + "]",
                        (item instanceof String s ? "'" + Redact.url(s) + "'" : Mapping.describe(item)) + " (expected: "
                                + ORIGIN_EXPECTED + ")");
            } else if (!out.contains(origin.get())) {
                out.add(origin.get());
            }
        }
        if (out.contains("*") && list.size() > 1) {
            m.problem("allowed-origins", "'*' with other origins (expected: '*' alone, or origins without '*')");
        }
        return out;
    }

    /** A list of HTTP tokens (methods as written, header names in lower case if {@code lower}). */
    private List<String> tokens(Mapping m, String key, String expected, boolean star, boolean lower) {
        List<?> list = m.list(key, "a list of " + expected).orElse(List.of());
        List<String> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            Object item = list.get(i);
            if (item instanceof String s && ((star && s.equals("*")) || Headers.isToken(s))) {
                String value = lower ? s.toLowerCase(Locale.ROOT) : s;
                if (!out.contains(value)) {
                    out.add(value);
                }
            } else {
                m.problem(key + "[" + i + "]", Mapping.describe(item) + " (expected: " + expected + ")");
            }
        }
        return out;
    }
}
