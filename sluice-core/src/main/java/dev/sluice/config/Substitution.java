package dev.sluice.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Values the configuration file takes from elsewhere, put in place before the document is bound:
 * {@code ${NAME}} and {@code ${NAME:-default}} in any string value take an environment variable (the
 * default when it is unset or empty; {@code $${} writes a literal {@code ${}), and a value written as
 * {@code {secret-file: PATH}} is that file's text, one final line break dropped, the path relative
 * to the configuration file. A value that is one reference alone and reads as a whole number or
 * {@code true}/{@code false} is that (so {@code port: ${PORT}} is a number). An unset variable without
 * a default, or a file that cannot be read, is a problem at the value's path. What was put in place is
 * never shown: {@link #hide} writes the reference ({@code ${NAME}}, {@code secret-file}) back where a
 * problem would have echoed it.
 */
final class Substitution {

    private static final String SECRET_FILE = "secret-file";
    private static final String REFERENCE_EXPECTED = "${NAME} or ${NAME:-default}, NAME of A-Z, a-z, 0-9 and '_'";

    private final Function<String, String> env;
    private final Path base;
    private final List<Problem> problems;
    /** What was put in place, by the path of its value: the text, and how the file wrote it. */
    private final Map<String, List<String[]>> put = new LinkedHashMap<>();
    /** Paths whose value could not be put in place, and the problems that say so. */
    private final java.util.Set<String> failed = new java.util.HashSet<>();

    private final List<Problem> own = new ArrayList<>();
    /** The maps and lists being resolved, from the document down to the current one (by identity). */
    private final java.util.Set<Object> enclosing =
            java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());

    Substitution(Function<String, String> env, Path base, List<Problem> problems) {
        this.env = env;
        this.base = base;
        this.problems = problems;
    }

    /** {@code node} (a parsed YAML document or part of one) with every reference replaced. */
    Object resolve(Object node, String path) {
        if (!(node instanceof Map<?, ?>) && !(node instanceof List<?>)) {
            return node instanceof String text && text.contains("${") ? variables(text, path) : node;
        }
        if (!enclosing.add(node)) { // an alias inside the value it names (&a [*a]): no configuration value is that
            fail(new Problem(path, "a YAML alias names a value that contains it (expected: a value without cycles)"));
            return null;
        }
        try {
            return resolveContainer(node, path);
        } finally {
            enclosing.remove(node);
        }
    }

    private Object resolveContainer(Object node, String path) {
        if (node instanceof Map<?, ?> map) {
            if (map.size() == 1 && map.get(SECRET_FILE) instanceof String file) {
                return secretFile(file, path);
            }
            Map<Object, Object> resolved = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                String key = String.valueOf(e.getKey());
                resolved.put(e.getKey(), resolve(e.getValue(), path.isEmpty() ? key : path + "." + key));
            }
            return resolved;
        }
        List<?> list = (List<?>) node;
        List<Object> resolved = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            resolved.add(resolve(list.get(i), path + "[" + i + "]"));
        }
        return resolved;
    }

    private Object secretFile(String name, String path) {
        Path file;
        try {
            file = base.resolve(name);
        } catch (java.nio.file.InvalidPathException e) {
            fail(new Problem(path, "secret-file '" + name + "' is not a file name (expected: a path)"));
            return null;
        }
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            fail(new Problem(path, "secret-file '" + file + "' does not exist (expected: a readable file)"));
            return null;
        } catch (IOException | RuntimeException e) {
            fail(new Problem(
                    path,
                    "secret-file '" + file + "' cannot be read: " + e.getClass().getSimpleName()
                            + " (expected: a readable UTF-8 file)"));
            return null;
        }
        if (text.endsWith("\r\n")) {
            text = text.substring(0, text.length() - 2);
        } else if (text.endsWith("\n")) {
            text = text.substring(0, text.length() - 1);
        }
        remember(path, text, "(from secret-file)");
        return text;
    }

    private Object variables(String text, String path) {
        StringBuilder out = new StringBuilder(text.length());
        int references = 0;
        int i = 0;
        while (i < text.length()) {
            if (text.startsWith("$${", i)) {
                out.append("${");
                i += 3;
                continue;
            }
            if (!text.startsWith("${", i)) {
                out.append(text.charAt(i++));
                continue;
            }
            int end = text.indexOf('}', i + 2);
            String inside = end < 0 ? text.substring(i + 2) : text.substring(i + 2, end);
            int colon = inside.indexOf(":-");
            String name = colon < 0 ? inside : inside.substring(0, colon);
            if (end < 0 || !isVariableName(name)) {
                fail(new Problem(
                        path,
                        "'" + (end < 0 ? text.substring(i) : text.substring(i, end + 1))
                                + "' is not a variable reference (expected: " + REFERENCE_EXPECTED + "; $${ for a"
                                + " literal ${)"));
                return null;
            }
            String value = env.apply(name);
            if (colon >= 0 && (value == null || value.isEmpty())) {
                value = inside.substring(colon + 2);
            } else if (value == null) {
                fail(new Problem(
                        path,
                        "${" + name + "} is not set (expected: the environment variable " + name
                                + ", or a default such as ${" + name + ":-value})"));
                return null;
            } else {
                remember(path, value, "${" + name + "}");
            }
            out.append(value);
            references++;
            i = end + 1;
        }
        String resolved = out.toString();
        boolean alone = references == 1 && text.startsWith("${") && text.endsWith("}") && text.indexOf("${", 2) < 0;
        return alone ? typed(resolved) : resolved;
    }

    /** A whole number or a boolean as YAML would have read it unquoted; any other text as it is. */
    private static Object typed(String value) {
        if (value.equals("true") || value.equals("false")) {
            return Boolean.valueOf(value);
        }
        if (value.matches("-?[0-9]{1,18}")) {
            long n = Long.parseLong(value);
            return n >= Integer.MIN_VALUE && n <= Integer.MAX_VALUE ? (Object) (int) n : (Object) n;
        }
        return value;
    }

    private static boolean isVariableName(String name) {
        if (name.isEmpty() || Character.isDigit(name.charAt(0))) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
                return false;
            }
        }
        return true;
    }

    private void fail(Problem problem) {
        failed.add(problem.path());
        own.add(problem);
        problems.add(problem);
    }

    private void remember(String path, String value, String reference) {
        if (!value.isEmpty()) {
            put.computeIfAbsent(path, p -> new ArrayList<>()).add(new String[] {value, reference});
        }
    }

    /**
     * {@code found} with every value put in place written as its reference instead: in a problem at
     * its own path (or under it) whatever its length, elsewhere when it is 4 characters or more (so
     * a short one does not rewrite unrelated words).
     */
    List<Problem> hide(List<Problem> found) {
        if (put.isEmpty() && failed.isEmpty()) {
            return found;
        }
        List<Problem> hidden = new ArrayList<>(found.size());
        for (Problem problem : found) {
            if (failed.contains(problem.path()) && own.stream().noneMatch(o -> o == problem)) {
                continue; // the binder's view of the value left out: the substitution's problem says why
            }
            String message = problem.message();
            for (Map.Entry<String, List<String[]>> e : put.entrySet()) {
                boolean own = problem.path().equals(e.getKey())
                        || problem.path().startsWith(e.getKey() + ".")
                        || problem.path().startsWith(e.getKey() + "[");
                for (String[] valueAndReference : e.getValue()) {
                    String value = valueAndReference[0];
                    if (own || value.length() >= 4) {
                        message = message.replace(value, valueAndReference[1]);
                    }
                }
            }
            hidden.add(message.equals(problem.message()) ? problem : new Problem(problem.path(), message));
        }
        return hidden;
    }
}
