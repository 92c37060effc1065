package dev.sluice.app;

import dev.sluice.compose.JsonSplice;
import dev.sluice.config.GatewayConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The running configuration as the admin's {@code GET /config} shows it: the file's own tree as JSON,
 * with the command line's {@code --engine} and {@code --port} applied, and secrets redacted: the value
 * of every key whose name says it holds one ({@code secret}, {@code password}, {@code token},
 * {@code credential}, {@code authorization}), every header value set by a filter whose name is one of
 * those or {@code cookie} or ends in {@code -key}, and the user information of every URL.
 */
final class ConfigView {

    static final String REDACTED = "(redacted)";

    private static final Pattern SECRET_KEY =
            Pattern.compile(".*(secret|password|passwd|token|credential|authorization|cookie|-key|_key|apikey).*");
    private static final Pattern URL_USERINFO = Pattern.compile("^([a-zA-Z][a-zA-Z0-9+.-]*://)[^/@]*@");

    private ConfigView() {}

    /** @param tree the configuration as its files wrote it, includes merged ({@code ConfigFiles.tree()}) */
    static String json(Map<?, ?> tree, GatewayConfig running) {
        Map<String, Object> root = copy(tree);
        @SuppressWarnings("unchecked")
        Map<String, Object> server = root.get("server") instanceof Map<?, ?> s ? (Map<String, Object>) s : null;
        if (server == null) {
            server = new LinkedHashMap<>();
            root.put("server", server);
        }
        server.put("engine", running.server().engine().key());
        server.put("port", running.server().port());
        StringBuilder out = new StringBuilder();
        write(root, null, out);
        return out.toString();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> copy(Map<?, ?> m) {
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(String.valueOf(k), v instanceof Map<?, ?> inner ? copy(inner) : v));
        return out;
    }

    private static void write(Object value, String key, StringBuilder out) {
        if (key != null
                && SECRET_KEY.matcher(key.toLowerCase(Locale.ROOT)).matches()
                && !(value instanceof Map<?, ?>)
                && !(value instanceof List<?>)) {
            out.append(JsonSplice.quote(REDACTED));
            return;
        }
        switch (value) {
            case null -> out.append("null");
            case Map<?, ?> map -> {
                out.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    if (!first) {
                        out.append(',');
                    }
                    first = false;
                    String name = String.valueOf(e.getKey());
                    out.append(JsonSplice.quote(name)).append(':');
                    write(e.getValue(), name, out);
                }
                out.append('}');
            }
            case List<?> list -> {
                out.append('[');
                for (int i = 0; i < list.size(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    write(list.get(i), null, out);
                }
                out.append(']');
            }
            case Boolean b -> out.append(b);
            case Number n -> out.append(n);
            default ->
                out.append(JsonSplice.quote(
                        URL_USERINFO.matcher(String.valueOf(value)).replaceFirst("$1" + REDACTED + "@")));
        }
    }
}
