package dev.sluice.config;

import dev.sluice.http.HeaderRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Binds the {@code compression:} filter, every problem by its path ({@code compression.types[1]}). */
final class CompressionBinder {

    private static final String TYPE_EXPECTED = "a media type such as application/json, or text/*";

    private CompressionBinder() {}

    /** {@code null} or an empty mapping means every default. */
    static Optional<FilterConfig> compression(Object body, String path, List<Problem> problems) {
        if (body == null) {
            return Optional.of(FilterConfig.Compression.defaults());
        }
        Optional<Mapping> section = Mapping.of(body, path, "a mapping with types, min-size and level", problems);
        if (section.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = section.get();
        m.allowOnly("types", "min-size", "level");
        int before = problems.size();
        List<String> types = FilterConfig.Compression.DEFAULT_TYPES;
        Optional<List<?>> listed = m.list("types", "a list of " + TYPE_EXPECTED);
        if (listed.isPresent()) {
            types = types(listed.get(), m.child("types"), problems);
        }
        long minSize = m.longSize(
                "min-size", FilterConfig.Compression.DEFAULT_MIN_SIZE, 0, "a size such as 1KiB (0: any size)");
        int level = m.integer("level", FilterConfig.Compression.DEFAULT_LEVEL, 1, 9, "a whole number from 1 to 9");
        return problems.size() == before
                ? Optional.of(new FilterConfig.Compression(types, minSize, level))
                : Optional.empty();
    }

    private static List<String> types(List<?> items, String path, List<Problem> problems) {
        if (items.isEmpty()) {
            problems.add(new Problem(path, "an empty list (expected: at least one " + TYPE_EXPECTED + ")"));
        }
        List<String> types = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            Object item = items.get(i);
            String type = item instanceof String s ? s.trim().toLowerCase(Locale.ROOT) : null;
            if (type == null || !isMediaRange(type)) {
                problems.add(new Problem(
                        path + "[" + i + "]", Mapping.describe(item) + " (expected: " + TYPE_EXPECTED + ")"));
                continue;
            }
            types.add(type);
        }
        return types;
    }

    /** {@code type/subtype} or {@code type/*}, both tokens; never {@code *}{@code /*}. */
    private static boolean isMediaRange(String type) {
        int slash = type.indexOf('/');
        if (slash <= 0 || slash == type.length() - 1) {
            return false;
        }
        String main = type.substring(0, slash);
        String sub = type.substring(slash + 1);
        return !main.equals("*") && HeaderRules.isToken(main) && (sub.equals("*") || HeaderRules.isToken(sub));
    }
}
