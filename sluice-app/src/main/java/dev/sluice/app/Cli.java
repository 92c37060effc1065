package dev.sluice.app;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigLoader;
import dev.sluice.config.EngineMode;
import dev.sluice.config.GatewayConfig;
import dev.sluice.config.Problem;
import dev.sluice.demo.DemoConfig;
import dev.sluice.demo.DemoUpstreams;
import dev.sluice.demo.PortInUseException;
import dev.sluice.engine.Engine;
import dev.sluice.engine.RunningGateway;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.tls.ServerCertificates;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.BindException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The {@code sluice} command line. {@link #run} returns the exit code: 0 done, 1 failed (a bad
 * configuration, a port in use: one line per problem, never a stack trace), 2 bad usage. Its own
 * lines go to {@code out}; the log ({@code logging:} of the configuration, see {@link LogBackend}) to
 * {@code err}.
 */
public final class Cli {

    static final String USAGE = """
      usage:
        sluice run -c FILE [--engine virtual|platform|reactive] [--port N] [--admin-port N]
                                                                               run a configuration
        sluice demo [--engine E] [--port N] [--upstream-port-base N]           demo upstreams + gateway with the bundled config
        sluice check -c FILE                                                   validate a configuration
        sluice upstreams [--host H] [--port-base N]                            only the demo upstreams
        sluice config [--upstream-port-base N]                                 print the bundled demo config
        sluice import OPENAPI_FILE                                             a starting config from an OpenAPI 3 document
        sluice train [--rounds N]                                              every engine on the demo, for an AOT cache
        sluice train -c FILE [--engine E] [--rounds N]                         that configuration's routes, for an AOT cache
        sluice version | help
      from the ./sluice launcher in a source checkout:
        sluice test [maven args]                                               every test of the project (what CI runs)
        sluice lab SCENARIO [options]                                          the benchmark lab (./sluice lab help)
        sluice image [--name NAME:TAG] [--out FILE]                            the container image, an OCI tar (./sluice image --help)
        sluice aot [-c FILE] [--engine E] [--rounds N]                         an AOT cache the launcher starts with (sluice train)
      """;

    /**
     * Every command and the options it takes; {@link #dispatch} parses with these, and a test checks
     * the README's commands against them without running anything.
     */
    static final Map<String, Set<String>> OPTIONS = Map.of(
            "run", Set.of("--config", "--engine", "--port", "--admin-port"),
            "demo", Set.of("--engine", "--port", "--upstream-port-base"),
            "check", Set.of("--config"),
            "upstreams", Set.of("--host", "--port-base"),
            "config", Set.of("--upstream-port-base"),
            "import", Set.of("--openapi"),
            "train", Set.of("--rounds", "--config", "--engine"),
            "version", Set.of(),
            "help", Set.of());

    private final PrintStream out;
    private final PrintStream err;
    private final StopSignal signal;

    public Cli(PrintStream out, PrintStream err) {
        this(out, err, StopSignal.shutdownHook(60_000));
    }

    /** @param signal when a started command stops (tests pass one that returns after their checks) */
    Cli(PrintStream out, PrintStream err, StopSignal signal) {
        this.out = requireNonNull(out, "out");
        this.err = requireNonNull(err, "err");
        this.signal = requireNonNull(signal, "signal");
    }

    public int run(String... args) {
        requireNonNull(args, "args");
        try {
            return dispatch(List.of(args));
        } catch (UsageException e) {
            err.println("sluice: " + e.getMessage());
            err.print(USAGE);
            return 2;
        } catch (Failure e) {
            err.println("sluice: " + e.getMessage());
            debug(e);
            return 1;
        } catch (Exception e) {
            err.println("sluice: " + describe(e));
            debug(e);
            return 1;
        } finally {
            out.flush();
            err.flush();
        }
    }

    private int dispatch(List<String> args) throws Exception {
        if (args.isEmpty()) {
            throw new UsageException("no command");
        }
        String command = args.getFirst();
        List<String> rest = args.subList(1, args.size());
        if (rest.contains("--help") || rest.contains("-h")) {
            out.print(USAGE);
            return 0;
        }
        return switch (command) {
            case "run" -> run(Arguments.parse(command, rest, OPTIONS.get("run")));
            case "demo" -> demo(Arguments.parse(command, rest, OPTIONS.get("demo")));
            case "check" -> check(Arguments.parse(command, rest, OPTIONS.get("check")));
            case "upstreams" -> upstreams(Arguments.parse(command, rest, OPTIONS.get("upstreams")));
            case "config" -> config(Arguments.parse(command, rest, OPTIONS.get("config")));
            case "import" -> importOpenApi(Arguments.parse(command, rest, OPTIONS.get("import")));
            case "train" -> train(Arguments.parse(command, rest, OPTIONS.get("train")));
            case "version", "--version", "-v" ->
                print(Arguments.parse(command, rest, OPTIONS.get("version")), version() + "\n");
            case "help", "--help", "-h" -> print(Arguments.parse(command, rest, OPTIONS.get("help")), USAGE);
            case "test", "lab", "image", "aot" ->
                throw new UsageException("'" + command + "' runs from the ./sluice launcher in a source checkout"
                        + " (./sluice " + command + "), not from the jar");
            default -> throw new UsageException("unknown command '" + command + "'");
        };
    }

    /** The bundled demo configuration, its upstream URLs on {@code --upstream-port-base} when given. */
    private int config(Arguments a) throws UsageException {
        Optional<Integer> base = a.integer("--upstream-port-base", 1, 65530);
        out.print(base.map(DemoConfig::yaml).orElseGet(DemoConfig::yaml));
        return 0;
    }

    /**
     * Runs {@link Training} (the demo upstreams on free ports, then every engine in turn) and exits:
     * under {@code -XX:AOTCacheOutput=FILE} the JVM writes its AOT cache as it does.
     */
    private int train(Arguments a) throws Exception {
        Optional<String> file = a.text("--config");
        if (file.isPresent()) {
            return trainOn(
                    Path.of(file.get()),
                    engine(a),
                    a.integer("--rounds", 1, 100_000).orElse(100));
        }
        if (a.text("--engine").isPresent()) {
            throw new UsageException("--engine: only with -c FILE (the demo trains every engine)");
        }
        int rounds = a.integer("--rounds", 1, 100_000).orElse(300);
        GatewayConfig config;
        try {
            config = DemoConfig.load();
        } catch (ConfigException e) {
            throw new Failure("the bundled demo configuration is invalid: " + e.getMessage());
        }
        LogBackend.configure(config.logging(), err);
        try (DemoUpstreams upstreams = startUpstreams("127.0.0.1", 0, "--rounds")) {
            Training.run(config, upstreams.urls(), rounds, Cli::startGateway);
        }
        out.println("trained every engine: " + rounds + " rounds of " + String.join(", ", Training.PATHS));
        return 0;
    }

    /**
     * Runs {@link Training#runFile} on a user's configuration (its engine, or {@code --engine}) and
     * exits; its upstreams need not be up (a refused one trains the 502 path).
     */
    private int trainOn(Path file, Optional<EngineMode> engine, int rounds) throws Exception {
        GatewayConfig config;
        try {
            config = ConfigLoader.load(file);
        } catch (ConfigException e) {
            throw new Failure(e.getMessage());
        }
        config = config.with(
                engine.orElse(config.server().engine()), config.server().port());
        int routes = Training.requests(config).size();
        // Through the run command itself (its observers, reloader, admin listener, watchdog: what a
        // later run loads), on free ports; its own lines go to err.
        GatewayConfig trained = config;
        Map<Integer, Integer> statuses = new java.util.TreeMap<>();
        StopSignal asking = session -> statuses.putAll(
                Training.askRoutes(trained, session.gateway().orElseThrow().port(), rounds));
        List<String> runArgs = new ArrayList<>(List.of(
                "run",
                "-c",
                file.toString(),
                "--engine",
                config.server().engine().key(),
                "--port",
                "0"));
        if (config.admin().isPresent()) {
            runArgs.addAll(List.of("--admin-port", "0"));
        }
        int code = new Cli(err, err, asking).run(runArgs.toArray(String[]::new));
        if (code != 0) {
            return code;
        }
        StringBuilder answers = new StringBuilder();
        statuses.forEach((status, count) -> answers.append(answers.isEmpty() ? "" : ", ")
                .append(count)
                .append(" × ")
                .append(status == 0 ? "closed" : status));
        out.println("trained " + config.server().engine().key() + " on " + file + ": " + rounds + " rounds of "
                + routes + " requests (" + answers + ")"
                + (statuses.keySet().stream().anyMatch(s -> s == 502 || s == 503 || s == 504)
                        ? "; 5xx from upstreams that were not up train the error path"
                        : ""));
        return 0;
    }

    /** Prints a configuration made from an OpenAPI 3 document; what it assumed goes to stderr. */
    private int importOpenApi(Arguments a) throws UsageException, Failure {
        Path file = Path.of(a.required("--openapi", "FILE (sluice import openapi.yaml)"));
        String text;
        try {
            text = java.nio.file.Files.readString(file);
        } catch (IOException e) {
            throw new Failure("'" + file + "' cannot be read: " + describe(e), e);
        }
        OpenApiImport.Result result;
        try {
            result = OpenApiImport.convert(text, file.getFileName().toString());
        } catch (OpenApiImport.ImportException e) {
            throw new Failure(e.getMessage(), e);
        }
        out.print(result.yaml());
        result.notes().forEach(note -> err.println("sluice import: " + note));
        return 0;
    }

    private int print(Arguments noOptions, String text) {
        out.print(text);
        return 0;
    }

    private int run(Arguments a) throws Exception {
        Path file = Path.of(a.required("--config", "FILE (-c FILE)"));
        Optional<EngineMode> engine = engine(a);
        Optional<Integer> port = a.integer("--port", 0, 65535);
        Optional<Integer> adminPort = a.integer("--admin-port", 0, 65535);
        java.util.function.UnaryOperator<GatewayConfig> commandLine = c -> {
            GatewayConfig applied = c.with(
                    engine.orElse(c.server().engine()), port.orElse(c.server().port()));
            return adminPort.map(applied::withAdminPort).orElse(applied);
        };
        GatewayConfig config;
        try {
            config = ConfigLoader.load(file);
        } catch (ConfigException e) {
            throw new Failure(e.getMessage());
        }
        config = commandLine.apply(config);
        LogBackend.configure(config.logging(), err);
        Optional<PrometheusMeterRegistry> registry = config.admin().isPresent()
                ? Optional.of(new PrometheusMeterRegistry(
                        PrometheusConfig.DEFAULT, new PrometheusRegistry(), MetricsClock.INSTANCE))
                : Optional.empty();
        Optional<AccessLog> access;
        try {
            access = Optional.empty();
            if (config.logging().access().isPresent()) {
                access = Optional.of(AccessLog.open(
                        config.logging().access().get(), out, err, registry.map(r -> (MeterRegistry) r)));
            }
        } catch (IOException e) {
            throw new Failure(
                    "logging.access.to: " + config.logging().access().get().to() + " cannot be opened: " + describe(e),
                    e);
        }
        Optional<GatewayMetrics> metrics = registry.map(GatewayMetrics::new);
        Optional<SpanExport> spans = config.tracing().map(SpanExport::start);
        GatewayObserver observer = Observers.of(metrics, access, spans);
        RunningGateway gateway;
        try {
            gateway = startGateway(config, observer);
        } catch (Exception e) {
            access.ifPresent(AccessLog::close);
            spans.ifPresent(SpanExport::close);
            throw e;
        }
        metrics.ifPresent(m -> m.watch(() -> gateway));
        Reloader reloader = reloader(file, commandLine, config, gateway, registry.map(r -> (MeterRegistry) r));
        Optional<AdminServer> admin = Optional.empty();
        if (config.admin().isPresent()) {
            try {
                admin = Optional.of(AdminServer.start(
                        config.admin().get(),
                        gateway,
                        registry.get(),
                        reloader,
                        metrics.<Runnable>map(m -> m::readPools).orElse(() -> {})));
            } catch (IOException e) {
                reloader.close();
                gateway.close();
                access.ifPresent(AccessLog::close);
                spans.ifPresent(SpanExport::close);
                if (isPortInUse(e)) {
                    throw new Failure("admin port " + config.admin().get().port() + " is in use: stop what uses it", e);
                }
                throw new Failure("the admin listener could not start: " + describe(e), e);
            }
        }
        long millis = StartupClock.millisSinceStart();
        Session session = new Session(Optional.of(config), Optional.of(gateway), Optional.empty(), admin, reloader);
        access.ifPresent(session::closeAfterGateway);
        spans.ifPresent(session::closeAfterGateway);
        return serve(
                session,
                millis,
                admin.map(server -> List.of("admin listening on " + server.url()
                                + " (/health, /health/live, /health/ready, /metrics, /routes, /config, POST /reload)"))
                        .orElse(List.of()));
    }

    /** Reloads on a change of {@code file}, on SIGHUP and (with an admin listener) on POST /reload. */
    private static Reloader reloader(
            Path file,
            java.util.function.UnaryOperator<GatewayConfig> commandLine,
            GatewayConfig config,
            RunningGateway gateway,
            Optional<io.micrometer.core.instrument.MeterRegistry> registry)
            throws Failure {
        Reloader reloader = new Reloader(file, commandLine, config, gateway, registry);
        try {
            reloader.watch();
        } catch (IOException e) {
            reloader.close();
            gateway.close();
            throw new Failure("cannot watch " + file + " for changes: " + describe(e), e);
        }
        reloader.onHangUp();
        return reloader;
    }

    private int demo(Arguments a) throws Exception {
        int base = a.integer("--upstream-port-base", 0, 65530).orElse(DemoUpstreams.DEFAULT_PORT_BASE);
        Optional<EngineMode> engineOption = engine(a);
        Optional<Integer> portOption = a.integer("--port", 0, 65535);
        GatewayConfig config;
        try {
            config = DemoConfig.load();
        } catch (ConfigException e) {
            throw new Failure("the bundled demo configuration is invalid: " + e.getMessage());
        }
        EngineMode engine = engineOption.orElse(config.server().engine());
        int port = portOption.orElse(config.server().port());
        LogBackend.configure(config.logging(), err);
        DemoUpstreams upstreams = startUpstreams("127.0.0.1", base, "--upstream-port-base");
        RunningGateway gateway;
        try {
            // The bundled URLs name the default port base; point them at wherever the upstreams run.
            config = DemoConfig.pointedAt(config, upstreams.urls()).with(engine, port);
            gateway = startGateway(config);
        } catch (Exception e) {
            upstreams.close();
            throw e;
        }
        long millis = StartupClock.millisSinceStart();
        Session session = new Session(Optional.of(config), Optional.of(gateway), Optional.of(upstreams));
        List<String> more = new ArrayList<>();
        more.add("demo upstreams: "
                + upstreams.urls().entrySet().stream()
                        .map(e -> e.getKey() + " " + e.getValue())
                        .collect(Collectors.joining(", ")));
        more.add("try:");
        more.addAll(DemoTour.lines(session.gatewayUrl().orElseThrow()));
        more.add("Ctrl-C stops the gateway and the upstreams.");
        return serve(session, millis, more);
    }

    private int check(Arguments a) throws UsageException {
        Path file = Path.of(a.required("--config", "FILE (-c FILE)"));
        try {
            dev.sluice.config.ConfigFiles files = dev.sluice.config.ConfigFiles.read(file);
            GatewayConfig config = ConfigLoader.parse(files);
            if (config.server().tls().isPresent()) { // usable, but perhaps not for long
                for (Problem warning : ServerCertificates.load(
                                config.server().tls().get(), "server.tls", java.time.Instant.now())
                        .warnings()) {
                    out.println("warning: " + warning);
                }
            }
            for (var upstream : config.upstreams().values()) { // insecure-skip-verify, a client certificate expiring
                if (upstream.tls().isPresent()) {
                    for (Problem warning : dev.sluice.tls.UpstreamTls.load(
                                    upstream.tls().get(),
                                    "upstreams." + upstream.name() + ".tls",
                                    java.time.Instant.now())
                            .warnings()) {
                        out.println("warning: " + warning);
                    }
                }
            }
            for (Problem warning : dev.sluice.config.ConfigWarnings.of(config)) { // unused upstreams, CORS vs 405
                out.println("warning: " + files.locate(warning)); // by the included file that wrote it
            }
            out.println("ok: " + config.routes().size() + " routes, "
                    + config.upstreams().size() + " upstreams");
            return 0;
        } catch (ConfigException e) {
            out.println(e.getMessage());
            return 1;
        }
    }

    private int upstreams(Arguments a) throws Exception {
        String host = a.text("--host").orElse("127.0.0.1");
        int base = a.integer("--port-base", 0, 65530).orElse(DemoUpstreams.DEFAULT_PORT_BASE);
        DemoUpstreams upstreams = startUpstreams(host, base, "--port-base");
        long millis = StartupClock.millisSinceStart();
        out.println("sluice upstreams started in " + millis + " ms: "
                + upstreams.urls().size() + " demo upstreams");
        for (Map.Entry<String, URI> e : upstreams.urls().entrySet()) {
            out.println("  " + e.getKey() + " ".repeat(10 - e.getKey().length()) + e.getValue());
        }
        out.flush();
        return await(new Session(Optional.empty(), Optional.empty(), Optional.of(upstreams)));
    }

    /** Prints the started line (and {@code more}), waits for the stop signal, then closes everything. */
    private int serve(Session session, long millis, List<String> more) throws Exception {
        GatewayConfig config = session.config().orElseThrow();
        out.println(startedLine(
                millis,
                config.server().host(),
                session.port().orElseThrow(),
                config.server().engine().key(),
                session.transport().orElseThrow(),
                config.routes().size(),
                config.server().tls().isPresent(),
                config.server().http2().protocols(config.server().tls().isPresent())));
        more.forEach(out::println);
        out.flush();
        return await(session);
    }

    /**
     * {@code sluice started in 812 ms: listening on 0.0.0.0:8080 (http://127.0.0.1:8080,
     * http://10.0.0.5:8080); h2c, http/1.1; engine virtual on nio, 11 routes}: the address really bound,
     * and every URL it is reached at when that is a wildcard, then the protocols it speaks ({@code
     * server.http2}); {@code listening on 0.0.0.0:8443 with TLS (https://...); h2, http/1.1} with {@code
     * server.tls}. The time counts from the JVM's start, not the launcher's
     * (which may have built the project first).
     */
    static String startedLine(
            long millis,
            String host,
            int port,
            String engine,
            String transport,
            int routes,
            boolean tls,
            List<String> protocols) {
        String urls = ListenAddresses.urls(tls ? "https" : "http", host, port).stream()
                .map(URI::toString)
                .collect(Collectors.joining(", "));
        return "sluice started in " + millis + " ms: listening on " + ListenAddresses.authority(host, port)
                + (tls ? " with TLS" : "") + " (" + urls + "); " + String.join(", ", protocols) + "; engine " + engine
                + " on " + transport + ", " + routes
                + (routes == 1 ? " route" : " routes");
    }

    private int await(Session session) throws Exception {
        Watchdog watchdog = session.gateway()
                .map(g -> Watchdog.start(g, Duration.ofSeconds(1), Runtime.getRuntime()::halt))
                .orElse(null);
        try {
            signal.await(session);
        } finally {
            if (watchdog != null) {
                watchdog.close(); // a gateway being closed is not a failed one
            }
            session.close();
            out.println("sluice stopped");
            out.flush();
            signal.stopped();
        }
        return 0;
    }

    static Optional<EngineMode> engine(Arguments a) throws UsageException {
        Optional<String> key = a.text("--engine");
        if (key.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(EngineMode.fromKey(key.get())
                .orElseThrow(() ->
                        new UsageException("--engine: '" + key.get() + "' (expected: virtual, platform or reactive)")));
    }

    private static DemoUpstreams startUpstreams(String host, int base, String option) throws Failure {
        try {
            return DemoUpstreams.start(host, base);
        } catch (PortInUseException e) {
            throw new Failure("port " + e.port() + " is in use: stop what uses it or pass " + option);
        } catch (IOException e) {
            throw new Failure("the demo upstreams could not start: " + describe(e), e);
        }
    }

    private static RunningGateway startGateway(GatewayConfig config) throws Failure {
        return startGateway(config, GatewayObserver.NONE);
    }

    private static RunningGateway startGateway(GatewayConfig config, GatewayObserver observer) throws Failure {
        Engine engine;
        try {
            engine = Engine.forMode(config.server().engine());
        } catch (IllegalStateException e) {
            throw new Failure(e.getMessage());
        }
        try {
            return engine.start(config, observer);
        } catch (Exception e) {
            if (isPortInUse(e)) {
                throw new Failure("port " + config.server().port() + " is in use: stop what uses it or pass --port", e);
            }
            throw new Failure("the gateway could not start: " + describe(e), e);
        }
    }

    static boolean isPortInUse(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException || String.valueOf(t.getMessage()).contains("Address already in use")) {
                return true;
            }
        }
        return false;
    }

    /** One line: the message of the exception and of its root cause when that says more. */
    static String describe(Throwable e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root != e && root.getMessage() != null && !message.contains(root.getMessage())) {
            message += ": " + root.getMessage();
        }
        return message.replace('\n', ' ');
    }

    private void debug(Exception e) {
        if (System.getenv("SLUICE_DEBUG") != null) {
            e.printStackTrace(err);
        }
    }

    static String version() {
        Properties properties = new Properties();
        try (InputStream in = Cli.class.getResourceAsStream("sluice.properties")) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            // reported as unknown below
        }
        Set<String> engines = new TreeSet<>();
        for (Engine engine : java.util.ServiceLoader.load(Engine.class)) {
            engine.modes().forEach(m -> engines.add(m.key()));
        }
        String modes = Arrays.stream(EngineMode.values())
                .map(EngineMode::key)
                .filter(engines::contains)
                .collect(Collectors.joining(", "));
        return "sluice " + properties.getProperty("version", "(unknown version)") + " (Java " + Runtime.version()
                + "; engines: " + (modes.isEmpty() ? "none" : modes) + ")";
    }

    /** A command failed for a reason the user can act on; the message is the whole report. */
    static final class Failure extends Exception {
        Failure(String message) {
            super(message);
        }

        Failure(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
