package dev.sluice.routing;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code rewrite: {regex, replacement}}: the upstream path made from the normalised request path by
 * a regular expression and a replacement with group references ({@code $1}, {@code ${name}}); the
 * first match is replaced, a path it does not match goes on unchanged.
 *
 * <p>The result never changes the request's shape: it must be a normalised path itself (starting
 * with '/', no dot-segment, no empty segment, no '?' or '#'), else the client gets a 400 ({@link
 * PathTemplate.RefusedValueException}). So a captured group cannot smuggle a {@code ..} or a query
 * upstream: {@code /a/x.} matched by {@code ^/a/x(.*)} and replaced by {@code /b/$1/c} would be
 * {@code /b/./c}, and is refused.
 */
public final class PathRewrite {

    private final Pattern regex;
    private final String replacement;

    private PathRewrite(Pattern regex, String replacement) {
        this.regex = regex;
        this.replacement = replacement;
    }

    /**
     * Compiles a rewrite.
     *
     * @throws IllegalArgumentException naming what is wrong: the regex, a group the replacement
     *     refers to that the regex lacks, or a '?' or '#' in the replacement
     */
    public static PathRewrite of(String regex, String replacement) {
        requireNonNull(regex, "regex");
        requireNonNull(replacement, "replacement");
        Pattern pattern;
        try {
            pattern = Pattern.compile(regex);
        } catch (java.util.regex.PatternSyntaxException e) {
            throw new IllegalArgumentException("'" + regex + "' is not a valid regular expression: "
                    + e.getDescription() + " at index " + e.getIndex() + " (expected: a Java regular expression)");
        }
        if (replacement.indexOf('?') >= 0 || replacement.indexOf('#') >= 0) {
            throw new IllegalArgumentException(
                    "'" + replacement + "' has a '?' or '#' (expected: a path; the client's query is kept)");
        }
        checkGroups(pattern, replacement);
        return new PathRewrite(pattern, replacement);
    }

    /** Every {@code $n} and {@code ${name}} names a group of {@code pattern}. */
    private static void checkGroups(Pattern pattern, String replacement) {
        int groups = pattern.matcher("").groupCount();
        Map<String, Integer> named = pattern.namedGroups();
        for (int i = 0; i < replacement.length(); i++) {
            char c = replacement.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '$') {
                if (i + 1 < replacement.length() && replacement.charAt(i + 1) == '{') {
                    int close = replacement.indexOf('}', i);
                    String name = close < 0 ? "" : replacement.substring(i + 2, close);
                    if (!named.containsKey(name)) {
                        throw new IllegalArgumentException("'" + replacement + "' refers to ${" + name
                                + "}, a group the regex does not have"
                                + " (expected: " + (named.isEmpty() ? "no named group" : "one of " + named.keySet())
                                + ")");
                    }
                    i = close;
                } else if (i + 1 < replacement.length() && Character.isDigit(replacement.charAt(i + 1))) {
                    int group = replacement.charAt(i + 1) - '0';
                    if (group > groups) {
                        throw new IllegalArgumentException("'" + replacement + "' refers to $" + group
                                + " but the regex has " + groups + " group" + (groups == 1 ? "" : "s")
                                + " (expected: $0 to $" + groups + ")");
                    }
                } else {
                    throw new IllegalArgumentException(
                            "'" + replacement + "' has a '$' that is no group reference (expected: $1, ${name},"
                                    + " or \\$ for a dollar sign)");
                }
            }
        }
    }

    /**
     * The rewritten path.
     *
     * @param path the normalised request path
     * @throws PathTemplate.RefusedValueException when the result is not a normalised path
     */
    public String apply(String path) {
        Matcher m = regex.matcher(path);
        if (!m.find()) {
            return path;
        }
        String result = m.replaceFirst(replacement);
        if (!(RequestPath.normalise(result) instanceof RequestPath.Normalised n)
                || !n.path().equals(result)
                || result.indexOf('?') >= 0) {
            throw new PathTemplate.RefusedValueException(
                    "rewrite", "would make an upstream path with a dot-segment, an empty segment or a query");
        }
        return result;
    }

    public String regex() {
        return regex.pattern();
    }

    public String replacement() {
        return replacement;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PathRewrite other
                && other.regex.pattern().equals(regex.pattern())
                && other.replacement.equals(replacement);
    }

    @Override
    public int hashCode() {
        return regex.pattern().hashCode() * 31 + replacement.hashCode();
    }

    @Override
    public String toString() {
        return "{regex: " + regex.pattern() + ", replacement: " + replacement + "}";
    }
}
