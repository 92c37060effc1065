package dev.sluice.routing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An upstream path with placeholders, such as {@code /reviews?product={id}&limit={limit}} or {@code
 * /v2/{**}}. {@code {name}} is replaced by a path variable or, failing that, a query parameter of
 * the client request, percent-encoded; {@code {**}} by the wildcard remainder, verbatim (without
 * its leading '/' when the template has a '/' just before the {@code {**}}).
 */
public final class PathTemplate {

    /** The placeholder for the wildcard remainder. */
    public static final String REMAINDER = "**";

    private final String source;
    private final List<String> pieces; // alternating: literal, variable, literal, variable, ..., literal

    private PathTemplate(String source, List<String> pieces) {
        this.source = source;
        this.pieces = pieces;
    }

    /**
     * Parses a template.
     *
     * @throws IllegalArgumentException naming what is wrong with it
     */
    public static PathTemplate parse(String template) {
        if (template == null || !template.startsWith("/")) {
            throw new IllegalArgumentException("'" + template + "' (expected: a path starting with '/')");
        }
        List<String> pieces = new ArrayList<>();
        int pos = 0;
        while (true) {
            int open = template.indexOf('{', pos);
            int close = template.indexOf('}', pos);
            if (open < 0) {
                if (close >= 0) {
                    throw new IllegalArgumentException("'" + template + "' (expected: '}' only after '{')");
                }
                pieces.add(template.substring(pos));
                break;
            }
            close = template.indexOf('}', open);
            if (close < 0 || (template.indexOf('}', pos) < open)) {
                throw new IllegalArgumentException("'" + template + "' (expected: balanced '{name}' placeholders)");
            }
            String name = template.substring(open + 1, close);
            if (!name.equals(REMAINDER) && !isVariableName(name)) {
                throw new IllegalArgumentException(
                        "'" + template + "' (expected: '{name}' of letters, digits, '-', '_', or '{**}')");
            }
            pieces.add(template.substring(pos, open));
            pieces.add(name);
            pos = close + 1;
        }
        return new PathTemplate(template, List.copyOf(pieces));
    }

    static boolean isVariableName(String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '-' || c == '_')) {
                return false;
            }
        }
        return true;
    }

    /** The placeholder names, {@code **} included when present. */
    public Set<String> variableNames() {
        Set<String> names = new LinkedHashSet<>();
        for (int i = 1; i < pieces.size(); i += 2) {
            names.add(pieces.get(i));
        }
        return names;
    }

    /**
     * Expands the template.
     *
     * @param pathVariables raw path variables (already percent-encoded: inserted verbatim)
     * @param query decoded query parameters (first value per name: percent-encoded on insertion)
     * @param remainder the wildcard remainder, inserted verbatim
     * @throws MissingVariableException when a placeholder has no value
     */
    public String expand(Map<String, String> pathVariables, Map<String, String> query, String remainder) {
        StringBuilder out = new StringBuilder(source.length() + 32);
        for (int i = 0; i < pieces.size(); i++) {
            String piece = pieces.get(i);
            if ((i & 1) == 0) {
                out.append(piece);
            } else if (piece.equals(REMAINDER)) {
                // "/v2/{**}" with remainder "/a" is "/v2/a", not "/v2//a"
                boolean slashTwice = !remainder.isEmpty()
                        && remainder.charAt(0) == '/'
                        && !out.isEmpty()
                        && out.charAt(out.length() - 1) == '/';
                out.append(remainder, slashTwice ? 1 : 0, remainder.length());
            } else {
                String value = pathVariables.get(piece);
                if (value != null) {
                    out.append(value);
                } else {
                    value = query.get(piece);
                    if (value == null) {
                        throw new MissingVariableException(piece);
                    }
                    encode(value, out);
                }
            }
        }
        return out.toString();
    }

    private static void encode(String value, StringBuilder out) {
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '.'
                    || c == '_'
                    || c == '~') {
                out.append((char) c);
            } else {
                out.append('%')
                        .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            }
        }
    }

    @Override
    public String toString() {
        return source;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PathTemplate other && other.source.equals(source);
    }

    @Override
    public int hashCode() {
        return source.hashCode();
    }

    /** A placeholder had no value in the request: the client gets a 400 naming it. */
    public static final class MissingVariableException extends RuntimeException {
        private final String variable;

        public MissingVariableException(String variable) {
            super(
                    "missing value for '{" + variable + "}': give it as a path variable or query parameter",
                    null,
                    false,
                    false);
            this.variable = variable;
        }

        public String variable() {
            return variable;
        }
    }
}
