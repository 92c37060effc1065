package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
        Optional<GatewayConfig> config = bind(yaml, source, baseOf(file), problems);
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
        Optional<GatewayConfig> config = bind(yaml, file.toString(), baseOf(file), problems);
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
        Optional<GatewayConfig> config = bind(yaml, sourceName, Path.of("").toAbsolutePath(), problems);
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
            bind(yaml, file.toString(), baseOf(file), problems);
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
        bind(yaml, sourceName, Path.of("").toAbsolutePath(), problems);
        return List.copyOf(problems);
    }

    private static Problem unreadable(Path file, IOException e) {
        if (e instanceof NoSuchFileException) {
            return new Problem("(file)", "'" + file + "' does not exist (expected: a readable YAML file)");
        }
        return new Problem("(file)", "'" + file + "' cannot be read: " + e + " (expected: a readable UTF-8 YAML file)");
    }

    /** @param base the directory relative file names in the configuration are resolved against */
    private static Optional<GatewayConfig> bind(String yaml, String sourceName, Path base, List<Problem> problems) {
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
        Mapping r = Mapping.of(document, "", rootExpected, problems).orElseThrow();
        r.allowOnly("server", "admin", "upstreams", "routes", "logging", "redis", "tracing");
        ServerConfig server = server(r, base);
        Optional<AdminConfig> admin = admin(r);
        Optional<RedisConfig> redis = redis(r);
        Set<String> declared = new LinkedHashSet<>();
        Map<String, UpstreamConfig> upstreams = upstreams(r, declared, base);
        List<RouteConfig> routes = new RouteBinder(declared, base, r.has("redis"), problems).routes(r);
        LoggingConfig logging = logging(r);
        Optional<TracingConfig> tracing = tracing(r);
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

    private static ServerConfig server(Mapping root, Path base) {
        ServerConfig d = ServerConfig.defaults();
        Optional<Mapping> section = root.mapping("server", "a mapping of server settings");
        if (section.isEmpty()) {
            return d;
        }
        Mapping m = section.get();
        m.allowOnly(
                "host",
                "port",
                "engine",
                "platform-threads",
                "fanout-threads",
                "shutdown-grace",
                "read-ahead",
                "transport",
                "limits",
                "tls",
                "http2");
        String host = m.string("host", "a host name or address").orElse(d.host());
        if (host.isBlank()) {
            m.problem("host", "'' (expected: a host name or address)");
        }
        int port = m.integer("port", d.port(), 0, 65535, "a port 0..65535");
        String engineKey = m.choice("engine", d.engine().key(), "virtual", "platform", "reactive");
        EngineMode engine = EngineMode.fromKey(engineKey).orElse(d.engine());
        int platformThreads =
                m.integer("platform-threads", d.platformThreads(), 1, Integer.MAX_VALUE, "an integer > 0");
        int fanoutThreads = m.integer("fanout-threads", d.fanoutThreads(), 1, Integer.MAX_VALUE, "an integer > 0");
        Duration grace = m.duration("shutdown-grace", d.shutdownGrace());
        int readAhead = m.size("read-ahead", d.readAhead(), 1024, "a size >= 1024 bytes, such as 16384, 16KiB, 1MiB");
        String transportKey = m.choice("transport", d.transport().key(), "auto", "nio", "io_uring");
        Transport transport = Transport.fromKey(transportKey).orElse(d.transport());
        if (transport == Transport.IO_URING && engine != EngineMode.REACTIVE) {
            m.problem(
                    "transport",
                    "'io_uring' needs engine 'reactive' (expected: auto or nio for engine '" + engine.key() + "')");
        }
        ServerLimits limits = m.mapping("limits", "a mapping of limits")
                .map(l -> limits(l, readAhead))
                .orElse(d.limits());
        Optional<TlsConfig> tls = m.mapping("tls", "a mapping with certificate and key (PEM files)")
                .flatMap(t -> tls(t, base));
        Http2Settings http2 = d.http2().enabled(m.bool("http2", d.http2().enabled()));
        return new ServerConfig(
                host, port, engine, platformThreads, fanoutThreads, grace, readAhead, transport, limits, tls, http2);
    }

    /** {@code server.tls}: its keys, then every file it names, checked as the listener will read them. */
    private static Optional<TlsConfig> tls(Mapping m, Path base) {
        m.allowOnly("certificate", "key", "sni", "client-auth", "client-ca", "protocols");
        int before = m.problems().size();
        Optional<TlsConfig.CertificateFiles> certificate = certificateFiles(m, base);
        List<TlsConfig.CertificateFiles> sni = new ArrayList<>();
        m.list("sni", "a list of {certificate, key} mappings").ifPresent(items -> {
            for (int i = 0; i < items.size(); i++) {
                Mapping.of(
                                items.get(i),
                                m.child("sni") + "[" + i + "]",
                                "a mapping with certificate and key",
                                m.problems())
                        .flatMap(item -> {
                            item.allowOnly("certificate", "key");
                            return certificateFiles(item, base);
                        })
                        .ifPresent(sni::add);
            }
        });
        String clientAuthKey = m.choice("client-auth", "none", "none", "optional", "require");
        TlsConfig.ClientAuth clientAuth =
                TlsConfig.ClientAuth.valueOf(clientAuthKey.toUpperCase(java.util.Locale.ROOT));
        Optional<Path> clientCa =
                m.string("client-ca", "a PEM file of CA certificates").map(base::resolve);
        if (clientAuth != TlsConfig.ClientAuth.NONE && clientCa.isEmpty()) {
            m.problem(
                    "client-ca",
                    "missing (expected: the PEM bundle of the CAs that sign client certificates, with client-auth "
                            + clientAuth.key() + ")");
        } else if (clientAuth == TlsConfig.ClientAuth.NONE && clientCa.isPresent()) {
            m.problem(
                    "client-ca",
                    "set, but client-auth is none, so no client is asked for a certificate (expected: client-auth"
                            + " optional or require, or no client-ca)");
        }
        List<String> protocols = protocols(m);
        if (certificate.isEmpty() || m.problems().size() != before) {
            return Optional.empty();
        }
        TlsConfig tls = new TlsConfig(certificate.get(), sni, clientAuth, clientCa, protocols);
        dev.sluice.tls.ServerCertificates.Checked checked =
                dev.sluice.tls.ServerCertificates.load(tls, m.path(), java.time.Instant.now());
        m.problems().addAll(checked.problems());
        return checked.problems().isEmpty() ? Optional.of(tls) : Optional.empty();
    }

    /** {@code protocols}: a subset of TLS 1.3 and 1.2 ({@code server.tls}, {@code upstreams.NAME.tls}). */
    static List<String> protocols(Mapping m) {
        List<String> protocols = TlsConfig.DEFAULT_PROTOCOLS;
        String protocolsExpected = "a list of TLSv1.3 and TLSv1.2";
        Optional<List<?>> listed = m.list("protocols", protocolsExpected);
        if (listed.isPresent()) {
            List<String> chosen = new ArrayList<>();
            for (Object item : listed.get()) {
                if (item instanceof String p && TlsConfig.DEFAULT_PROTOCOLS.contains(p)) {
                    if (!chosen.contains(p)) {
                        chosen.add(p);
                    }
                } else {
                    m.problem(
                            "protocols",
                            Mapping.describe(item) + " is not offered: older versions are broken or deprecated"
                                    + " (RFC 8996) (expected: " + protocolsExpected + ")");
                }
            }
            if (listed.get().isEmpty()) {
                m.problem("protocols", "an empty list (expected: " + protocolsExpected + ")");
            }
            protocols = chosen;
        }
        return protocols;
    }

    static Optional<TlsConfig.CertificateFiles> certificateFiles(Mapping m, Path base) {
        Optional<String> certificate = m.requiredString("certificate", "a PEM file: the certificate chain, leaf first");
        Optional<String> key = m.requiredString("key", "a PEM file: the certificate's PKCS#8 private key");
        if (certificate.isEmpty() || key.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new TlsConfig.CertificateFiles(base.resolve(certificate.get()), base.resolve(key.get())));
    }

    /** {@code bytes} as a configuration would say it: {@code 256KiB}, {@code 64MiB}, or bytes. */
    private static String sizeText(long bytes) {
        if (bytes % (1 << 20) == 0) {
            return (bytes >> 20) + "MiB";
        }
        return bytes % 1024 == 0 ? (bytes >> 10) + "KiB" : Long.toString(bytes);
    }

    private static ServerLimits limits(Mapping m, int readAhead) {
        ServerLimits d = ServerLimits.defaults();
        m.allowOnly(
                "max-request-line",
                "max-header-bytes",
                "max-headers",
                "max-body",
                "header-timeout",
                "idle-timeout",
                "max-connections",
                "max-requests",
                "websocket-idle-timeout",
                "max-read-ahead");
        int requestLine =
                m.size("max-request-line", d.maxRequestLine(), 256, "a size from 256 bytes, such as 8KiB (414 beyond)");
        int headerBytes =
                m.size("max-header-bytes", d.maxHeaderBytes(), 1024, "a size from 1 KiB, such as 16KiB (431 beyond)");
        int headers = m.integer("max-headers", d.maxHeaders(), 1, 10_000, "a whole number from 1 to 10000");
        long body = m.has("max-body") && "none".equals(m.raw("max-body"))
                ? ServerLimits.UNLIMITED
                : m.longSize("max-body", d.maxBody(), 0, "a size such as 10MiB, or none");
        Duration headerTimeout = m.duration("header-timeout", d.headerTimeout());
        Duration idleTimeout = m.duration("idle-timeout", d.idleTimeout());
        int connections =
                m.integer("max-connections", d.maxConnections(), 1, 1_000_000, "a whole number from 1 to 1000000");
        int requests =
                m.integer("max-requests", d.maxRequests(), 0, 1_000_000, "a whole number from 0 (no bound) to 1000000");
        Duration websocketIdle = m.duration("websocket-idle-timeout", d.websocketIdleTimeout());
        long readAheadFloor = Math.max(ServerLimits.MIN_READ_AHEAD, 4L * readAhead);
        String readAheadExpected = "auto, or a size from " + sizeText(readAheadFloor)
                + " (256KiB, and at least four times server.read-ahead), such as 64MiB";
        long maxReadAhead = m.has("max-read-ahead") && "auto".equals(m.raw("max-read-ahead"))
                ? ServerLimits.AUTO
                : m.longSize("max-read-ahead", d.maxReadAhead(), readAheadFloor, readAheadExpected);
        return new ServerLimits(
                requestLine,
                headerBytes,
                headers,
                body,
                headerTimeout,
                idleTimeout,
                connections,
                requests,
                websocketIdle,
                maxReadAhead);
    }

    private static Optional<RedisConfig> redis(Mapping root) {
        if (!root.has("redis")) {
            return Optional.empty();
        }
        Optional<Mapping> section = root.mapping("redis", "a mapping with url, timeout and prefix");
        if (section.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = section.get();
        m.allowOnly("url", "timeout", "prefix");
        int before = m.problems().size();
        String expected = "a URL such as redis://127.0.0.1:6379, redis://:password@host:6379/0, rediss://host:6380";
        Optional<URI> url = m.requiredString("url", expected).flatMap(text -> {
            Optional<URI> parsed = redisUrl(text);
            if (parsed.isEmpty()) {
                m.problem("url", "'" + Redact.url(text) + "' (expected: " + expected + ")");
            }
            return parsed;
        });
        Duration timeout = m.duration("timeout", RedisConfig.DEFAULT_TIMEOUT);
        String prefix = m.string("prefix", "a key prefix such as 'sluice:rl:'").orElse(RedisConfig.DEFAULT_PREFIX);
        if (url.isEmpty() || m.problems().size() != before) {
            return Optional.empty();
        }
        return Optional.of(new RedisConfig(url.get(), timeout, prefix));
    }

    /**
     * A Redis URL the shared store can use: {@code redis} or {@code rediss}, a host, a valid port. (Unix
     * sockets need a native Netty transport Lettuce does not find here, so they are not offered.)
     */
    private static Optional<URI> redisUrl(String text) {
        URI uri;
        try {
            uri = new URI(text);
        } catch (java.net.URISyntaxException e) {
            return Optional.empty();
        }
        String scheme = uri.getScheme();
        if (scheme == null) {
            return Optional.empty();
        }
        return switch (scheme) {
            case "redis", "rediss" ->
                uri.getHost() != null && uri.getPort() <= 65535 && (uri.getPort() > 0 || uri.getPort() == -1)
                        ? Optional.of(uri)
                        : Optional.empty();
            default -> Optional.empty();
        };
    }

    private static Optional<TracingConfig> tracing(Mapping root) {
        if (!root.has("tracing")) {
            return Optional.empty();
        }
        Optional<Mapping> tracing = root.mapping("tracing", "a mapping with otlp");
        Optional<Mapping> otlp = tracing.flatMap(t -> {
            t.allowOnly("otlp");
            if (!t.has("otlp")) {
                t.problem("otlp", "missing (expected: a mapping with endpoint)");
                return Optional.empty();
            }
            return t.mapping("otlp", "a mapping with endpoint");
        });
        if (otlp.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = otlp.get();
        m.allowOnly("endpoint");
        String expected = "an http:// or https:// URL such as http://collector:4318/v1/traces";
        return m.requiredString("endpoint", expected).flatMap(text -> {
            URI uri;
            try {
                uri = new URI(text);
            } catch (URISyntaxException e) {
                m.problem("endpoint", "'" + Redact.url(text) + "' (expected: " + expected + ")");
                return Optional.empty();
            }
            String scheme = uri.getScheme();
            if (!("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))
                    || uri.getHost() == null
                    || uri.getPort() > 65535) {
                m.problem("endpoint", "'" + Redact.url(text) + "' (expected: " + expected + ")");
                return Optional.empty();
            }
            return Optional.of(new TracingConfig(uri));
        });
    }

    private static Optional<AdminConfig> admin(Mapping root) {
        if (!root.has("admin")) {
            return Optional.empty();
        }
        Optional<Mapping> section = root.mapping("admin", "a mapping with host and port");
        if (section.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = section.get();
        m.allowOnly("host", "port", "drain-delay");
        String host = m.string("host", "a host name or address").orElse("127.0.0.1");
        if (host.isBlank()) {
            m.problem("host", "'' (expected: a host name or address)");
        }
        int port = m.integer("port", 9090, 0, 65535, "a port 0..65535");
        Duration drainDelay = m.has("drain-delay") && "0s".equals(m.raw("drain-delay"))
                ? Duration.ZERO
                : m.duration("drain-delay", Duration.ZERO);
        return Optional.of(new AdminConfig(host, port, drainDelay));
    }

    private static LoggingConfig logging(Mapping root) {
        LoggingConfig d = LoggingConfig.defaults();
        Optional<Mapping> section = root.mapping("logging", "a mapping with format, level and loggers");
        if (section.isEmpty()) {
            return d;
        }
        Mapping m = section.get();
        m.allowOnly("format", "level", "loggers", "access");
        LoggingConfig.Format format = LoggingConfig.Format.fromKey(
                        m.choice("format", d.format().key(), "text", "json"))
                .orElse(d.format());
        LoggingConfig.Level level = level(m, "level", d.level());
        Map<String, LoggingConfig.Level> loggers = new LinkedHashMap<>();
        m.mapping("loggers", "a mapping of logger name to level, such as {org.eclipse.jetty: warn}")
                .ifPresent(l -> {
                    for (String name : l.keys()) {
                        if (!isLoggerName(name)) {
                            l.problem(name, "'" + name + "' (expected: a logger name such as org.eclipse.jetty)");
                        }
                        loggers.put(name, level(l, name, d.level()));
                    }
                });
        Optional<LoggingConfig.AccessLog> access = m.mapping("access", "a mapping with format, to and queue")
                .map(a -> {
                    a.allowOnly("format", "to", "queue");
                    boolean combined = a.choice("format", "json", "json").equals("combined");
                    String to = a.string("to", "stdout, stderr or a file path").orElse("stdout");
                    if (to.isBlank()) {
                        a.problem("to", "'' (expected: stdout, stderr or a file path)");
                    }
                    int queue = a.integer("queue", 8192, 16, 1_000_000, "a whole number from 16 to 1000000");
                    return new LoggingConfig.AccessLog(combined, to, queue);
                });
        return new LoggingConfig(format, level, loggers, access);
    }

    private static LoggingConfig.Level level(Mapping m, String key, LoggingConfig.Level defaultLevel) {
        String chosen = m.choice(key, defaultLevel.key(), "trace", "debug", "info", "warn", "error");
        return LoggingConfig.Level.fromKey(chosen).orElse(defaultLevel);
    }

    /** Dot-separated Java identifiers, as logger names are (class and package names). */
    private static boolean isLoggerName(String name) {
        for (String part : name.split("\\.", -1)) {
            if (part.isEmpty() || !Character.isJavaIdentifierStart(part.charAt(0))) {
                return false;
            }
            for (int i = 1; i < part.length(); i++) {
                if (!Character.isJavaIdentifierPart(part.charAt(i))) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Binds {@code upstreams:}; every name is added to {@code declared}, even when its settings are bad. */
    private static Map<String, UpstreamConfig> upstreams(Mapping root, Set<String> declared, Path base) {
        Map<String, UpstreamConfig> upstreams = new LinkedHashMap<>();
        Optional<Mapping> section = root.mapping("upstreams", "a mapping of upstream name to settings");
        if (section.isEmpty()) {
            return upstreams;
        }
        for (Map.Entry<String, Object> e : section.get().entries()) {
            String name = e.getKey();
            declared.add(name);
            String path = section.get().child(name);
            if (!isName(name)) {
                root.problems().add(new Problem(path, "'" + name + "' (expected: " + NAME_EXPECTED + ")"));
            }
            Mapping.of(e.getValue(), path, "a mapping with url and pool settings", root.problems())
                    .flatMap(m -> upstream(name, m, base))
                    .ifPresent(u -> upstreams.put(name, u));
        }
        return upstreams;
    }

    private static Optional<UpstreamConfig> upstream(String name, Mapping m, Path base) {
        m.allowOnly(
                "url",
                "endpoints",
                "balance",
                "health-check",
                "outlier-detection",
                "retry",
                "circuit-breaker",
                "max-connections",
                "connect-timeout",
                "read-timeout",
                "acquire-timeout",
                "max-pending",
                "idle-timeout",
                "max-lifetime",
                "tls",
                "pace");
        int before = m.problems().size();
        Optional<List<URI>> endpoints = ResilienceBinder.endpoints(m);
        UpstreamConfig d = UpstreamConfig.of(name, URI.create("http://localhost"));
        int maxConnections = m.integer("max-connections", d.maxConnections(), 1, Integer.MAX_VALUE, "an integer > 0");
        Duration connect = m.duration("connect-timeout", d.connectTimeout());
        Duration read = m.duration("read-timeout", d.readTimeout());
        Duration acquire = m.duration("acquire-timeout", d.acquireTimeout());
        int maxPending = m.integer("max-pending", d.maxPending(), 0, Integer.MAX_VALUE, "an integer >= 0");
        Duration idle = m.duration("idle-timeout", d.idleTimeout());
        Optional<Duration> maxLifetime = m.duration("max-lifetime");
        Optional<UpstreamTlsConfig> tls = UpstreamTlsBinder.bind(m, endpoints, base);
        Optional<Pace> pace =
                m.mapping("pace", "a mapping such as {permits: 1, per: 200ms}").flatMap(ConfigLoader::pace);
        // bound even when the endpoints are bad, so that every problem is listed at once
        Optional<UpstreamResilience> resilience =
                ResilienceBinder.bind(m, endpoints.orElse(List.of(URI.create("http://localhost"))));
        if (endpoints.isEmpty() || resilience.isEmpty() || m.problems().size() != before) {
            return Optional.empty();
        }
        URI url = endpoints.get().getFirst();
        return Optional.of(new UpstreamConfig(
                name,
                url,
                maxConnections,
                connect,
                read,
                acquire,
                maxPending,
                idle,
                pace,
                resilience.get(),
                tls,
                maxLifetime));
    }

    private static Optional<Pace> pace(Mapping m) {
        m.allowOnly("permits", "per");
        boolean hasPermits = m.require("permits", "an integer > 0");
        boolean hasPer = m.require("per", Quantities.DURATION_EXPECTED);
        Optional<Integer> permits = m.integer("permits", 1, Integer.MAX_VALUE, "an integer > 0");
        Optional<Duration> per = m.duration("per");
        if (!hasPermits || !hasPer || permits.isEmpty() || per.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Pace(permits.get(), per.get()));
    }

    /** An upstream endpoint's URL; {@code key} names it in a problem ({@code url}, {@code endpoints[1]}). */
    static Optional<URI> url(String key, String text, Mapping m) {
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            m.problem(
                    key,
                    "'" + Redact.url(text) + "' is not a URL: " + e.getReason()
                            + " (expected: an http:// or https:// URL such as http://127.0.0.1:8081)");
            return Optional.empty();
        }
        String scheme = uri.getScheme();
        String problem = null;
        if (!"http".equalsIgnoreCase(scheme) && !"https".equalsIgnoreCase(scheme)) {
            problem = "an http:// or https:// URL such as http://127.0.0.1:8081";
        } else if (uri.getHost() == null || uri.getHost().isEmpty()) {
            problem = "a URL with a host";
        } else if (uri.getPort() > 65535) {
            problem = "a URL with a port 1..65535";
        } else if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            problem = "a URL without query or fragment";
        } else if (uri.getRawUserInfo() != null) {
            problem = "a URL without user info";
        }
        if (problem != null) {
            m.problem(key, "'" + Redact.url(text) + "' (expected: " + problem + ")");
            return Optional.empty();
        }
        return Optional.of(uri);
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
