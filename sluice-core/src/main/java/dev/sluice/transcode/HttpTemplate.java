package dev.sluice.transcode;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A {@code google.api.http} path template ({@code /v1/{name=shelves/*}/books/{id}:publish}): literal
 * segments, {@code *} (one segment), {@code **} (any number, last only), variables naming a field path
 * ({@code {shelf.id}}) that bind one segment or the segments of their own sub-template, and an optional
 * {@code :verb}. A variable's value is percent-decoded ({@code %2F} kept as is when it spans segments,
 * as the HttpRule documentation asks).
 */
public final class HttpTemplate {

    private enum Kind {
        LITERAL,
        STAR,
        STARS
    }

    private record Segment(Kind kind, String literal) {}

    /** A variable: its field path and the template segments it spans, [from, to). */
    private record Variable(List<String> fieldPath, int from, int to) {}

    private final String text;
    private final List<Segment> segments;
    private final List<Variable> variables;
    private final String verb;

    private HttpTemplate(String text, List<Segment> segments, List<Variable> variables, String verb) {
        this.text = text;
        this.segments = segments;
        this.variables = variables;
        this.verb = verb;
    }

    /** Parses a template, or throws IllegalArgumentException saying what is wrong with it. */
    public static HttpTemplate parse(String text) {
        if (text == null || !text.startsWith("/")) {
            throw new IllegalArgumentException("a path template must start with '/': " + text);
        }
        String body = text.substring(1);
        String verb = null;
        int lastSlash = body.lastIndexOf('/');
        int lastBrace = body.lastIndexOf('}');
        int colon = body.indexOf(':', Math.max(lastSlash, lastBrace) + 1);
        if (colon >= 0) {
            verb = body.substring(colon + 1);
            body = body.substring(0, colon);
            if (verb.isEmpty() || !literal(verb)) {
                throw new IllegalArgumentException("bad verb in path template: " + text);
            }
        }
        List<Segment> segments = new ArrayList<>();
        List<Variable> variables = new ArrayList<>();
        int i = 0;
        while (i <= body.length()) {
            if (i < body.length() && body.charAt(i) == '{') {
                int close = body.indexOf('}', i);
                if (close < 0) {
                    throw new IllegalArgumentException("unclosed '{' in path template: " + text);
                }
                String inside = body.substring(i + 1, close);
                int eq = inside.indexOf('=');
                String field = eq < 0 ? inside : inside.substring(0, eq);
                List<String> fieldPath = List.of(field.split("\\.", -1));
                for (String name : fieldPath) {
                    if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                        throw new IllegalArgumentException("bad variable '" + field + "' in path template: " + text);
                    }
                }
                int from = segments.size();
                String sub = eq < 0 ? "*" : inside.substring(eq + 1);
                for (String part : sub.split("/", -1)) {
                    segments.add(segment(part, text));
                }
                variables.add(new Variable(fieldPath, from, segments.size()));
                i = close + 1;
            } else {
                int slash = body.indexOf('/', i);
                int end = slash < 0 ? body.length() : slash;
                segments.add(segment(body.substring(i, end), text));
                i = end;
            }
            if (i >= body.length()) {
                break;
            }
            if (body.charAt(i) != '/') {
                throw new IllegalArgumentException("expected '/' at " + (i + 1) + " in path template: " + text);
            }
            i++;
            if (i == body.length()) {
                throw new IllegalArgumentException("a path template must not end with '/': " + text);
            }
        }
        for (int s = 0; s < segments.size() - 1; s++) {
            if (segments.get(s).kind() == Kind.STARS) {
                throw new IllegalArgumentException("'**' must be the last segment of path template: " + text);
            }
        }
        return new HttpTemplate(text, List.copyOf(segments), List.copyOf(variables), verb);
    }

    private static Segment segment(String part, String text) {
        if (part.equals("*")) {
            return new Segment(Kind.STAR, null);
        }
        if (part.equals("**")) {
            return new Segment(Kind.STARS, null);
        }
        if (part.isEmpty() || !literal(part)) {
            throw new IllegalArgumentException("bad segment '" + part + "' in path template: " + text);
        }
        return new Segment(Kind.LITERAL, part);
    }

    private static boolean literal(String part) {
        for (int i = 0; i < part.length(); i++) {
            char c = part.charAt(i);
            if (c <= ' ' || c >= 0x7f || "{}/*:?#".indexOf(c) >= 0) {
                return false;
            }
        }
        return true;
    }

    /** The variables' field paths, dot-joined, in template order. */
    public List<String> variables() {
        return variables.stream().map(v -> String.join(".", v.fieldPath())).toList();
    }

    /**
     * The variables bound by a request path (without its query), dot-joined field path to decoded
     * value, or empty when the path does not match.
     */
    public Optional<Map<String, String>> match(String path) {
        if (path == null || !path.startsWith("/")) {
            return Optional.empty();
        }
        String rest = path.substring(1);
        if (verb != null) {
            if (!rest.endsWith(":" + verb)) {
                return Optional.empty();
            }
            rest = rest.substring(0, rest.length() - verb.length() - 1);
        }
        String[] parts = rest.isEmpty() ? new String[0] : rest.split("/", -1);
        int[] ends = new int[segments.size() + 1];
        int n = parts.length;
        int p = 0;
        for (int s = 0; s < segments.size(); s++) {
            Segment segment = segments.get(s);
            switch (segment.kind()) {
                case LITERAL -> {
                    if (p >= n || !parts[p].equals(segment.literal())) {
                        return Optional.empty();
                    }
                    p++;
                }
                case STAR -> {
                    if (p >= n || parts[p].isEmpty()) {
                        return Optional.empty();
                    }
                    p++;
                }
                case STARS -> p = n;
            }
            ends[s + 1] = p;
        }
        if (p != n) {
            return Optional.empty();
        }
        Map<String, String> bound = new LinkedHashMap<>();
        for (Variable v : variables) {
            int from = ends[v.from()];
            int to = ends[v.to()];
            boolean multi = v.to() - v.from() > 1 || segments.get(v.from()).kind() == Kind.STARS;
            String raw = String.join("/", java.util.Arrays.asList(parts).subList(from, to));
            String value = decode(raw, multi);
            if (value == null) {
                return Optional.empty();
            }
            bound.put(String.join(".", v.fieldPath()), value);
        }
        return Optional.of(bound);
    }

    /** Percent-decodes (UTF-8), keeping {@code %2F} encoded when {@code keepSlash}; null when malformed. */
    static String decode(String raw, boolean keepSlash) {
        if (raw.indexOf('%') < 0) {
            return raw;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c != '%') {
                out.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
                continue;
            }
            if (i + 2 >= raw.length()) {
                return null;
            }
            int hi = Character.digit(raw.charAt(i + 1), 16);
            int lo = Character.digit(raw.charAt(i + 2), 16);
            if (hi < 0 || lo < 0) {
                return null;
            }
            int b = hi * 16 + lo;
            if (keepSlash && b == '/') {
                out.writeBytes(raw.substring(i, i + 3).getBytes(StandardCharsets.US_ASCII));
            } else {
                out.write(b);
            }
            i += 2;
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return text;
    }
}
