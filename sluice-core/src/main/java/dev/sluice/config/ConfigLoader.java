package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

/**
 * Reads a gateway configuration from YAML (kebab-case keys) into {@link GatewayConfig}, checking it
 * whole: every problem is collected with its path ({@code routes[1].compose.parts.route.upstream})
 * before the file is refused. Binding is done by hand, without reflection, so it works in a native
 * image.
 */
public final class ConfigLoader {

    static final String NAME_EXPECTED = "a name of a-z, 0-9, '-' and '_'";

    private ConfigLoader() {}

    /**
     * Loads and validates a configuration file.
     *
     * @throws ConfigException listing every problem, or the one problem that the file cannot be read
     */
    public static GatewayConfig load(Path file) throws ConfigException {
        requireNonNull(file, "file");
        String source = file.toString();
        String yaml;
        try {
            yaml = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException(source, List.of(unreadable(file, e)));
        }
        List<Problem> problems = new ArrayList<>();
        Optional<GatewayConfig> config = bind(yaml, source, baseOf(file), System::getenv, problems);
        if (!problems.isEmpty() || config.isEmpty()) {
            throw new ConfigException(source, problems);
        }
        return config.get();
    }

    /**
     * Validates {@code yaml}, already read from {@code file}, as {@link #load(Path)} does (files it
     * names are looked up beside {@code file}): for a caller that keeps the text it applied.
     */
    public static GatewayConfig parse(String yaml, Path file) throws ConfigException {
        requireNonNull(yaml, "yaml");
        requireNonNull(file, "file");
        List<Problem> problems = new ArrayList<>();
        Optional<GatewayConfig> config = bind(yaml, file.toString(), baseOf(file), System::getenv, problems);
        if (!problems.isEmpty() || config.isEmpty()) {
            throw new ConfigException(file.toString(), problems);
        }
        return config.get();
    }

    /** Where the files a configuration names ({@code jwks-file}, {@code keys-file}) are looked up. */
    private static Path baseOf(Path file) {
        Path parent = file.toAbsolutePath().getParent();
        return parent != null ? parent : Path.of("").toAbsolutePath();
    }

    /**
     * Parses and validates a configuration.
     *
     * @param sourceName the file name (or label) used in messages
     * @throws ConfigException listing every problem
     */
    public static GatewayConfig parse(String yaml, String sourceName) throws ConfigException {
        requireNonNull(yaml, "yaml");
        requireNonNull(sourceName, "sourceName");
        List<Problem> problems = new ArrayList<>();
        Optional<GatewayConfig> config = bind(yaml, sourceName, Path.of("").toAbsolutePath(), System::getenv, problems);
        if (!problems.isEmpty() || config.isEmpty()) {
            throw new ConfigException(sourceName, problems);
        }
        return config.get();
    }

    /** Every problem with a configuration file, without throwing: empty when it is valid. */
    public static List<Problem> check(Path file) {
        requireNonNull(file, "file");
        try {
            String yaml = Files.readString(file, StandardCharsets.UTF_8);
            List<Problem> problems = new ArrayList<>();
            bind(yaml, file.toString(), baseOf(file), System::getenv, problems);
            return List.copyOf(problems);
        } catch (IOException e) {
            return List.of(unreadable(file, e));
        }
    }

    /** Every problem with a configuration, without throwing: empty when it is valid. */
    public static List<Problem> check(String yaml, String sourceName) {
        requireNonNull(yaml, "yaml");
        requireNonNull(sourceName, "sourceName");
        List<Problem> problems = new ArrayList<>();
        bind(yaml, sourceName, Path.of("").toAbsolutePath(), System::getenv, problems);
        return List.copyOf(problems);
    }

    private static Problem unreadable(Path file, IOException e) {
        if (e instanceof NoSuchFileException) {
            return new Problem("(file)", "'" + file + "' does not exist (expected: a readable YAML file)");
        }
        return new Problem("(file)", "'" + file + "' cannot be read: " + e + " (expected: a readable UTF-8 YAML file)");
    }

    /**
     * {@link #parse(String, Path)} with the environment {@code env} gives ({@code ${NAME}}) in
     * place of the process's.
     */
    static GatewayConfig parse(String yaml, Path file, Function<String, String> env) throws ConfigException {
        List<Problem> problems = new ArrayList<>();
        Optional<GatewayConfig> config = bind(yaml, file.toString(), baseOf(file), env, problems);
        if (!problems.isEmpty() || config.isEmpty()) {
            throw new ConfigException(file.toString(), problems);
        }
        return config.get();
    }

    /**
     * @param base the directory relative file names in the configuration are resolved against
     * @param env the environment {@code ${NAME}} reads
     */
    private static Optional<GatewayConfig> bind(
            String yaml, String sourceName, Path base, Function<String, String> env, List<Problem> problems) {
        Object document;
        try {
            LoadSettings settings = LoadSettings.builder()
                    .setLabel(sourceName)
                    .setAllowDuplicateKeys(false)
                    .setMaxAliasesForCollections(50)
                    .build();
            document = new Load(settings).loadFromString(yaml);
        } catch (MarkedYamlEngineException e) {
            problems.add(new Problem("(yaml)", syntaxMessage(e)));
            return Optional.empty();
        } catch (YamlEngineException e) {
            problems.add(new Problem("(yaml)", String.valueOf(e.getMessage())));
            return Optional.empty();
        }
        String rootExpected = "a mapping with keys server, admin, upstreams, routes, logging, redis, tracing";
        if (document == null) {
            problems.add(new Problem("(document)", "empty (expected: " + rootExpected + ")"));
            return Optional.empty();
        }
        if (!(document instanceof Map<?, ?>)) {
            problems.add(new Problem("(document)", Mapping.describe(document) + " (expected: " + rootExpected + ")"));
            return Optional.empty();
        }
        Substitution substitution = new Substitution(env, base, problems);
        document = substitution.resolve(document, "");
        Optional<GatewayConfig> config = bindRoot(document, rootExpected, base, problems);
        List<Problem> hidden = List.copyOf(substitution.hide(problems));
        problems.clear();
        problems.addAll(hidden);
        return problems.isEmpty() ? config : Optional.empty();
    }

    private static Optional<GatewayConfig> bindRoot(
            Object document, String rootExpected, Path base, List<Problem> problems) {
        Optional<Mapping> root = Mapping.of(document, "", rootExpected, problems);
        if (root.isEmpty()) { // a whole document from a secret-file
            return Optional.empty();
        }
        Mapping r = root.get();
        r.allowOnly("server", "admin", "upstreams", "routes", "logging", "redis", "tracing");
        ServerConfig server = ServerBinder.server(r, base);
        Optional<AdminConfig> admin = AdminBinder.admin(r);
        Optional<RedisConfig> redis = RedisBinder.redis(r);
        Set<String> declared = new LinkedHashSet<>();
        Map<String, UpstreamConfig> upstreams = UpstreamBinder.upstreams(r, declared, base);
        List<RouteConfig> routes = new RouteBinder(declared, base, r.has("redis"), problems).routes(r);
        LoggingConfig logging = LoggingBinder.logging(r, base);
        Optional<TracingConfig> tracing = TracingBinder.tracing(r);
        if (!problems.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new GatewayConfig(server, admin, upstreams, routes, logging, redis, tracing));
    }

    private static String syntaxMessage(MarkedYamlEngineException e) {
        Optional<Mark> mark = e.getProblemMark().or(e::getContextMark);
        StringBuilder sb = new StringBuilder();
        mark.ifPresent(m -> sb.append("line ")
                .append(m.getLine() + 1)
                .append(", column ")
                .append(m.getColumn() + 1)
                .append(": "));
        if (e.getContext() != null) {
            sb.append(e.getContext()).append(": ");
        }
        sb.append(e.getProblem() == null ? "invalid YAML" : e.getProblem());
        return sb.toString();
    }

    static boolean isName(String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) {
                return false;
            }
        }
        return true;
    }
}
