package dev.sluice.lab.report;

import java.util.Collection;
import java.util.Map;

/** Writes maps, lists, strings, numbers and booleans as indented JSON (for {@code env.json}). */
public final class Json {

    private Json() {}

    public static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, 0);
        return sb.append('\n').toString();
    }

    private static void write(StringBuilder sb, Object v, int indent) {
        switch (v) {
            case null -> sb.append("null");
            case Map<?, ?> m -> {
                if (m.isEmpty()) {
                    sb.append("{}");
                    return;
                }
                sb.append("{\n");
                int i = 0;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    sb.append("  ".repeat(indent + 1))
                            .append(quote(String.valueOf(e.getKey())))
                            .append(": ");
                    write(sb, e.getValue(), indent + 1);
                    sb.append(++i < m.size() ? ",\n" : "\n");
                }
                sb.append("  ".repeat(indent)).append('}');
            }
            case Collection<?> c -> {
                if (c.isEmpty()) {
                    sb.append("[]");
                    return;
                }
                sb.append("[\n");
                int i = 0;
                for (Object o : c) {
                    sb.append("  ".repeat(indent + 1));
                    write(sb, o, indent + 1);
                    sb.append(++i < c.size() ? ",\n" : "\n");
                }
                sb.append("  ".repeat(indent)).append(']');
            }
            case Double d when !Double.isFinite(d) -> sb.append("null");
            case Number n -> sb.append(n);
            case Boolean b -> sb.append(b);
            default -> sb.append(quote(String.valueOf(v)));
        }
    }

    public static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
