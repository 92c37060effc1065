package dev.sluice.spi;

import static java.util.Objects.requireNonNull;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code settings:} of a route's {@code custom} filter, read-only and typed: what a {@link
 * PolicyFactory} makes its policy from. A read that finds a key missing or of the wrong kind throws
 * {@link Invalid}, naming the key; the gateway then refuses the configuration with the key's full
 * path ({@code routes[0].filters[1].custom.settings.allowed: missing (expected: a list of tenants)}),
 * listed with its other problems, as for any built-in filter.
 *
 * <p>Values are what YAML wrote, after {@code ${VAR}} and {@code secret-file} were put in place;
 * scalars read as text ({@code 42} as {@code "42"}). {@link #toString()} names the keys, never a value
 * (a setting may be a secret).
 */
public final class PolicySettings {

    /** No settings: {@code custom: {policy: NAME}}. */
    public static final PolicySettings EMPTY = new PolicySettings(Map.of(), "");

    private final Map<String, Object> values; // deeply unmodifiable
    private final String prefix; // the key path of this mapping inside the filter's settings, "" at the top

    private PolicySettings(Map<String, Object> values, String prefix) {
        this.values = values;
        this.prefix = prefix;
    }

    /**
     * Settings as YAML would bind them: strings, numbers, booleans, lists and mappings of them (a map's
     * keys are read as text). For tests, and for a configuration built from the records.
     */
    public static PolicySettings of(Map<?, ?> values) {
        requireNonNull(values, "values");
        return new PolicySettings(frozen(values), "");
    }

    /** The keys, in the order the file wrote them. */
    public Set<String> keys() {
        return values.keySet();
    }

    public boolean has(String key) {
        return values.containsKey(key);
    }

    /** A scalar's text; {@link Invalid} when absent ("missing") or not a scalar. */
    public String require(String key) {
        return require(key, "a value");
    }

    /**
     * A scalar's text; {@link Invalid} when absent or not a scalar, its message ending in {@code
     * (expected: <expected>)}.
     */
    public String require(String key, String expected) {
        if (!values.containsKey(key)) {
            throw invalid(key, "missing (expected: " + expected + ")");
        }
        return string(key, expected).orElseThrow();
    }

    /** A scalar's text, empty when absent; {@link Invalid} when it is not a scalar. */
    public Optional<String> string(String key) {
        return string(key, "a value");
    }

    private Optional<String> string(String key, String expected) {
        if (!values.containsKey(key)) {
            return Optional.empty();
        }
        Object value = values.get(key);
        if (value instanceof String || value instanceof Number || value instanceof Boolean) {
            return Optional.of(String.valueOf(value));
        }
        throw invalid(key, describe(value) + " (expected: " + expected + ")");
    }

    /** A whole number, {@code defaultValue} when absent; {@link Invalid} when it is not one. */
    public long integer(String key, long defaultValue) {
        if (!values.containsKey(key)) {
            return defaultValue;
        }
        Object value = values.get(key);
        if (value instanceof Integer || value instanceof Long) {
            return ((Number) value).longValue();
        }
        if (value instanceof BigInteger b && b.bitLength() < 64) {
            return b.longValue();
        }
        throw invalid(key, describe(value) + " (expected: a whole number)");
    }

    /** {@code true} or {@code false}, {@code defaultValue} when absent; {@link Invalid} otherwise. */
    public boolean bool(String key, boolean defaultValue) {
        if (!values.containsKey(key)) {
            return defaultValue;
        }
        if (values.get(key) instanceof Boolean b) {
            return b;
        }
        throw invalid(key, describe(values.get(key)) + " (expected: true or false)");
    }

    /** A list of scalars as text, empty when absent; {@link Invalid} when it is not one. */
    public List<String> strings(String key) {
        if (!values.containsKey(key)) {
            return List.of();
        }
        if (!(values.get(key) instanceof List<?> list)) {
            throw invalid(key, describe(values.get(key)) + " (expected: a list of values)");
        }
        List<String> texts = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            Object item = list.get(i);
            if (!(item instanceof String || item instanceof Number || item instanceof Boolean)) {
                throw invalid(key + "[" + i + "]", describe(item) + " (expected: a value)");
            }
            texts.add(String.valueOf(item));
        }
        return List.copyOf(texts);
    }

    /** A mapping of scalars as text, in file order, empty when absent; {@link Invalid} when it is not one. */
    public Map<String, String> map(String key) {
        PolicySettings nested = settings(key);
        Map<String, String> texts = new LinkedHashMap<>();
        for (String name : nested.keys()) {
            texts.put(name, nested.require(name));
        }
        return Collections.unmodifiableMap(texts);
    }

    /** A nested mapping, empty when absent; {@link Invalid} when it is not a mapping. Its keys are named by path. */
    @SuppressWarnings("unchecked")
    public PolicySettings settings(String key) {
        if (!values.containsKey(key)) {
            return new PolicySettings(Map.of(), path(key));
        }
        if (!(values.get(key) instanceof Map<?, ?> map)) {
            throw invalid(key, describe(values.get(key)) + " (expected: a mapping)");
        }
        return new PolicySettings((Map<String, Object>) map, path(key));
    }

    /** {@link Invalid} for the first key not in {@code allowed}: a misspelt setting is a problem, not a default. */
    public void allowOnly(String... allowed) {
        List<String> known = Arrays.asList(allowed);
        for (String key : values.keySet()) {
            if (!known.contains(key)) {
                throw invalid(key, "unknown setting (expected: one of " + String.join(", ", allowed) + ")");
            }
        }
    }

    /**
     * What a factory throws for a setting it refuses on its own terms: {@code throw
     * settings.invalid("allowed", "[] (expected: at least one tenant)")}.
     */
    public Invalid invalid(String key, String problem) {
        return new Invalid(path(key), problem);
    }

    private String path(String key) {
        return prefix.isEmpty() ? key : prefix + "." + key;
    }

    private static String describe(Object value) {
        if (value == null) {
            return "no value";
        }
        if (value instanceof Map<?, ?>) {
            return "a mapping";
        }
        if (value instanceof List<?>) {
            return "a list";
        }
        return value instanceof String s ? "'" + s + "'" : String.valueOf(value);
    }

    /** A deep, unmodifiable copy; map keys as text, nulls kept (a key written without a value). */
    private static Map<String, Object> frozen(Map<?, ?> map) {
        Map<String, Object> copy = new LinkedHashMap<>();
        map.forEach((k, v) -> copy.put(String.valueOf(k), frozenValue(v)));
        return Collections.unmodifiableMap(copy);
    }

    private static Object frozenValue(Object value) {
        if (value instanceof Map<?, ?> m) {
            return frozen(m);
        }
        if (value instanceof List<?> l) {
            List<Object> copy = new ArrayList<>(l.size());
            l.forEach(item -> copy.add(frozenValue(item)));
            return Collections.unmodifiableList(copy);
        }
        return value;
    }

    /** Equal settings: the same keys and values (a reload compares them). */
    @Override
    public boolean equals(Object o) {
        return o instanceof PolicySettings other && values.equals(other.values) && prefix.equals(other.prefix);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return "PolicySettings" + values.keySet(); // never a value
    }

    /**
     * A setting the factory refuses: the configuration is refused with the problem at {@code
     * settings.<key>}.
     */
    public static final class Invalid extends IllegalArgumentException {
        private final String key;
        private final String problem;

        public Invalid(String key, String problem) {
            super(key + ": " + problem);
            this.key = requireNonNull(key, "key");
            this.problem = requireNonNull(problem, "problem");
        }

        /** The key's path inside the settings: {@code allowed}, {@code plans.acme}, {@code allowed[2]}. */
        public String key() {
            return key;
        }

        /** What is wrong, as a configuration problem says it: {@code missing (expected: ...)}. */
        public String problem() {
            return problem;
        }
    }
}
