package dev.sluice.tck;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small strict JSON reader for assertions: objects become insertion-ordered maps (so the order of
 * keys on the wire can be checked), arrays lists, numbers {@link BigDecimal}, {@code null} {@link
 * #NULL}. Anything that is not exactly one JSON value is refused.
 */
public final class Json {

    /** The JSON {@code null}. */
    public enum Null {
        NULL
    }

    public static final Null NULL = Null.NULL;

    private final String text;
    private int pos;

    private Json(String text) {
        this.text = text;
    }

    /** @throws IllegalArgumentException when {@code text} is not exactly one JSON value */
    public static Object parse(String text) {
        Json json = new Json(text);
        json.space();
        Object value = json.value();
        json.space();
        if (json.pos != text.length()) {
            throw json.error("end of input");
        }
        return value;
    }

    public static Object parse(byte[] utf8) {
        return parse(new String(utf8, StandardCharsets.UTF_8));
    }

    /** Parses an object. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> object(byte[] utf8) {
        Object value = parse(utf8);
        if (!(value instanceof Map)) {
            throw new IllegalArgumentException(
                    "json: " + abbreviate(new String(utf8, StandardCharsets.UTF_8)) + " (expected: an object)");
        }
        return (Map<String, Object>) value;
    }

    /** The value at {@code keys} below {@code root}, through nested objects. */
    @SuppressWarnings("unchecked")
    public static Object at(Object root, String... keys) {
        Object current = root;
        for (String key : keys) {
            if (!(current instanceof Map<?, ?> map) || !map.containsKey(key)) {
                throw new IllegalArgumentException("json: no '" + key + "' in " + abbreviate(String.valueOf(current))
                        + " (expected: an object with it)");
            }
            current = ((Map<String, Object>) map).get(key);
        }
        return current;
    }

    private Object value() {
        if (pos >= text.length()) {
            throw error("a value");
        }
        char c = text.charAt(pos);
        return switch (c) {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", NULL);
            default -> number();
        };
    }

    private Map<String, Object> object() {
        Map<String, Object> map = new LinkedHashMap<>();
        pos++;
        space();
        if (peek('}')) {
            pos++;
            return map;
        }
        while (true) {
            space();
            if (!peek('"')) {
                throw error("a string key");
            }
            String key = string();
            space();
            expect(':');
            space();
            if (map.put(key, value()) != null) {
                throw error("unique keys ('" + key + "' repeats)");
            }
            space();
            if (peek(',')) {
                pos++;
            } else {
                expect('}');
                return map;
            }
        }
    }

    private List<Object> array() {
        List<Object> list = new ArrayList<>();
        pos++;
        space();
        if (peek(']')) {
            pos++;
            return list;
        }
        while (true) {
            space();
            list.add(value());
            space();
            if (peek(',')) {
                pos++;
            } else {
                expect(']');
                return list;
            }
        }
    }

    private String string() {
        pos++;
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw error("a closing quote");
            }
            int run = pos;
            while (run < text.length()
                    && text.charAt(run) != '"'
                    && text.charAt(run) != '\\'
                    && text.charAt(run) >= 0x20) {
                run++;
            }
            sb.append(text, pos, run);
            pos = run;
            if (pos >= text.length()) {
                throw error("a closing quote");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                return sb.toString();
            }
            if (c < 0x20) {
                throw error("no control character in a string");
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            char e = pos < text.length() ? text.charAt(pos++) : 0;
            switch (e) {
                case '"', '\\', '/' -> sb.append(e);
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'u' -> {
                    if (pos + 4 > text.length()) {
                        throw error("four hex digits");
                    }
                    sb.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                    pos += 4;
                }
                default -> throw error("a valid escape");
            }
        }
    }

    private BigDecimal number() {
        int start = pos;
        if (peek('-')) {
            pos++;
        }
        int digits = pos;
        while (pos < text.length() && "0123456789.eE+-".indexOf(text.charAt(pos)) >= 0) {
            pos++;
        }
        if (pos == digits || !Character.isDigit(text.charAt(digits))) {
            throw error("a value");
        }
        if (text.charAt(digits) == '0' && pos > digits + 1 && Character.isDigit(text.charAt(digits + 1))) {
            throw error("no leading zero");
        }
        try {
            return new BigDecimal(text.substring(start, pos));
        } catch (NumberFormatException e) {
            throw error("a number");
        }
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, pos)) {
            throw error("'" + word + "'");
        }
        pos += word.length();
        return value;
    }

    private boolean peek(char c) {
        return pos < text.length() && text.charAt(pos) == c;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw error("'" + c + "'");
        }
        pos++;
    }

    private void space() {
        while (pos < text.length() && " \t\r\n".indexOf(text.charAt(pos)) >= 0) {
            pos++;
        }
    }

    private IllegalArgumentException error(String expected) {
        String near = text.substring(Math.max(0, pos - 20), Math.min(text.length(), pos + 20));
        return new IllegalArgumentException("json: at " + pos + " near '" + near + "' (expected: " + expected + ")");
    }

    private static String abbreviate(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }
}
