package dev.sluice.http;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/** Reads and trims a raw query string ({@code a=1&b=2}, without the '?') the same way in every engine. */
public final class QueryString {

    private QueryString() {}

    /** The decoded value of the first parameter named {@code name} (decoded), "" when it has none, or null. */
    public static String first(String rawQuery, String name) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return null;
        }
        int start = 0;
        while (start <= rawQuery.length()) {
            int amp = rawQuery.indexOf('&', start);
            int end = amp < 0 ? rawQuery.length() : amp;
            if (end > start) {
                int eq = rawQuery.indexOf('=', start);
                boolean hasValue = eq >= 0 && eq < end;
                if (decode(rawQuery.substring(start, hasValue ? eq : end)).equals(name)) {
                    return hasValue ? decode(rawQuery.substring(eq + 1, end)) : "";
                }
            }
            start = end + 1;
        }
        return null;
    }

    /**
     * {@code rawQuery} without every parameter whose decoded name is in {@code names}, the others
     * kept as the client sent them; null when none is left.
     */
    public static String without(String rawQuery, Set<String> names) {
        StringBuilder kept = new StringBuilder(rawQuery.length());
        int start = 0;
        while (start <= rawQuery.length()) {
            int amp = rawQuery.indexOf('&', start);
            int end = amp < 0 ? rawQuery.length() : amp;
            if (end > start) {
                int eq = rawQuery.indexOf('=', start);
                String name = decode(rawQuery.substring(start, eq >= 0 && eq < end ? eq : end));
                if (!names.contains(name)) {
                    if (!kept.isEmpty()) {
                        kept.append('&');
                    }
                    kept.append(rawQuery, start, end);
                }
            }
            start = end + 1;
        }
        return kept.isEmpty() ? null : kept.toString();
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
