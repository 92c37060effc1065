package dev.sluice.app;

import static java.util.Objects.requireNonNull;

import dev.sluice.compose.JsonSplice;
import dev.sluice.config.BoundedYaml;
import dev.sluice.config.ConfigLoader;
import dev.sluice.config.Problem;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

/**
 * {@code sluice import}: a starting configuration from an OpenAPI 3 document (YAML or JSON). One
 * upstream from {@code servers[0].url} (its variables at their defaults), and one proxy route per
 * path, matching the path's operations' methods; {@code {var}} path parameters become Sluice's
 * {@code {var}} segments (a parameter inside a segment, {@code {name}.json}, makes the whole segment a
 * variable: the route matches a little more, and forwards the path unchanged). Routes are ordered so a
 * literal segment matches before a variable one ({@code /pets/mine} before {@code /pets/{id}}), as
 * OpenAPI says. The result is checked as {@code sluice check} checks a file before it is returned.
 */
final class OpenApiImport {

    private static final List<String> METHODS =
            List.of("get", "put", "post", "delete", "options", "head", "patch", "trace");
    private static final Pattern SERVER_VARIABLE = Pattern.compile("\\{([^}]*)}");
    private static final String LOCAL = "http://127.0.0.1:8080";

    /** What was made: the configuration's text, and notes on what was assumed (for stderr). */
    record Result(String yaml, List<String> notes) {}

    /** The document cannot be imported; the message says why. */
    static final class ImportException extends Exception {
        ImportException(String message) {
            super(message);
        }
    }

    /**
     * How deep a document's collections may nest: far beyond a real API's schemas (a few tens of
     * levels), short of the parser's recursion overflowing its stack.
     */
    static final int MAX_NESTING = 256;

    private OpenApiImport() {}

    static Result convert(String document, String sourceName) throws ImportException {
        requireNonNull(document, "document");
        Object root;
        try {
            root = BoundedYaml.load(
                    document,
                    MAX_NESTING,
                    LoadSettings.builder().setLabel(sourceName).build());
        } catch (YamlEngineException e) {
            throw new ImportException(sourceName + " is not YAML or JSON: " + e.getMessage());
        }
        if (!(root instanceof Map<?, ?> api) || !(api.get("openapi") instanceof String version)) {
            throw new ImportException(
                    sourceName + " is not an OpenAPI document (expected: a mapping with 'openapi: 3.x')");
        }
        if (!version.startsWith("3.")) {
            throw new ImportException(
                    sourceName + ": openapi '" + version + "' (expected: 3.x; convert a Swagger 2 document first)");
        }
        List<String> notes = new ArrayList<>();
        String url = upstreamUrl(api.get("servers"), notes);
        String title = api.get("info") instanceof Map<?, ?> info && info.get("title") instanceof String t ? t : "";
        String upstream = name(title, "api");

        Map<String, Set<String>> routes = new LinkedHashMap<>(); // Sluice path → methods
        if (!(api.get("paths") instanceof Map<?, ?> paths) || paths.isEmpty()) {
            throw new ImportException(sourceName + " has no paths (expected: 'paths' with at least one operation)");
        }
        for (Map.Entry<?, ?> entry : paths.entrySet()) {
            String path = String.valueOf(entry.getKey());
            if (!path.startsWith("/") || !(entry.getValue() instanceof Map<?, ?> item)) {
                notes.add("skipped '" + path + "': not a path item");
                continue;
            }
            Set<String> methods = new LinkedHashSet<>();
            for (String method : METHODS) {
                if (item.containsKey(method)) {
                    methods.add(method.toUpperCase(Locale.ROOT));
                }
            }
            if (methods.isEmpty()) {
                notes.add("skipped '" + path + "': no operations");
                continue;
            }
            String pattern = pattern(path, notes);
            routes.computeIfAbsent(pattern, p -> new LinkedHashSet<>()).addAll(methods);
        }
        List<String> ordered = new ArrayList<>(routes.keySet());
        ordered.sort(OpenApiImport::literalFirst);

        StringBuilder yaml = new StringBuilder();
        yaml.append("# Made by `sluice import` from ")
                .append(oneLine(sourceName))
                .append(title.isEmpty() ? "" : " (" + oneLine(title) + ")")
                .append(": a starting point; check it with `sluice check -c FILE`.\n")
                .append("# One proxy route per path; add timeouts, limits and authentication (docs/CONFIG.md).\n")
                .append("server: { host: 127.0.0.1, port: 8080 }\n")
                .append("upstreams:\n")
                .append("  ")
                .append(upstream)
                .append(": { url: ")
                .append(JsonSplice.quote(url))
                .append(" }\n")
                .append("routes:\n");
        Set<String> ids = new LinkedHashSet<>();
        for (String pattern : ordered) {
            String id = name(pattern.replace("{", "").replace("}", ""), "root");
            String unique = id;
            for (int n = 2; !ids.add(unique); n++) {
                unique = id + "-" + n;
            }
            yaml.append("  - id: ")
                    .append(unique)
                    .append("\n    match: { path: ")
                    .append(JsonSplice.quote(pattern))
                    .append(", methods: [")
                    .append(String.join(", ", routes.get(pattern)))
                    .append("] }\n    proxy: { upstream: ")
                    .append(upstream)
                    .append(" }\n");
        }
        List<Problem> problems = ConfigLoader.check(yaml.toString(), "sluice import");
        if (!problems.isEmpty()) {
            throw new ImportException("the configuration made from " + sourceName + " does not check: " + problems);
        }
        return new Result(yaml.toString(), List.copyOf(notes));
    }

    /** {@code servers[0].url} with its variables at their defaults; relative ones on 127.0.0.1:8080. */
    private static String upstreamUrl(Object servers, List<String> notes) throws ImportException {
        if (!(servers instanceof List<?> list) || list.isEmpty() || !(list.getFirst() instanceof Map<?, ?> server)) {
            notes.add("no servers: the upstream is " + LOCAL + " (edit upstreams)");
            return LOCAL;
        }
        if (!(server.get("url") instanceof String written)) {
            throw new ImportException("servers[0].url is missing (expected: the API's base URL)");
        }
        Map<?, ?> variables = server.get("variables") instanceof Map<?, ?> v ? v : Map.of();
        Matcher m = SERVER_VARIABLE.matcher(written);
        StringBuilder url = new StringBuilder();
        while (m.find()) {
            if (!(variables.get(m.group(1)) instanceof Map<?, ?> variable) || variable.get("default") == null) {
                throw new ImportException("servers[0].url: variable '" + m.group(1) + "' has no default");
            }
            m.appendReplacement(url, Matcher.quoteReplacement(String.valueOf(variable.get("default"))));
        }
        m.appendTail(url);
        String resolved = url.toString();
        if (resolved.startsWith("/") || resolved.isEmpty()) {
            notes.add("servers[0].url '" + written + "' is relative: the upstream is " + LOCAL + resolved
                    + " (edit upstreams)");
            resolved = LOCAL + resolved;
        }
        if (list.size() > 1) {
            notes.add("servers[0] used; " + (list.size() - 1) + " more not (add them as endpoints)");
        }
        while (resolved.endsWith("/") && resolved.length() > resolved.indexOf("://") + 3) {
            resolved = resolved.substring(0, resolved.length() - 1); // the base path, without its last '/'
        }
        return resolved;
    }

    /** An OpenAPI path as a Sluice path pattern. */
    private static String pattern(String path, List<String> notes) {
        if (path.equals("/")) {
            return "/";
        }
        String[] segments = path.substring(1).split("/", -1);
        StringBuilder out = new StringBuilder();
        for (String segment : segments) {
            out.append('/');
            int open = segment.indexOf('{');
            if (open < 0) {
                out.append(segment);
                continue;
            }
            int close = segment.indexOf('}', open);
            String name = close < 0 ? segment : segment.substring(open + 1, close);
            String variable = name.replaceAll("[^A-Za-z0-9_-]", "_");
            if (variable.isEmpty()) {
                variable = "var";
            }
            if (open != 0 || close != segment.length() - 1) {
                notes.add("'" + path + "': segment '" + segment + "' is matched as the variable {" + variable + "}");
            }
            out.append('{').append(variable).append('}');
        }
        return out.toString();
    }

    /** Literal segments before variables, segment by segment: the order routes should be tried in. */
    private static int literalFirst(String a, String b) {
        String[] x = a.split("/", -1);
        String[] y = b.split("/", -1);
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
            boolean vx = x[i].startsWith("{");
            boolean vy = y[i].startsWith("{");
            if (vx != vy) {
                return vx ? 1 : -1;
            }
        }
        return 0; // otherwise as the document lists them (a stable sort)
    }

    /** A route or upstream name: lower case, runs of other characters as one '-'. */
    private static String name(String text, String fallback) {
        String name =
                text.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]+", "-").replaceAll("^-+|-+$", "");
        if (name.length() > 40) {
            name = name.substring(0, 40).replaceAll("-+$", "");
        }
        return name.isEmpty() ? fallback : name;
    }

    private static String oneLine(String text) {
        return text.replaceAll("[\\r\\n]+", " ");
    }
}
