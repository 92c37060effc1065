package dev.sluice.config;

import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A YAML mapping at a known path, read key by key. Every read that finds a bad value records a
 * {@link Problem} and returns the default (or empty), so binding goes on and every problem is
 * listed.
 */
final class Mapping {

    private final Map<?, ?> map;
    private final String path;
    private final List<Problem> problems;

    private Mapping(Map<?, ?> map, String path, List<Problem> problems) {
        this.map = map;
        this.path = path;
        this.problems = problems;
    }

    /** {@code value} as a mapping; {@code null} reads as an empty mapping; anything else is a problem. */
    static Optional<Mapping> of(Object value, String path, String expected, List<Problem> problems) {
        if (value == null) {
            return Optional.of(new Mapping(Map.of(), path, problems));
        }
        if (value instanceof Map<?, ?> m) {
            return Optional.of(new Mapping(m, path, problems));
        }
        problems.add(new Problem(path, describe(value) + " (expected: " + expected + ")"));
        return Optional.empty();
    }

    /** How a value is named in a message: {@code 'text'}, {@code 42}, {@code a list}, {@code a mapping}. */
    static String describe(Object value) {
        if (value == null) {
            return "no value";
        }
        if (value instanceof Map<?, ?>) {
            return "a mapping";
        }
        if (value instanceof List<?>) {
            return "a list";
        }
        if (value instanceof String s) {
            return "'" + s + "'";
        }
        return String.valueOf(value);
    }

    String path() {
        return path;
    }

    String child(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    List<Problem> problems() {
        return problems;
    }

    boolean has(String key) {
        return map.containsKey(key);
    }

    Object raw(String key) {
        return map.get(key);
    }

    /** The keys, in file order, as strings. */
    List<String> keys() {
        List<String> keys = new ArrayList<>(map.size());
        for (Object key : map.keySet()) {
            keys.add(String.valueOf(key));
        }
        return keys;
    }

    /** The entries, in file order, keys as strings. */
    List<Map.Entry<String, Object>> entries() {
        List<Map.Entry<String, Object>> entries = new ArrayList<>(map.size());
        for (Map.Entry<?, ?> e : map.entrySet()) {
            entries.add(new java.util.AbstractMap.SimpleImmutableEntry<>(String.valueOf(e.getKey()), e.getValue()));
        }
        return entries;
    }

    void problem(String key, String message) {
        problems.add(new Problem(child(key), message));
    }

    /** Records a problem for every key not in {@code allowed}. */
    void allowOnly(String... allowed) {
        List<String> known = Arrays.asList(allowed);
        for (String key : keys()) {
            if (!known.contains(key)) {
                problem(key, "unknown key (expected: one of " + String.join(", ", allowed) + ")");
            }
        }
    }

    /** Records a problem when {@code key} is absent. */
    boolean require(String key, String expected) {
        if (!map.containsKey(key)) {
            problem(key, "missing (expected: " + expected + ")");
            return false;
        }
        return true;
    }

    /** A string (numbers and booleans are taken as their text), or empty when absent or not a scalar. */
    Optional<String> string(String key, String expected) {
        if (!map.containsKey(key)) {
            return Optional.empty();
        }
        Object value = map.get(key);
        if (value instanceof String s) {
            return Optional.of(s);
        }
        if (value instanceof Number || value instanceof Boolean) {
            return Optional.of(String.valueOf(value));
        }
        problem(key, describe(value) + " (expected: " + expected + ")");
        return Optional.empty();
    }

    /** A non-empty string that must be present. */
    Optional<String> requiredString(String key, String expected) {
        if (!require(key, expected)) {
            return Optional.empty();
        }
        Optional<String> s = string(key, expected);
        if (s.isPresent() && s.get().isBlank()) {
            problem(key, "'" + s.get() + "' (expected: " + expected + ")");
            return Optional.empty();
        }
        return s;
    }

    /** An integer in {@code [min, max]}. */
    Optional<Integer> integer(String key, long min, long max, String expected) {
        if (!map.containsKey(key)) {
            return Optional.empty();
        }
        Object value = map.get(key);
        if (value instanceof Integer || value instanceof Long || value instanceof BigInteger) {
            BigInteger big = value instanceof BigInteger b ? b : BigInteger.valueOf(((Number) value).longValue());
            if (big.compareTo(BigInteger.valueOf(min)) >= 0 && big.compareTo(BigInteger.valueOf(max)) <= 0) {
                return Optional.of(big.intValue());
            }
        }
        problem(key, describe(value) + " (expected: " + expected + ")");
        return Optional.empty();
    }

    int integer(String key, int defaultValue, long min, long max, String expected) {
        return integer(key, min, max, expected).orElse(defaultValue);
    }

    /** A size in bytes in {@code [min, Integer.MAX_VALUE]}: an integer or text such as {@code 16KiB}. */
    int size(String key, int defaultValue, long min, String expected) {
        if (!map.containsKey(key)) {
            return defaultValue;
        }
        Object value = map.get(key);
        OptionalLong bytes = OptionalLong.empty();
        if (value instanceof Integer || value instanceof Long) {
            bytes = OptionalLong.of(((Number) value).longValue());
        } else if (value instanceof String s) {
            bytes = Quantities.size(s);
        }
        if (bytes.isPresent() && bytes.getAsLong() >= min && bytes.getAsLong() <= Integer.MAX_VALUE) {
            return (int) bytes.getAsLong();
        }
        problem(key, describe(value) + " (expected: " + expected + ")");
        return defaultValue;
    }

    /** A size in bytes in {@code [min, Long.MAX_VALUE]}: an integer or text such as {@code 10MiB}. */
    long longSize(String key, long defaultValue, long min, String expected) {
        if (!map.containsKey(key)) {
            return defaultValue;
        }
        Object value = map.get(key);
        OptionalLong bytes = OptionalLong.empty();
        if (value instanceof Integer || value instanceof Long) {
            bytes = OptionalLong.of(((Number) value).longValue());
        } else if (value instanceof String s) {
            bytes = Quantities.size(s);
        }
        if (bytes.isPresent() && bytes.getAsLong() >= min) {
            return bytes.getAsLong();
        }
        problem(key, describe(value) + " (expected: " + expected + ")");
        return defaultValue;
    }

    /** A positive duration such as {@code 250ms}. */
    Optional<Duration> duration(String key) {
        if (!map.containsKey(key)) {
            return Optional.empty();
        }
        Object value = map.get(key);
        Optional<Duration> d = value instanceof String s ? Quantities.duration(s) : Optional.empty();
        if (d.isEmpty()) {
            problem(key, describe(value) + " (expected: " + Quantities.DURATION_EXPECTED + ")");
        }
        return d;
    }

    Duration duration(String key, Duration defaultValue) {
        return duration(key).orElse(defaultValue);
    }

    boolean bool(String key, boolean defaultValue) {
        if (!map.containsKey(key)) {
            return defaultValue;
        }
        Object value = map.get(key);
        if (value instanceof Boolean b) {
            return b;
        }
        problem(key, describe(value) + " (expected: true or false)");
        return defaultValue;
    }

    /** One of {@code allowed}; returns {@code defaultValue} when absent or not allowed. */
    String choice(String key, String defaultValue, String... allowed) {
        if (!map.containsKey(key)) {
            return defaultValue;
        }
        Object value = map.get(key);
        if (value instanceof String s && Arrays.asList(allowed).contains(s)) {
            return s;
        }
        problem(key, describe(value) + " (expected: one of " + String.join(", ", allowed) + ")");
        return defaultValue;
    }

    /** A nested mapping; empty when absent or not a mapping (a problem then). */
    Optional<Mapping> mapping(String key, String expected) {
        if (!map.containsKey(key)) {
            return Optional.empty();
        }
        return of(map.get(key), child(key), expected, problems);
    }

    /** A list; empty when absent or not a list (a problem then). */
    Optional<List<?>> list(String key, String expected) {
        if (!map.containsKey(key)) {
            return Optional.empty();
        }
        Object value = map.get(key);
        if (value instanceof List<?> l) {
            return Optional.of(l);
        }
        problem(key, describe(value) + " (expected: " + expected + ")");
        return Optional.empty();
    }
}
