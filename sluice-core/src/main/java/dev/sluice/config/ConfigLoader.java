package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
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
     * Loads and validates a configuration file and the files its {@code include:} names.
     *
     * @throws ConfigException listing every problem, or the one problem that the file cannot be read
     */
    public static GatewayConfig load(Path file) throws ConfigException {
        requireNonNull(file, "file");
        return parse(ConfigFiles.read(file));
    }

    /**
     * Validates {@code yaml}, already read from {@code file}, as {@link #load(Path)} does (files it
     * names are looked up beside {@code file}).
     */
    public static GatewayConfig parse(String yaml, Path file) throws ConfigException {
        requireNonNull(yaml, "yaml");
        requireNonNull(file, "file");
        return parse(ConfigFiles.of(yaml, file));
    }

    /** Validates a configuration read as files ({@link ConfigFiles}): for a caller that keeps what it applied. */
    public static GatewayConfig parse(ConfigFiles files) throws ConfigException {
        return parse(files, System::getenv);
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
        return parse(ConfigFiles.of(yaml, sourceName));
    }

    /** Every problem with a configuration file (and its includes), without throwing: empty when it is valid. */
    public static List<Problem> check(Path file) {
        requireNonNull(file, "file");
        List<Problem> problems = new ArrayList<>();
        bind(ConfigFiles.read(file), System::getenv, problems);
        return List.copyOf(problems);
    }

    /** Every problem with a configuration, without throwing: empty when it is valid. */
    public static List<Problem> check(String yaml, String sourceName) {
        requireNonNull(yaml, "yaml");
        requireNonNull(sourceName, "sourceName");
        List<Problem> problems = new ArrayList<>();
        bind(ConfigFiles.of(yaml, sourceName), System::getenv, problems);
        return List.copyOf(problems);
    }

    /**
     * {@link #parse(String, Path)} with the environment {@code env} gives ({@code ${NAME}}) in
     * place of the process's.
     */
    static GatewayConfig parse(String yaml, Path file, Function<String, String> env) throws ConfigException {
        return parse(ConfigFiles.of(yaml, file), env);
    }

    private static GatewayConfig parse(ConfigFiles files, Function<String, String> env) throws ConfigException {
        requireNonNull(files, "files");
        List<Problem> problems = new ArrayList<>();
        Optional<GatewayConfig> config = bind(files, env, problems);
        if (!problems.isEmpty() || config.isEmpty()) {
            throw new ConfigException(files.source(), problems);
        }
        return config.get();
    }

    /** @param env the environment {@code ${NAME}} reads */
    private static Optional<GatewayConfig> bind(
            ConfigFiles files, Function<String, String> env, List<Problem> problems) {
        problems.addAll(files.problems());
        if (files.text().isEmpty()) {
            return Optional.empty();
        }
        Object document;
        try {
            document = Includes.load(files.text().get(), files.source());
        } catch (MarkedYamlEngineException e) {
            problems.add(new Problem("(yaml)", syntaxMessage(e)));
            return Optional.empty();
        } catch (YamlEngineException e) {
            problems.add(new Problem("(yaml)", String.valueOf(e.getMessage())));
            return Optional.empty();
        }
        String rootExpected = "a mapping with keys include, server, admin, upstreams, routes, logging, redis, tracing";
        if (document == null) {
            problems.add(new Problem("(document)", "empty (expected: " + rootExpected + ")"));
            return Optional.empty();
        }
        if (!(document instanceof Map<?, ?> main)) {
            problems.add(new Problem("(document)", Mapping.describe(document) + " (expected: " + rootExpected + ")"));
            return Optional.empty();
        }
        List<Problem> merging = new ArrayList<>();
        Includes.Merged merged = Includes.merge(main, files, merging);
        problems.addAll(merging);
        List<Problem> found = new ArrayList<>();
        Substitution substitution = new Substitution(env, files.base(), found);
        Object resolved = substitution.resolve(merged.tree(), "");
        Optional<GatewayConfig> config = bindRoot(resolved, rootExpected, files.base(), found);
        for (Problem p : substitution.hide(found)) {
            problems.add(merged.locate(p));
        }
        return problems.isEmpty() ? config : Optional.empty();
    }

    private static Optional<GatewayConfig> bindRoot(
            Object document, String rootExpected, Path base, List<Problem> problems) {
        Optional<Mapping> root = Mapping.of(document, "", rootExpected, problems);
        if (root.isEmpty()) { // a whole document from a secret-file
            return Optional.empty();
        }
        Mapping r = root.get();
        r.allowOnly("include", "server", "admin", "upstreams", "routes", "logging", "redis", "tracing");
        ServerConfig server = ServerBinder.server(r, base);
        Optional<AdminConfig> admin = AdminBinder.admin(r, base);
        Optional<RedisConfig> redis = RedisBinder.redis(r);
        Set<String> declared = new LinkedHashSet<>();
        Map<String, UpstreamConfig> upstreams = UpstreamBinder.upstreams(r, declared, base);
        List<RouteConfig> routes = new RouteBinder(declared, base, r.has("redis"), problems).routes(r);
        if (problems.isEmpty()) { // every route bound, so routes[i] is the file's i-th
            transcodedRoutes(routes, upstreams, problems);
        }
        LoggingConfig logging = LoggingBinder.logging(r, base);
        Optional<TracingConfig> tracing = TracingBinder.tracing(r);
        if (!problems.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new GatewayConfig(server, admin, upstreams, routes, logging, redis, tracing));
    }

    /**
     * A {@code grpc-transcode:} route's (or composition part's) upstream speaks h2 or h2c (gRPC needs HTTP/2).
     */
    private static void transcodedRoutes(
            List<RouteConfig> routes, Map<String, UpstreamConfig> upstreams, List<Problem> problems) {
        for (int i = 0; i < routes.size(); i++) {
            if (routes.get(i).target() instanceof ProxyTarget proxy
                    && proxy.transcode().isPresent()
                    && upstreams.get(proxy.upstream()) instanceof UpstreamConfig upstream
                    && !upstream.protocol().multiplexed()) {
                problems.add(new Problem(
                        "routes[" + i + "].proxy.upstream",
                        "'" + proxy.upstream() + "' speaks "
                                + upstream.protocol().key()
                                + " (expected: an upstream of protocol h2 or h2c for grpc-transcode)"));
            }
            if (routes.get(i).target() instanceof ComposeTarget compose) {
                for (PartConfig part : compose.parts()) {
                    if (part.grpc().isPresent()
                            && upstreams.get(part.upstream()) instanceof UpstreamConfig upstream
                            && !upstream.protocol().multiplexed()) {
                        problems.add(new Problem(
                                "routes[" + i + "].compose.parts." + part.name() + ".upstream",
                                "'" + part.upstream() + "' speaks "
                                        + upstream.protocol().key()
                                        + " (expected: an upstream of protocol h2 or h2c for grpc-transcode)"));
                    }
                }
            }
        }
    }

    static String syntaxMessage(MarkedYamlEngineException e) {
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
