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
        Optional<Mapping> section =
                Mapping.of(body, path, "a mapping with types, min-size, level, codings and zstd-level", problems);
        if (section.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = section.get();
        m.allowOnly("types", "min-size", "level", "codings", "zstd-level");
        int before = problems.size();
        List<String> types = FilterConfig.Compression.DEFAULT_TYPES;
        Optional<List<?>> listed = m.list("types", "a list of " + TYPE_EXPECTED);
        if (listed.isPresent()) {
            types = types(listed.get(), m.child("types"), problems);
        }
        long minSize = m.longSize(
                "min-size", FilterConfig.Compression.DEFAULT_MIN_SIZE, 0, "a size such as 1KiB (0: any size)");
        int level = m.integer("level", FilterConfig.Compression.DEFAULT_LEVEL, 1, 9, "a whole number from 1 to 9");
        List<String> codings = FilterConfig.Compression.DEFAULT_CODINGS;
        Optional<List<?>> offered = m.list("codings", "a list of " + CODING_EXPECTED);
        if (offered.isPresent()) {
            codings = codings(offered.get(), m.child("codings"), problems);
        }
        int zstdLevel = m.integer(
                "zstd-level", FilterConfig.Compression.DEFAULT_ZSTD_LEVEL, 1, 19, "a whole number from 1 to 19");
        return problems.size() == before
                ? Optional.of(new FilterConfig.Compression(types, minSize, level, codings, zstdLevel))
                : Optional.empty();
    }

    private static final String CODING_EXPECTED = "gzip or zstd, in the order the route prefers them";

    private static List<String> codings(List<?> items, String path, List<Problem> problems) {
        if (items.isEmpty()) {
            problems.add(new Problem(path, "an empty list (expected: at least one of " + CODING_EXPECTED + ")"));
        }
        List<String> codings = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            Object item = items.get(i);
            String coding = item instanceof String s ? s.trim().toLowerCase(Locale.ROOT) : null;
            String at = path + "[" + i + "]";
            if (coding == null || !(coding.equals("gzip") || coding.equals("zstd"))) {
                problems.add(new Problem(at, Mapping.describe(item) + " (expected: " + CODING_EXPECTED + ")"));
            } else if (codings.contains(coding)) {
                problems.add(new Problem(at, "'" + coding + "' a second time (expected: each coding once)"));
            } else if (coding.equals("zstd")
                    && dev.sluice.compress.ZstdEncoder.unavailable().isPresent()) {
                problems.add(new Problem(
                        at,
                        "zstd's native library cannot be loaded here ("
                                + dev.sluice.compress.ZstdEncoder.unavailable().get()
                                + ") (expected: gzip, or a machine where zstd-jni loads: it unpacks its"
                                + " library to the temporary directory)"));
            } else {
                codings.add(coding);
            }
        }
        return codings;
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
