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
 * the client request; {@code {**}} by the wildcard remainder (without its leading '/' when the
 * template has a '/' just before the {@code {**}}).
 *
 * <p>A substituted value never changes the shape of the upstream request: before the template's
 * first '?' it is percent-encoded as (part of) one path segment ('/', '?', '#', '%', ';' and the
 * like encoded), and a segment holding a value must not be empty, {@code .} or {@code ..} ({@link
 * UnsafeValueException}); after it, a value is percent-encoded as one query value ('&amp;', '=', '+',
 * '#' encoded). A path variable is decoded first (it is raw, as in the request) so that it is encoded
 * exactly once. The remainder is inserted verbatim in a path: it is part of the normalised request
 * path ({@link RequestPath}).
 */
public final class PathTemplate {

    /** The placeholder for the wildcard remainder. */
    public static final String REMAINDER = "**";

    private final String source;
    private final List<String> pieces; // alternating: literal, variable, literal, variable, ..., literal
    private final int queryFrom; // index of the first piece after the template's '?'; pieces.size() if none

    /** The separator in a reference to an earlier composition part's value: {@code {product:/reviewIds}}. */
    public static final char REFERENCE = ':';

    private PathTemplate(String source, List<String> pieces) {
        this.source = source;
        this.pieces = pieces;
        int from = pieces.size();
        for (int i = 0; i < pieces.size(); i += 2) {
            if (pieces.get(i).indexOf('?') >= 0) {
                from = i + 1;
                break;
            }
        }
        this.queryFrom = from;
    }

    /**
     * Parses a template.
     *
     * @throws IllegalArgumentException naming what is wrong with it
     */
    public static PathTemplate parse(String template) {
        return parse(template, false);
    }

    /**
     * Parses a composition part's template, which may also hold references to values in earlier
     * parts, {@code {part:/json/pointer}} (see {@link #references()}): they expand like a query
     * parameter of that name, whose value the composition gives.
     *
     * @throws IllegalArgumentException naming what is wrong with it
     */
    public static PathTemplate parsePart(String template) {
        return parse(template, true);
    }

    private static PathTemplate parse(String template, boolean references) {
        if (template == null || !template.startsWith("/")) {
            throw new IllegalArgumentException("'" + template + "' (expected: a path starting with '/')");
        }
        if (template.indexOf('#') >= 0) { // RFC 9112 section 3.2: a request target carries no fragment
            throw new IllegalArgumentException(
                    "'" + template + "' (expected: no '#': a request target has no fragment)");
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
            if (!name.equals(REMAINDER) && !isVariableName(name) && !(references && isReference(name))) {
                throw new IllegalArgumentException(
                        "'" + template + "' (expected: '{name}' of letters, digits, '-', '_',"
                                + (references ? " '{part:/json/pointer}'," : "") + " or '{**}')");
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

    /** {@code part:pointer}, the part's name as a variable's; the pointer is checked by whoever binds it. */
    static boolean isReference(String name) {
        int colon = name.indexOf(REFERENCE);
        return colon > 0 && isVariableName(name.substring(0, colon));
    }

    /** The references to earlier parts' values ({@code product:/reviewIds}), in order, each once. */
    public Set<String> references() {
        Set<String> names = new LinkedHashSet<>();
        for (int i = 1; i < pieces.size(); i += 2) {
            if (pieces.get(i).indexOf(REFERENCE) > 0) {
                names.add(pieces.get(i));
            }
        }
        return names;
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
     * @param pathVariables raw path variables (percent-encoded as in the request path)
     * @param query decoded query parameters (first value per name)
     * @param remainder the wildcard remainder, from the normalised request path
     * @throws MissingVariableException when a placeholder has no value
     * @throws UnsafeValueException when a value would make a path segment empty, {@code .} or {@code ..}
     */
    public String expand(Map<String, String> pathVariables, Map<String, String> query, String remainder) {
        StringBuilder out = new StringBuilder(source.length() + 32);
        int[] valueEnds = null; // where each value placed in the path ends, to check its segment after
        for (int i = 0; i < pieces.size(); i++) {
            String piece = pieces.get(i);
            boolean inQuery = i >= queryFrom;
            if ((i & 1) == 0) {
                out.append(piece);
            } else if (piece.equals(REMAINDER)) {
                if (inQuery) {
                    encode(decode(remainder), out, true);
                    continue;
                }
                // "/v2/{**}" with remainder "/a" is "/v2/a", not "/v2//a"
                boolean slashTwice = !remainder.isEmpty()
                        && remainder.charAt(0) == '/'
                        && !out.isEmpty()
                        && out.charAt(out.length() - 1) == '/';
                out.append(remainder, slashTwice ? 1 : 0, remainder.length());
            } else {
                String raw = pathVariables.get(piece);
                byte[] value;
                if (raw != null) {
                    value = decode(raw);
                } else {
                    String decoded = query.get(piece);
                    if (decoded == null) {
                        throw new MissingVariableException(piece);
                    }
                    value = decoded.getBytes(StandardCharsets.UTF_8);
                }
                encode(value, out, inQuery);
                if (!inQuery) {
                    if (valueEnds == null) {
                        valueEnds = new int[pieces.size()];
                    }
                    valueEnds[i] = out.length();
                }
            }
        }
        if (valueEnds != null) {
            checkSegments(out, valueEnds);
        }
        return out.toString();
    }

    /** A path segment holding a value (values hold no '/', '?' or '#') must not be empty, '.' or '..'. */
    private void checkSegments(StringBuilder out, int[] valueEnds) {
        int pathEnd = out.length();
        for (int i = 0; i < out.length(); i++) {
            char c = out.charAt(i);
            if (c == '?' || c == '#') {
                pathEnd = i;
                break;
            }
        }
        for (int i = 1; i < queryFrom; i += 2) {
            int valueEnd = valueEnds[i];
            if (valueEnd == 0) {
                continue; // the remainder, or a value in the query
            }
            int start = out.lastIndexOf("/", valueEnd - 1) + 1;
            int end = out.indexOf("/", valueEnd);
            checkSegment(out, start, end < 0 || end > pathEnd ? pathEnd : end, pieces.get(i));
        }
    }

    private static void checkSegment(CharSequence out, int start, int end, String variable) {
        int length = end - start;
        if (length == 0
                || (length == 1 && out.charAt(start) == '.')
                || (length == 2 && out.charAt(start) == '.' && out.charAt(start + 1) == '.')) {
            throw new UnsafeValueException(variable);
        }
    }

    /** Percent-decodes a raw value to its bytes; a '%' without two hex digits stays a '%'. */
    private static byte[] decode(String raw) {
        if (raw.indexOf('%') < 0) {
            return raw.getBytes(StandardCharsets.UTF_8);
        }
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            int hi = c == '%' && i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
            int lo = hi < 0 ? -1 : Character.digit(raw.charAt(i + 2), 16);
            if (lo >= 0) {
                bytes.write((hi << 4) | lo);
                i += 2;
            } else {
                byte[] utf8 = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(utf8, 0, utf8.length);
            }
        }
        return bytes.toByteArray();
    }

    /**
     * Percent-encodes one value: in a query, all but the unreserved characters; in a path segment,
     * the sub-delimiters, ':' and '@' are kept too, except ';' (path parameters to some servers).
     */
    private static void encode(byte[] value, StringBuilder out, boolean queryValue) {
        for (byte b : value) {
            int c = b & 0xff;
            if (RequestPath.isUnreserved(c) || (!queryValue && SEGMENT_SAFE.indexOf(c) >= 0)) {
                out.append((char) c);
            } else {
                out.append('%')
                        .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            }
        }
    }

    private static final String SEGMENT_SAFE = "!$&'()*+,=:@";

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

    /** A value the template cannot take from this request: the client gets a 400 with the message. */
    public abstract static sealed class ExpansionException extends RuntimeException
            permits MissingVariableException, UnsafeValueException, RefusedValueException {
        private final String variable;

        ExpansionException(String variable, String message) {
            super(message, null, false, false);
            this.variable = variable;
        }

        public String variable() {
            return variable;
        }
    }

    /** A placeholder had no value in the request. */
    public static final class MissingVariableException extends ExpansionException {
        public MissingVariableException(String variable) {
            super(variable, "missing value for '{" + variable + "}': give it as a path variable or query parameter");
        }
    }

    /** A value would have made its path segment empty, {@code .} or {@code ..}. */
    public static final class UnsafeValueException extends ExpansionException {
        public UnsafeValueException(String variable) {
            super(variable, "the value of '{" + variable + "}' would make an empty, '.' or '..' path segment");
        }
    }

    /**
     * A value that would change what the result names: a redirect to another host, a rewritten path
     * with a dot-segment or a query ({@link RedirectLocation}, {@link PathRewrite}).
     */
    public static final class RefusedValueException extends ExpansionException {
        public RefusedValueException(String variable, String why) {
            super(variable, "the value of '" + variable + "' " + why);
        }
    }
}
