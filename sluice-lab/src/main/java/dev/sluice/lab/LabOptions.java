package dev.sluice.lab;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The flags of one {@code sluice lab <scenario>} command: {@code --name value} or {@code --name=value};
 * a flag in {@code switches} takes no value. Unknown flags are refused with the list of known ones.
 */
public final class LabOptions {

    private final String scenario;
    private final Map<String, String> values;
    private final List<String> commandLine;

    private LabOptions(String scenario, Map<String, String> values, List<String> commandLine) {
        this.scenario = scenario;
        this.values = values;
        this.commandLine = commandLine;
    }

    /**
     * @param args the scenario name then its flags
     * @param known every flag the scenario accepts (with its leading {@code --})
     * @param switches the flags that take no value
     */
    public static LabOptions parse(List<String> args, Set<String> known, Set<String> switches) throws UsageException {
        requireNonNull(args, "args");
        if (args.isEmpty()) {
            throw new UsageException("no scenario");
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 1; i < args.size(); i++) {
            String arg = args.get(i);
            if (!arg.startsWith("--")) {
                throw new UsageException("'" + arg + "' (expected: a flag such as --duration 60s)");
            }
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            if (!known.contains(name)) {
                throw new UsageException("unknown flag '" + name + "' for " + args.getFirst() + " (expected one of: "
                        + String.join(", ", known.stream().sorted().toList()) + ")");
            }
            if (switches.contains(name)) {
                value = value == null ? "true" : value;
            } else if (value == null) {
                if (i + 1 >= args.size()) {
                    throw new UsageException(name + ": missing value");
                }
                value = args.get(++i);
            }
            values.put(name, value);
        }
        return new LabOptions(args.getFirst(), values, List.copyOf(args));
    }

    public String scenario() {
        return scenario;
    }

    /** The command line as given, for the report. */
    public List<String> commandLine() {
        return commandLine;
    }

    public Optional<String> text(String name) {
        return Optional.ofNullable(values.get(name));
    }

    public boolean flag(String name) {
        return Boolean.parseBoolean(values.getOrDefault(name, "false"));
    }

    public int integer(String name, int fallback, int min, int max) throws UsageException {
        Optional<String> v = text(name);
        if (v.isEmpty()) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(v.get().trim());
            if (n < min || n > max) {
                throw new UsageException(name + ": " + n + " (expected: " + min + ".." + max + ")");
            }
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException(name + ": '" + v.get() + "' (expected: an integer " + min + ".." + max + ")");
        }
    }

    public Duration duration(String name, Duration fallback) throws UsageException {
        Optional<String> v = text(name);
        return v.isEmpty() ? fallback : parseDuration(name, v.get());
    }

    /** A comma-separated list; {@code fallback} when the flag is absent. */
    public List<String> list(String name, List<String> fallback) throws UsageException {
        Optional<String> v = text(name);
        if (v.isEmpty()) {
            return fallback;
        }
        List<String> items = new ArrayList<>();
        for (String s : v.get().split(",")) {
            if (!s.isBlank()) {
                items.add(s.trim());
            }
        }
        if (items.isEmpty()) {
            throw new UsageException(name + ": '' (expected: a comma-separated list)");
        }
        return items;
    }

    /** A comma-separated list of integers, each in {@code min..max}. */
    public List<Integer> integers(String name, List<Integer> fallback, int min, int max) throws UsageException {
        Optional<String> v = text(name);
        if (v.isEmpty()) {
            return fallback;
        }
        List<Integer> items = new ArrayList<>();
        for (String s : list(name, List.of())) {
            try {
                int n = Integer.parseInt(s);
                if (n < min || n > max) {
                    throw new UsageException(name + ": " + n + " (expected: " + min + ".." + max + ")");
                }
                items.add(n);
            } catch (NumberFormatException e) {
                throw new UsageException(name + ": '" + s + "' (expected: integers such as 1,2,4)");
            }
        }
        return items;
    }

    /** {@code 60s}, {@code 500ms}, {@code 5m}, or a plain number of seconds. */
    static Duration parseDuration(String name, String text) throws UsageException {
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        try {
            Duration d;
            if (t.endsWith("ms")) {
                d = Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
            } else if (t.endsWith("s")) {
                d = Duration.ofMillis(Math.round(Double.parseDouble(t.substring(0, t.length() - 1)) * 1000));
            } else if (t.endsWith("m")) {
                d = Duration.ofMillis(Math.round(Double.parseDouble(t.substring(0, t.length() - 1)) * 60_000));
            } else {
                d = Duration.ofMillis(Math.round(Double.parseDouble(t) * 1000));
            }
            if (d.isNegative()) {
                throw new UsageException(name + ": '" + text + "' (expected: a duration >= 0 such as 60s)");
            }
            return d;
        } catch (NumberFormatException e) {
            throw new UsageException(name + ": '" + text + "' (expected: a duration such as 60s, 500ms or 5m)");
        }
    }

    /** The flags every load scenario shares. */
    public static Set<String> common(String... more) {
        Set<String> s = new java.util.TreeSet<>(Set.of(
                "--out", "--pin", "--jdk", "--jvm-flags", "--wrk-threads", "--project", "--warmup", "--duration"));
        s.addAll(Arrays.asList(more));
        return s;
    }
}
