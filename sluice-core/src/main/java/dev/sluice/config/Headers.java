package dev.sluice.config;

import dev.sluice.http.HeaderRules;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Header names and values in the configuration: names are HTTP tokens, stored in lower case. */
final class Headers {

    private Headers() {}

    /** Whether {@code s} is an HTTP token (RFC 9110 §5.6.2), as header names and methods are. */
    static boolean isToken(String s) {
        return HeaderRules.isToken(s);
    }

    /** Whether {@code s} may be sent as a header value: no control characters except tab. */
    static boolean isValue(String s) {
        return HeaderRules.isValue(s);
    }

    /** A mapping of header name → value; names lower-cased; numbers and booleans taken as text. */
    static Map<String, String> values(Mapping m) {
        Map<String, String> values = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : m.entries()) {
            String name = e.getKey();
            Object value = e.getValue();
            if (!isToken(name)) {
                m.problem(name, "'" + name + "' (expected: a header name of letters, digits and !#$%&'*+-.^_`|~)");
                continue;
            }
            String text = value instanceof String || value instanceof Number || value instanceof Boolean
                    ? String.valueOf(value)
                    : null;
            if (text == null || !isValue(text)) {
                m.problem(name, Mapping.describe(value) + " (expected: a header value without control characters)");
                continue;
            }
            if (values.putIfAbsent(name.toLowerCase(Locale.ROOT), text) != null) {
                m.problem(name, "'" + name + "' is given twice, ignoring case (expected: each header once)");
            }
        }
        return values;
    }

    /** A list of header names, lower-cased. */
    static List<String> names(List<?> list, String path, List<Problem> problems) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            Object item = list.get(i);
            if (item instanceof String s && isToken(s)) {
                names.add(s.toLowerCase(Locale.ROOT));
            } else {
                problems.add(new Problem(path + "[" + i + "]", Mapping.describe(item) + " (expected: a header name)"));
            }
        }
        return names;
    }
}
