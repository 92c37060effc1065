package dev.sluice.app;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The options of one command: {@code --name value}, {@code --name=value} or {@code -c value}.
 * Options may come in any order, each at most once; {@code import} also takes its file as a plain
 * word ({@code sluice import openapi.yaml}).
 */
final class Arguments {

    private static final Map<String, String> SHORT = Map.of("-c", "--config");
    /** Commands that take one word without an option name, and the option it stands for. */
    private static final Map<String, String> POSITIONAL = Map.of("import", "--openapi");

    private final String command;
    private final Map<String, String> values;

    private Arguments(String command, Map<String, String> values) {
        this.command = command;
        this.values = values;
    }

    /**
     * @param args the words after the command
     * @param allowed the long options the command takes, such as {@code --port}
     */
    static Arguments parse(String command, List<String> args, Set<String> allowed) throws UsageException {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String word = args.get(i);
            String name = word;
            String value = null;
            int eq = word.indexOf('=');
            if (word.startsWith("--") && eq > 0) {
                name = word.substring(0, eq);
                value = word.substring(eq + 1);
            }
            name = SHORT.getOrDefault(name, name);
            if (!name.startsWith("-")
                    && POSITIONAL.containsKey(command)
                    && !values.containsKey(POSITIONAL.get(command))) {
                values.put(POSITIONAL.get(command), word);
                continue;
            }
            if (!name.startsWith("-")) {
                throw new UsageException("'" + command + "' takes no argument '" + word + "'");
            }
            if (!allowed.contains(name)) {
                throw new UsageException("'" + command + "' has no option '" + name + "'"
                        + (allowed.isEmpty()
                                ? ""
                                : " (expected: one of "
                                        + String.join(
                                                ", ", allowed.stream().sorted().toList()) + ")"));
            }
            if (value == null) {
                if (i + 1 >= args.size() || args.get(i + 1).startsWith("--")) {
                    throw new UsageException(name + " needs a value");
                }
                value = args.get(++i);
            }
            if (values.putIfAbsent(name, value) != null) {
                throw new UsageException(name + " is given twice");
            }
        }
        return new Arguments(command, values);
    }

    Optional<String> text(String name) {
        return Optional.ofNullable(values.get(name));
    }

    String required(String name, String what) throws UsageException {
        String value = values.get(name);
        if (value == null) {
            throw new UsageException("'" + command + "' needs " + name + " " + what);
        }
        return value;
    }

    /** An integer option within {@code min..max}. */
    Optional<Integer> integer(String name, int min, int max) throws UsageException {
        String text = values.get(name);
        if (text == null) {
            return Optional.empty();
        }
        try {
            int value = Integer.parseInt(text);
            if (value >= min && value <= max) {
                return Optional.of(value);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException(name + ": '" + text + "' (expected: an integer " + min + ".." + max + ")");
    }
}
