package dev.sluice.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

/**
 * {@code include:} — one configuration split across files. The main file names fragments by path or
 * glob ({@code include: conf.d/*.yaml}, or a list of those), relative to the main file; the matches
 * of each pattern are taken in file-name order. Each fragment is a mapping with the main file's keys,
 * merged into it at the top level:
 *
 * <pre>
 *   main.yaml            conf.d/10-orders.yaml     merged
 *   routes: [a]          routes: [b]               routes: [a, b]        lists append
 *   upstreams: {x: ..}   upstreams: {y: ..}        upstreams: {x, y}     mappings merge by key
 *   server: {port: 1}    server: {port: 2}         refused: server.port defined in both files
 * </pre>
 *
 * A problem inside a fragment is reported with the fragment's name and its own path there
 * ({@code conf.d/10-orders.yaml: routes[0].upstream}). Only the main file includes.
 */
final class Includes {

    static final String KEY = "include";
    private static final String PATTERN_EXPECTED =
            "a file name or glob relative to the configuration file (conf.d/*.yaml), or a list of those";

    private Includes() {}

    /** The files the main text names, read now. */
    static ConfigFiles read(String yaml, String source, Path base) {
        List<ConfigFiles.Fragment> fragments = new ArrayList<>();
        List<Path> directories = new ArrayList<>();
        List<Problem> problems = new ArrayList<>();
        Object include = null;
        try {
            if (load(yaml, source) instanceof Map<?, ?> root) {
                include = root.get(KEY);
            }
        } catch (YamlEngineException e) {
            // binding reports the syntax error; there is nothing to include
        }
        List<Object> patterns = include == null
                ? List.of()
                : include instanceof List<?> list ? new ArrayList<>(list) : List.of(include);
        Set<Path> seen = new HashSet<>();
        try {
            Path name = Path.of(source).getFileName();
            if (name != null) {
                seen.add(base.resolve(name.toString()).normalize()); // a glob that matches it skips it
            }
        } catch (java.nio.file.InvalidPathException labelNotAFile) {
            // a label, not a file name: nothing to skip
        }
        for (int i = 0; i < patterns.size(); i++) {
            String path = include instanceof List<?> ? KEY + "[" + i + "]" : KEY;
            if (!(patterns.get(i) instanceof String pattern) || pattern.isBlank()) {
                problems.add(
                        new Problem(path, Mapping.describe(patterns.get(i)) + " (expected: " + PATTERN_EXPECTED + ")"));
                continue;
            }
            expand(pattern, path, base, seen, fragments, directories, problems);
        }
        return new ConfigFiles(source, base, Optional.of(yaml), fragments, directories, problems);
    }

    private static void expand(
            String pattern,
            String path,
            Path base,
            Set<Path> seen,
            List<ConfigFiles.Fragment> fragments,
            List<Path> directories,
            List<Problem> problems) {
        Path written;
        try {
            written = Path.of(pattern);
        } catch (java.nio.file.InvalidPathException e) {
            problems.add(new Problem(
                    path, "'" + pattern + "' is not a file name here (expected: " + PATTERN_EXPECTED + ")"));
            return;
        }
        Path parent = written.getParent();
        if (written.getFileName() == null) {
            problems.add(new Problem(path, "'" + pattern + "' names no file (expected: " + PATTERN_EXPECTED + ")"));
            return;
        }
        String name = written.getFileName().toString();
        if (parent != null && isGlob(parent.toString())) {
            problems.add(new Problem(
                    path,
                    "'" + pattern + "': a glob in a directory name (expected: a glob in the file name only,"
                            + " such as conf.d/*.yaml)"));
            return;
        }
        Path dir = (parent == null ? base : base.resolve(parent)).normalize();
        if (!Files.isDirectory(dir)) {
            problems.add(new Problem(path, "'" + pattern + "': directory '" + dir + "' does not exist"));
            return;
        }
        if (!directories.contains(dir)) {
            directories.add(dir);
        }
        List<Path> matches = new ArrayList<>();
        if (isGlob(name)) {
            PathMatcher matcher;
            try {
                matcher = dir.getFileSystem().getPathMatcher("glob:" + name);
            } catch (java.util.regex.PatternSyntaxException e) {
                problems.add(new Problem(path, "'" + pattern + "' is not a glob: " + e.getDescription()));
                return;
            }
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
                for (Path entry : entries) {
                    if (matcher.matches(entry.getFileName()) && Files.isRegularFile(entry)) {
                        matches.add(entry);
                    }
                }
            } catch (IOException e) {
                problems.add(new Problem(path, "'" + pattern + "': directory '" + dir + "' cannot be listed: " + e));
                return;
            }
            matches.sort((a, b) ->
                    a.getFileName().toString().compareTo(b.getFileName().toString()));
        } else {
            Path file = dir.resolve(name);
            if (!Files.isRegularFile(file)) {
                problems.add(new Problem(path, "'" + pattern + "': '" + file + "' does not exist"));
                return;
            }
            matches.add(file);
        }
        for (Path file : matches) {
            if (!seen.add(file.normalize())) { // the main file, or a file two patterns match: merged once
                continue;
            }
            String shown = file.startsWith(base) ? base.relativize(file).toString() : file.toString();
            try {
                fragments.add(new ConfigFiles.Fragment(shown, file, Files.readString(file, StandardCharsets.UTF_8)));
            } catch (IOException e) {
                problems.add(new Problem(shown, ConfigFiles.unreadable(file, e).message()));
            }
        }
    }

    private static boolean isGlob(String text) {
        for (char c : new char[] {'*', '?', '[', '{'}) {
            if (text.indexOf(c) >= 0) {
                return true;
            }
        }
        return false;
    }

    /** The main document and the fragments merged, and where each merged part came from. */
    record Merged(Map<String, Object> tree, List<Span> spans, Map<String, String> origins) {

        /** {@code problem} at its path in the file that wrote it. */
        Problem locate(Problem problem) {
            String path = problem.path();
            for (Span span : spans) {
                String prefix = span.key() + "[";
                if (path.startsWith(prefix)) {
                    int close = path.indexOf(']', prefix.length());
                    if (close > 0) {
                        try {
                            int index = Integer.parseInt(path.substring(prefix.length(), close));
                            if (index >= span.start() && index < span.start() + span.count()) {
                                return new Problem(
                                        span.file() + ": " + prefix + (index - span.start()) + path.substring(close),
                                        problem.message());
                            }
                        } catch (NumberFormatException notAnIndex) {
                            // not a list index: not this span
                        }
                    }
                }
            }
            for (Map.Entry<String, String> origin : origins.entrySet()) {
                String key = origin.getKey();
                if (path.equals(key) || path.startsWith(key + ".") || path.startsWith(key + "[")) {
                    return new Problem(origin.getValue() + ": " + path, problem.message());
                }
            }
            return problem;
        }
    }

    /** Items {@code start..start+count-1} of the top-level list {@code key} came from {@code file}. */
    record Span(String key, int start, int count, String file) {}

    /** Merges the fragments of {@code files} into its main text (which must be valid YAML). */
    static Merged merge(ConfigFiles files, List<Problem> problems) {
        Object main;
        try {
            main = load(files.text().orElse(""), files.source());
        } catch (YamlEngineException e) {
            main = null;
        }
        return merge(main instanceof Map<?, ?> m ? m : Map.of(), files, problems);
    }

    /** Merges the fragments of {@code files} into {@code main}, the parsed main file; adds conflicts to {@code problems}. */
    static Merged merge(Map<?, ?> main, ConfigFiles files, List<Problem> problems) {
        Map<String, Object> tree = new LinkedHashMap<>();
        main.forEach((k, v) -> tree.put(String.valueOf(k), v));
        tree.remove(KEY);
        List<Span> spans = new ArrayList<>();
        Map<String, String> origins = new LinkedHashMap<>();
        for (ConfigFiles.Fragment fragment : files.fragments()) {
            Object document;
            try {
                document = load(fragment.text(), fragment.name());
            } catch (MarkedYamlEngineException e) {
                problems.add(new Problem(fragment.name() + ": (yaml)", ConfigLoader.syntaxMessage(e)));
                continue;
            } catch (YamlEngineException e) {
                problems.add(new Problem(fragment.name() + ": (yaml)", String.valueOf(e.getMessage())));
                continue;
            }
            if (document == null) { // an empty fragment adds nothing
                continue;
            }
            if (!(document instanceof Map<?, ?> map)) {
                problems.add(new Problem(
                        fragment.name() + ": (document)",
                        Mapping.describe(document) + " (expected: a mapping with the configuration's keys)"));
                continue;
            }
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                String key = String.valueOf(entry.getKey());
                if (key.equals(KEY)) {
                    problems.add(new Problem(
                            fragment.name() + ": " + KEY,
                            "an included file includes (expected: include only in the main file)"));
                    continue;
                }
                add(tree, key, entry.getValue(), fragment.name(), files.source(), spans, origins, problems);
            }
        }
        return new Merged(tree, List.copyOf(spans), Map.copyOf(origins));
    }

    private static void add(
            Map<String, Object> tree,
            String key,
            Object value,
            String file,
            String mainSource,
            List<Span> spans,
            Map<String, String> origins,
            List<Problem> problems) {
        Object existing = tree.get(key);
        if (value == null) {
            return;
        }
        if (existing == null) {
            if (value instanceof List<?> list) {
                spans.add(new Span(key, 0, list.size(), file));
                tree.put(key, new ArrayList<Object>(list));
            } else if (value instanceof Map<?, ?> map) {
                Map<String, Object> copy = new LinkedHashMap<>();
                map.forEach((k, v) -> {
                    copy.put(String.valueOf(k), v);
                    origins.put(key + "." + k, file);
                });
                tree.put(key, copy);
            } else {
                tree.put(key, value);
                origins.put(key, file);
            }
            return;
        }
        if (existing instanceof List<?> before && value instanceof List<?> more) {
            List<Object> joined = new ArrayList<>(before);
            spans.add(new Span(key, joined.size(), more.size(), file));
            joined.addAll(more);
            tree.put(key, joined);
            return;
        }
        if (existing instanceof Map<?, ?> before && value instanceof Map<?, ?> more) {
            Map<String, Object> joined = new LinkedHashMap<>();
            before.forEach((k, v) -> joined.put(String.valueOf(k), v));
            for (Map.Entry<?, ?> e : more.entrySet()) {
                String inner = key + "." + e.getKey();
                if (joined.containsKey(String.valueOf(e.getKey()))) {
                    problems.add(new Problem(
                            inner,
                            "defined in both " + origins.getOrDefault(inner, mainSource) + " and " + file
                                    + " (expected: each key in one file)"));
                    continue;
                }
                joined.put(String.valueOf(e.getKey()), e.getValue());
                origins.put(inner, file);
            }
            tree.put(key, joined);
            return;
        }
        problems.add(new Problem(
                key,
                "defined in both " + origins.getOrDefault(key, mainSource) + " (" + Mapping.describe(existing)
                        + ") and " + file + " (" + Mapping.describe(value)
                        + ") (expected: lists, which append, or mappings, whose keys are each in one file)"));
    }

    /** How deep collections may nest in a file: far beyond any real configuration's (about ten). */
    static final int MAX_NESTING = 64;

    /**
     * Parses one file's YAML as the loader does, its nesting bounded ({@link BoundedYaml}).
     *
     * @throws YamlEngineException when it does not parse or nests deeper than {@link #MAX_NESTING}
     */
    static Object load(String yaml, String label) {
        return BoundedYaml.load(
                yaml,
                MAX_NESTING,
                LoadSettings.builder()
                        .setLabel(label)
                        .setAllowDuplicateKeys(false)
                        .setMaxAliasesForCollections(50)
                        .build());
    }
}
