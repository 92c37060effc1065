package dev.sluice.routing;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A redirect's {@code Location}, such as {@code https://{host}/new/{path}} or {@code /items/{id}}:
 * an absolute {@code http(s)} URL or a path, with placeholders filled from the request. {@code
 * {host}} is the client's host without its port; {@code {path}} the normalised request path
 * without its leading '/'; {@code {**}} the wildcard remainder (likewise); any other name a path
 * variable of the route (still percent-encoded, as the client sent it). The client's query is
 * appended unless the route says not to.
 *
 * <p>A value never changes the location's shape: path values come from the normalised path (no
 * dot-segments, no empty segments), a value placed after the template's '?' has '&amp;', '=', '+'
 * and '#' encoded, a host that is not a plain name or IP literal is refused, and a location that
 * would begin with {@code //} (another host) is refused ({@link PathTemplate.RefusedValueException}).
 */
public final class RedirectLocation {

    public static final String HOST = "host";
    public static final String PATH = "path";

    private final String source;
    private final List<String> pieces; // alternating: literal, name, literal, ..., literal
    private final int queryFrom; // the first piece after the template's '?'; pieces.size() if none
    private final boolean hasQuery;

    private RedirectLocation(String source, List<String> pieces) {
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
        this.hasQuery = from < pieces.size() || source.indexOf('?') >= 0;
    }

    /** The location of an upgrade to https: {@code https://{host}/{path}}. */
    public static RedirectLocation https() {
        return parse("https://{host}/{path}");
    }

    /**
     * Parses a location template.
     *
     * @throws IllegalArgumentException naming what is wrong with it
     */
    public static RedirectLocation parse(String template) {
        String expected = " (expected: an http(s) URL such as https://{host}/new/{path}, or a path such as /new/{id})";
        if (template == null
                || !(template.startsWith("/") || template.startsWith("https://") || template.startsWith("http://"))
                || template.startsWith("//")) {
            throw new IllegalArgumentException("'" + template + "'" + expected);
        }
        for (int i = 0; i < template.length(); i++) {
            char c = template.charAt(i);
            if (c <= ' ' || c == 0x7f || c == '#' || c == '\\') {
                throw new IllegalArgumentException(
                        "'" + template + "' has a space, control character, '#' or '\\'" + expected);
            }
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
            if (close < open) {
                throw new IllegalArgumentException("'" + template + "' (expected: balanced '{name}' placeholders)");
            }
            String name = template.substring(open + 1, close);
            if (!name.equals(PathTemplate.REMAINDER) && !PathTemplate.isVariableName(name)) {
                throw new IllegalArgumentException(
                        "'" + template + "' (expected: '{name}' of letters, digits, '-', '_', or '{**}')");
            }
            pieces.add(template.substring(pos, open));
            pieces.add(name);
            pos = close + 1;
        }
        return new RedirectLocation(template, List.copyOf(pieces));
    }

    /** The placeholder names. */
    public Set<String> variableNames() {
        Set<String> names = new LinkedHashSet<>();
        for (int i = 1; i < pieces.size(); i += 2) {
            names.add(pieces.get(i));
        }
        return names;
    }

    /**
     * The location for a request.
     *
     * @param match the route match (normalised path, raw path variables, remainder)
     * @param host the client's Host (or :authority), port included, or null
     * @param rawQuery the client's query as sent, or null; appended when {@code keepQuery}
     * @throws PathTemplate.ExpansionException when the host is missing or not a plain host, or the
     *     location would name another host
     */
    public String expand(RouteTable.Result.Matched match, String host, String rawQuery, boolean keepQuery) {
        StringBuilder out = new StringBuilder(source.length() + 64);
        for (int i = 0; i < pieces.size(); i++) {
            String piece = pieces.get(i);
            if ((i & 1) == 0) {
                out.append(piece);
                continue;
            }
            String value = switch (piece) {
                case HOST -> hostName(host);
                case PATH -> withoutSlash(match.path());
                case PathTemplate.REMAINDER -> withoutSlash(match.remainder());
                default -> {
                    String v = match.variables().get(piece);
                    if (v == null) {
                        throw new PathTemplate.MissingVariableException(piece);
                    }
                    yield v;
                }
            };
            if (i >= queryFrom) {
                queryValue(value, out);
            } else {
                out.append(value);
            }
        }
        if (out.length() > 1 && out.charAt(0) == '/' && (out.charAt(1) == '/' || out.charAt(1) == '\\')) {
            throw new PathTemplate.RefusedValueException("{path}", "would make a location on another host");
        }
        if (keepQuery && rawQuery != null && !rawQuery.isEmpty()) {
            out.append(hasQuery ? '&' : '?').append(rawQuery);
        }
        return out.toString();
    }

    private static String withoutSlash(String path) {
        return path.startsWith("/") ? path.substring(1) : path;
    }

    /** The host without its port: a DNS name or IPv4 address, or a bracketed IPv6 literal. */
    private static String hostName(String host) {
        if (host == null || host.isEmpty()) {
            throw new PathTemplate.MissingVariableException(HOST);
        }
        int end;
        if (host.startsWith("[")) {
            end = host.indexOf(']') + 1;
            if (end == 0) {
                throw new PathTemplate.RefusedValueException("Host", "is not a plain host name or IP address");
            }
            for (int i = 1; i < end - 1; i++) {
                char c = host.charAt(i);
                if (!(c == ':' || c == '.' || Character.digit(c, 16) >= 0)) {
                    throw new PathTemplate.RefusedValueException("Host", "is not a plain host name or IP address");
                }
            }
        } else {
            int colon = host.indexOf(':');
            end = colon < 0 ? host.length() : colon;
            for (int i = 0; i < end; i++) {
                char c = host.charAt(i);
                if (!((c >= 'a' && c <= 'z')
                        || (c >= 'A' && c <= 'Z')
                        || (c >= '0' && c <= '9')
                        || c == '.'
                        || c == '-'
                        || c == '_')) {
                    throw new PathTemplate.RefusedValueException("Host", "is not a plain host name or IP address");
                }
            }
        }
        if (end == 0) {
            throw new PathTemplate.RefusedValueException("Host", "is not a plain host name or IP address");
        }
        return host.substring(0, end);
    }

    /** A value in the query: what would split or end it is percent-encoded. */
    private static void queryValue(String value, StringBuilder out) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '&' -> out.append("%26");
                case '=' -> out.append("%3D");
                case '+' -> out.append("%2B");
                case '#' -> out.append("%23");
                default -> out.append(c);
            }
        }
    }

    @Override
    public String toString() {
        return source;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RedirectLocation other && other.source.equals(source);
    }

    @Override
    public int hashCode() {
        return source.hashCode();
    }
}
