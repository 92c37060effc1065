package dev.sluice.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A route's path predicate: exact ({@code /health}), template ({@code /products/{id}}, a variable
 * matches one non-empty segment) or prefix wildcard ({@code /orders/**}, matches {@code /orders}
 * and everything below it). A wildcard may only end the pattern.
 */
public final class PathPattern {

    private final String source;
    private final String[] segments; // literal text, or null where a variable stands
    private final String[] variables; // variable name per segment, or null
    private final boolean wildcard;

    private PathPattern(String source, String[] segments, String[] variables, boolean wildcard) {
        this.source = source;
        this.segments = segments;
        this.variables = variables;
        this.wildcard = wildcard;
    }

    /**
     * Parses a pattern.
     *
     * @throws IllegalArgumentException naming what is wrong with it
     */
    public static PathPattern parse(String pattern) {
        if (pattern == null || !pattern.startsWith("/")) {
            throw new IllegalArgumentException("'" + pattern + "' (expected: a path starting with '/')");
        }
        if (pattern.indexOf('?') >= 0 || pattern.indexOf('#') >= 0) {
            throw new IllegalArgumentException("'" + pattern + "' (expected: a path without query or fragment)");
        }
        String[] parts =
                pattern.equals("/") ? new String[0] : pattern.substring(1).split("/", -1);
        boolean wildcard = false;
        List<String> literals = new ArrayList<>();
        List<String> vars = new ArrayList<>();
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i];
            if (part.equals("**")) {
                if (i != parts.length - 1) {
                    throw new IllegalArgumentException("'" + pattern + "' (expected: '**' only as the last segment)");
                }
                wildcard = true;
            } else if (part.startsWith("{") && part.endsWith("}")) {
                String name = part.substring(1, part.length() - 1);
                if (!PathTemplate.isVariableName(name)) {
                    throw new IllegalArgumentException(
                            "'" + pattern + "' (expected: variable names of letters, digits, '-' and '_')");
                }
                if (vars.contains(name)) {
                    throw new IllegalArgumentException(
                            "'" + pattern + "' (expected: each variable once, '" + name + "' repeats)");
                }
                literals.add(null);
                vars.add(name);
            } else if (part.isEmpty() && i != parts.length - 1) {
                throw new IllegalArgumentException("'" + pattern + "' (expected: no empty segment)");
            } else if (part.indexOf('{') >= 0 || part.indexOf('}') >= 0 || part.indexOf('*') >= 0) {
                throw new IllegalArgumentException("'" + pattern + "' (expected: '{name}' or '**' as a whole segment)");
            } else {
                literals.add(part);
                vars.add(null);
            }
        }
        return new PathPattern(pattern, literals.toArray(String[]::new), vars.toArray(String[]::new), wildcard);
    }

    /**
     * Matches a request path (raw, not decoded).
     *
     * @return the match, with variables and the wildcard remainder, or empty
     */
    public Optional<Match> match(String path) {
        int pos = 1; // after the leading '/'
        int length = path.length();
        if (length == 0 || path.charAt(0) != '/') {
            return Optional.empty();
        }
        Map<String, String> vars = null;
        for (int i = 0; i < segments.length; i++) {
            if (pos > length) {
                return Optional.empty();
            }
            int end = path.indexOf('/', pos);
            if (end < 0) {
                end = length;
            }
            String literal = segments[i];
            if (literal != null) {
                if (end - pos != literal.length() || !path.regionMatches(pos, literal, 0, literal.length())) {
                    return Optional.empty();
                }
            } else {
                if (end == pos) {
                    return Optional.empty();
                }
                if (vars == null) {
                    vars = new java.util.LinkedHashMap<>(4);
                }
                vars.put(variables[i], path.substring(pos, end));
            }
            pos = end + 1;
        }
        String remainder;
        if (pos > length) {
            remainder = ""; // consumed everything, no trailing slash
        } else if (wildcard) {
            remainder = path.substring(pos - 1); // keeps the leading '/'
            if (segments.length == 0) {
                remainder = path;
            }
        } else if (pos == length + 1 || (segments.length == 0 && length == 1)) {
            remainder = "";
        } else {
            return Optional.empty();
        }
        return Optional.of(new Match(vars == null ? Map.of() : vars, remainder));
    }

    /** Whether this pattern ends in {@code **}. */
    public boolean isWildcard() {
        return wildcard;
    }

    /** The variable names, in order. */
    public List<String> variableNames() {
        List<String> names = new ArrayList<>();
        for (String v : variables) {
            if (v != null) {
                names.add(v);
            }
        }
        return names;
    }

    /**
     * Whether every path this pattern matches is also matched by {@code earlier}, so that a route with
     * this pattern declared after one with {@code earlier} (and no narrower predicates) is unreachable.
     */
    public boolean isShadowedBy(PathPattern earlier) {
        if (earlier.wildcard) {
            if (earlier.segments.length > segments.length) {
                return false;
            }
        } else if (wildcard || earlier.segments.length != segments.length) {
            return false;
        }
        for (int i = 0; i < earlier.segments.length; i++) {
            String mine = segments[i];
            String theirs = earlier.segments[i];
            if (theirs != null && (mine == null || !mine.equals(theirs))) {
                return false;
            }
            if (theirs == null && mine != null && mine.isEmpty()) {
                return false; // a variable never matches the empty segment after a trailing '/'
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return source;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PathPattern other && other.source.equals(source);
    }

    @Override
    public int hashCode() {
        return source.hashCode();
    }

    /**
     * A successful match.
     *
     * @param variables path variables, raw (percent-encoded as in the request)
     * @param remainder for a wildcard pattern, the part of the path the {@code **} matched, starting
     *     with '/' (or empty); for other patterns, empty
     */
    public record Match(Map<String, String> variables, String remainder) {}
}
