package dev.sluice.tck;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The decoded parameters of a raw query string; the first value of a name wins. */
record Query(Map<String, String> values) {

    static Query parse(String rawQuery) {
        Map<String, String> values = new LinkedHashMap<>();
        if (rawQuery != null && !rawQuery.isEmpty()) {
            for (String pair : rawQuery.split("&")) {
                int eq = pair.indexOf('=');
                String name = decode(eq < 0 ? pair : pair.substring(0, eq));
                values.putIfAbsent(name, eq < 0 ? "" : decode(pair.substring(eq + 1)));
            }
        }
        return new Query(Map.copyOf(values));
    }

    Optional<String> get(String name) {
        return Optional.ofNullable(values.get(name));
    }

    long number(String name, long otherwise) {
        String value = values.get(name);
        if (value == null) {
            return otherwise;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + ": '" + value + "' (expected: a whole number)", e);
        }
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
