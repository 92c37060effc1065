package dev.sluice.http;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/** Reads and trims a raw query string ({@code a=1&b=2}, without the '?') the same way in every engine. */
public final class QueryString {

    private QueryString() {}

    /** The decoded value of the first parameter named {@code name} (decoded), "" when it has none, or null. */
    public static String first(String rawQuery, String name) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return null;
        }
        String[] found = {null};
        walk(rawQuery, (start, eq, end) -> {
            if (!decode(rawQuery.substring(start, eq < 0 ? end : eq)).equals(name)) {
                return true;
            }
            found[0] = eq < 0 ? "" : decode(rawQuery.substring(eq + 1, end));
            return false;
        });
        return found[0];
    }

    /**
     * The decoded parameters of {@code rawQuery} (may be null), the first value per decoded name, ""
     * for a name without {@code =}; parsed on first use, so a route whose templates never ask costs
     * one small object. Every engine's templates read query values through this one map, so they
     * decode alike (a malformed escape is kept as the raw text, never an error).
     */
    public static Map<String, String> parameters(String rawQuery) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return Map.of();
        }
        return new Parameters(rawQuery);
    }

    /** A query's parameters, first value per name, parsed on first use; {@link #all} has every value. */
    public static final class Parameters extends AbstractMap<String, String> {
        private final String rawQuery;
        private Map<String, String> values;

        private Parameters(String rawQuery) {
            this.rawQuery = rawQuery;
        }

        private Map<String, String> parsed() {
            if (values == null) {
                values = parse(rawQuery);
            }
            return values;
        }

        @Override
        public String get(Object key) {
            return parsed().get(key);
        }

        @Override
        public Set<Entry<String, String>> entrySet() {
            return parsed().entrySet();
        }

        /** Every decoded value of the parameters named {@code name}, in order ("" for one without {@code =}). */
        public java.util.List<String> all(String name) {
            java.util.List<String> all = new java.util.ArrayList<>();
            walk(rawQuery, (start, eq, end) -> {
                if (decode(rawQuery.substring(start, eq < 0 ? end : eq)).equals(name)) {
                    all.add(eq < 0 ? "" : decode(rawQuery.substring(eq + 1, end)));
                }
                return true;
            });
            return all;
        }
    }

    private static Map<String, String> parse(String rawQuery) {
        Map<String, String> values = new HashMap<>();
        walk(rawQuery, (start, eq, end) -> {
            values.putIfAbsent(
                    decode(rawQuery.substring(start, eq < 0 ? end : eq)),
                    eq < 0 ? "" : decode(rawQuery.substring(eq + 1, end)));
            return true;
        });
        return values;
    }

    /**
     * {@code rawQuery} without every parameter whose decoded name is in {@code names}, the others
     * kept as the client sent them; null when none is left.
     */
    public static String without(String rawQuery, Set<String> names) {
        StringBuilder kept = new StringBuilder(rawQuery.length());
        walk(rawQuery, (start, eq, end) -> {
            if (!names.contains(decode(rawQuery.substring(start, eq < 0 ? end : eq)))) {
                if (!kept.isEmpty()) {
                    kept.append('&');
                }
                kept.append(rawQuery, start, end);
            }
            return true;
        });
        return kept.isEmpty() ? null : kept.toString();
    }

    /** One non-empty {@code name[=value]} of a query: its start, its '=' (or -1), its end. */
    private interface Parameter {
        /** @return whether to go on to the next parameter */
        boolean at(int start, int eq, int end);
    }

    /** Calls {@code visit} with each non-empty parameter of {@code rawQuery}, in order. */
    private static void walk(String rawQuery, Parameter visit) {
        int start = 0;
        while (start <= rawQuery.length()) {
            int amp = rawQuery.indexOf('&', start);
            int end = amp < 0 ? rawQuery.length() : amp;
            if (end > start) {
                int eq = rawQuery.indexOf('=', start);
                if (!visit.at(start, eq >= 0 && eq < end ? eq : -1, end)) {
                    return;
                }
            }
            start = end + 1;
        }
    }

    private static String decode(String s) {
        if (s.indexOf('%') < 0 && s.indexOf('+') < 0) {
            return s;
        }
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return s; // a malformed escape: the raw text
        }
    }
}
