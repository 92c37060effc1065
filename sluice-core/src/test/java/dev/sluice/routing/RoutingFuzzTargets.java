package dev.sluice.routing;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;

import dev.sluice.config.ProxyTarget;
import java.io.ByteArrayOutputStream;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Fuzz targets for the request path's way upstream (run by {@code dev.sluice.fuzz.CoreFuzzTest}):
 * whatever a client puts in the path, what is routed and proxied has no dot-segment, stays below
 * the route's prefix, and a substituted value stays inside its own path segment or query value.
 */
public final class RoutingFuzzTargets {

    private RoutingFuzzTargets() {}

    /**
     * Input: a raw request path (bytes as ISO-8859-1 characters). A normalised path is absolute,
     * has no empty, {@code .} or {@code ..} segment (even decoded), no encoded slash, no escape of
     * an unreserved character, only valid upper-case escapes and no byte that is not allowed in a
     * path; normalising it again changes nothing; a path that needs no normalising is kept as it is.
     */
    public static void normalise(byte[] data) {
        String raw = new String(data, ISO_8859_1);
        RequestPath.Result result = RequestPath.normalise(raw);
        if (!(result instanceof RequestPath.Normalised(String path))) {
            RequestPath.Rejected rejected = (RequestPath.Rejected) result;
            check(!rejected.reason().isEmpty(), "a rejection without a reason", raw);
            check(!needsNothing(raw), "a clean path was rejected", raw);
            return;
        }
        checkNormalised(path, raw);
        check(
                RequestPath.normalise(path).equals(new RequestPath.Normalised(path)),
                "normalising twice changed " + path,
                raw);
        if (needsNothing(raw)) {
            check(path.equals(raw), "a clean path was changed to " + path, raw);
        }
    }

    /**
     * Input: lines of a route and a request: {@code pattern}, {@code template} (empty: a proxy with
     * {@code strip-prefix}, the pattern without its {@code /**}), the raw request path, a query value
     * (given to every template variable that is not a path variable). The request path goes the way
     * an engine sends it: normalised, matched, then expanded or stripped, behind the base path
     * {@code /base}. What goes upstream has the shape the route gives it, whatever the values: as
     * many segments and query fields as with harmless values; each value, decoded, is the value
     * given; no dot-segment; never outside {@code /base/}.
     */
    public static void route(byte[] data) {
        String[] lines = lines(data, 4);
        RequestPath.Result normalised = RequestPath.normalise(lines[2]);
        if (!(normalised instanceof RequestPath.Normalised(String path))) {
            return;
        }
        PathPattern pattern;
        PathTemplate template = null;
        try {
            pattern = PathPattern.parse(lines[0]);
            if (!lines[1].isEmpty()) {
                template = PathTemplate.parse(lines[1]);
            }
        } catch (IllegalArgumentException notAValidRoute) {
            return; // the config loader reports these
        }
        Optional<PathPattern.Match> found = pattern.match(path);
        if (found.isEmpty()) {
            return;
        }
        PathPattern.Match match = found.get();
        var matched = new RouteTable.Result.Matched(null, path, match.variables(), match.remainder());
        if (template == null) {
            stripPrefix(lines, pattern, path, matched);
            return;
        }
        Map<String, String> query = new HashMap<>();
        for (String name : template.variableNames()) {
            query.put(name, lines[3]);
        }
        ProxyTarget target = new ProxyTarget("up", Optional.empty(), Optional.of(template), Optional.empty());
        String upstream;
        try {
            upstream = ProxyPath.target(target, "/base", matched, query, null);
        } catch (PathTemplate.MissingVariableException | PathTemplate.UnsafeValueException refused) {
            return; // a 400 to the client
        }
        // The same route with harmless values: the shape the upstream target must keep.
        Map<String, String> plainVariables = new LinkedHashMap<>();
        match.variables().keySet().forEach(name -> plainVariables.put(name, "v"));
        Map<String, String> plainQuery = new HashMap<>();
        query.keySet().forEach(name -> plainQuery.put(name, "v"));
        String plain = ProxyPath.target(
                target,
                "/base",
                new RouteTable.Result.Matched(null, path, plainVariables, match.remainder()),
                plainQuery,
                null);
        String input = String.join(" | ", lines);
        check(shape(upstream).equals(shape(plain)), "values changed the shape: " + upstream + " vs " + plain, input);
        // No value makes a segment empty, '.' or '..' (decoded) where the route's own text did not.
        String[] plainSegments = pathOf(plain).split("/", -1);
        String[] upstreamSegments = pathOf(upstream).split("/", -1);
        for (int i = 0; i < upstreamSegments.length; i++) {
            byte[] decoded = strictDecode(upstreamSegments[i]);
            String segment = decoded == null ? upstreamSegments[i] : new String(decoded, ISO_8859_1);
            boolean dot = segment.isEmpty() || segment.equals(".") || segment.equals("..");
            byte[] plainDecoded = strictDecode(plainSegments[i]); // the template's own text may hold %2e%2e
            String plainSegment = plainDecoded == null ? plainSegments[i] : new String(plainDecoded, ISO_8859_1);
            check(
                    !dot || plainSegment.equals(segment),
                    "a value made segment " + i + " '" + segment + "': " + upstream,
                    input);
        }
        if (lines[1].indexOf('%') < 0 && lines[1].chars().noneMatch(c -> c < 0x20)) {
            checkValuesDecode(target, matched, match, query, lines[3], upstream, input);
        }
    }

    /** Each field of the upstream target, percent-decoded, is the route's field with the values put in. */
    private static void checkValuesDecode(
            ProxyTarget target,
            RouteTable.Result.Matched matched,
            PathPattern.Match match,
            Map<String, String> query,
            String queryValue,
            String upstream,
            String input) {
        // Each variable gets a marker byte (0x01, 0x02, ...; 0x1f for query values): escaped
        // (%01...) in the target, it shows where that value went.
        Map<String, String> markedVariables = new LinkedHashMap<>();
        Map<Character, byte[]> values = new HashMap<>();
        char marker = 1;
        for (var variable : match.variables().entrySet()) {
            if (marker == 0x1f) {
                return; // more variables than markers: nothing to check
            }
            markedVariables.put(variable.getKey(), String.format("%%%02X", (int) marker));
            values.put(marker, lenientDecode(variable.getValue()));
            marker++;
        }
        Map<String, String> markedQuery = new HashMap<>();
        query.keySet().forEach(name -> markedQuery.put(name, "\u001f"));
        values.put('\u001f', queryValue.getBytes(UTF_8));
        String marked = ProxyPath.target(
                target,
                "/base",
                new RouteTable.Result.Matched(null, matched.path(), markedVariables, matched.remainder()),
                markedQuery,
                null);
        List<String> upstreamFields = fields(upstream);
        List<String> markedFields = fields(marked);
        check(upstreamFields.size() == markedFields.size(), "field count " + upstream + " vs " + marked, input);
        for (int i = 0; i < markedFields.size(); i++) {
            byte[] template = strictDecode(markedFields.get(i));
            byte[] actual = strictDecode(upstreamFields.get(i));
            check(actual != null, "an invalid escape in " + upstreamFields.get(i), input);
            if (template == null) {
                continue; // the template's own text has a bare '%'
            }
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            for (byte b : template) {
                byte[] value = values.get((char) b);
                if (value != null) {
                    expected.writeBytes(value);
                } else {
                    expected.write(b);
                }
            }
            check(
                    new String(actual, ISO_8859_1).equals(expected.toString(ISO_8859_1)),
                    "field " + i + " of " + upstream + " decodes to " + new String(actual, ISO_8859_1) + ", expected "
                            + expected.toString(ISO_8859_1),
                    input);
        }
    }

    private static void stripPrefix(
            String[] lines, PathPattern pattern, String path, RouteTable.Result.Matched matched) {
        String prefix = lines[0].endsWith("/**") ? lines[0].substring(0, lines[0].length() - 3) : lines[0];
        if (prefix.isEmpty() || prefix.equals("/") || prefix.indexOf('{') >= 0) {
            return; // the config binder takes only literal prefixes
        }
        String rawQuery = lines[3].isEmpty() ? null : lines[3];
        ProxyTarget target = new ProxyTarget("up", Optional.of(prefix), Optional.empty(), Optional.empty());
        String upstream = ProxyPath.target(target, "/base", matched, Map.of(), rawQuery);
        String input = String.join(" | ", lines);
        String upstreamPath =
                rawQuery == null ? upstream : upstream.substring(0, upstream.length() - rawQuery.length() - 1);
        check(upstreamPath.startsWith("/base/"), "escaped the base path: " + upstream, input);
        check(
                RequestPath.normalise(upstreamPath).equals(new RequestPath.Normalised(upstreamPath)),
                "not normalised upstream: " + upstream,
                input);
        String expected =
                path.startsWith(prefix + "/") ? path.substring(prefix.length()) : path.equals(prefix) ? "/" : path;
        check(upstreamPath.equals("/base" + expected), "stripped wrongly: " + upstream, input);
    }

    /** What a normalised path must be, whatever the input. */
    private static void checkNormalised(String path, String raw) {
        check(path.startsWith("/"), "not absolute: " + path, raw);
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            check(c > ' ' && c < 0x7f && c != '\\', "a byte not allowed in a path: " + path, raw);
            // RFC 9112 3.2: a request target has no fragment; an upstream would cut the path at a '#'
            check(c != '#', "a '#' (an upstream cuts the path there): " + path, raw);
            if (c == '%') {
                check(i + 2 < path.length(), "a cut escape: " + path, raw);
                char hi = path.charAt(i + 1);
                char lo = path.charAt(i + 2);
                check(isUpperHex(hi) && isUpperHex(lo), "an escape not in upper-case hex: " + path, raw);
                int b = Integer.parseInt(path.substring(i + 1, i + 3), 16);
                check(!RequestPath.isUnreserved(b), "an escaped unreserved character: " + path, raw);
                check(b != '/' && b != '\\', "an encoded slash: " + path, raw);
                check(b >= 0x20 && b != 0x7f, "an encoded control character: " + path, raw);
            }
        }
        String[] segments = path.substring(1).split("/", -1);
        for (int i = 0; i < segments.length; i++) {
            String segment = segments[i];
            boolean trailing = i == segments.length - 1;
            check(!segment.isEmpty() || trailing, "an empty segment: " + path, raw);
            String decoded = new String(strictDecode(segment), ISO_8859_1);
            check(!decoded.equals(".") && !decoded.equals(".."), "a dot-segment: " + path, raw);
        }
    }

    /** A path the normaliser must keep as it is: no escape, no dot-segment, no empty segment but a last one. */
    private static boolean needsNothing(String raw) {
        if (raw.isEmpty() || raw.charAt(0) != '/') {
            return false;
        }
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c <= ' ' || c >= 0x7f || c == '\\' || c == '%' || c == '#') {
                return false;
            }
        }
        String[] segments = raw.substring(1).split("/", -1);
        for (int i = 0; i < segments.length; i++) {
            String s = segments[i];
            if ((s.isEmpty() && i < segments.length - 1)
                    || s.equals(".")
                    || s.equals("..")
                    || s.startsWith(".;")
                    || s.startsWith("..;")) {
                return false;
            }
        }
        return true;
    }

    private static boolean isUpperHex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F');
    }

    /** The path of an origin-form target (before '?'). */
    private static String pathOf(String target) {
        int q = target.indexOf('?');
        return q < 0 ? target : target.substring(0, q);
    }

    /** The delimiters of a target, in order: what a value must never add to or take from. */
    private static String shape(String target) {
        StringBuilder shape = new StringBuilder();
        boolean query = false;
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c == '?' && !query) {
                query = true;
                shape.append(c);
            } else if (query ? "&=#?".indexOf(c) >= 0 : "/;#".indexOf(c) >= 0) {
                shape.append(c);
            }
        }
        return shape.toString();
    }

    /** The target cut at its delimiters (those of {@link #shape}). */
    private static List<String> fields(String target) {
        List<String> fields = new java.util.ArrayList<>();
        boolean query = false;
        int start = 0;
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            boolean delimiter = (c == '?' && !query) || (query ? "&=#?".indexOf(c) >= 0 : "/;#".indexOf(c) >= 0);
            if (delimiter) {
                fields.add(target.substring(start, i));
                start = i + 1;
                query |= c == '?';
            }
        }
        fields.add(target.substring(start));
        return fields;
    }

    /** Percent-decodes; null when a '%' is not followed by two hex digits. */
    static byte[] strictDecode(String s) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= s.length()
                        || Character.digit(s.charAt(i + 1), 16) < 0
                        || Character.digit(s.charAt(i + 2), 16) < 0) {
                    return null;
                }
                out.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                out.writeBytes(String.valueOf(c).getBytes(UTF_8));
            }
        }
        return out.toByteArray();
    }

    /** Percent-decodes as a path variable is decoded: a '%' without two hex digits stays a '%'. */
    private static byte[] lenientDecode(String s) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%'
                    && i + 2 < s.length()
                    && Character.digit(s.charAt(i + 1), 16) >= 0
                    && Character.digit(s.charAt(i + 2), 16) >= 0) {
                out.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                out.writeBytes(String.valueOf(c).getBytes(UTF_8));
            }
        }
        return out.toByteArray();
    }

    /** The input's first {@code count} lines (bytes as ISO-8859-1 characters), "" for missing ones. */
    static String[] lines(byte[] data, int count) {
        String[] lines = new String(data, ISO_8859_1).split("\n", -1);
        String[] out = new String[count];
        for (int i = 0; i < count; i++) {
            out[i] = i < lines.length ? lines[i] : "";
        }
        return out;
    }

    private static void check(boolean ok, String what, String input) {
        if (!ok) {
            throw new AssertionError(what + " (input: " + input + ")");
        }
    }
}
