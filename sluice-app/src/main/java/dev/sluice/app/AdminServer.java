package dev.sluice.app;

import static java.util.Objects.requireNonNull;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.sluice.compose.JsonSplice;
import dev.sluice.config.AdminConfig;
import dev.sluice.config.AnswerTarget;
import dev.sluice.config.ComposeTarget;
import dev.sluice.config.GatewayConfig;
import dev.sluice.config.ProxyTarget;
import dev.sluice.config.RouteConfig;
import dev.sluice.engine.RunningGateway;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;

/**
 * The admin listener ({@code admin: {host, port}}), apart from the traffic listener, for the
 * operator and the orchestrator: JSON health, Prometheus metrics and the routes. It runs on the JDK's
 * own HTTP server, one virtual thread per exchange, so nothing an operator asks competes with the
 * gateway's event loops or request threads.
 *
 * <pre>
 *   GET /health         200 {"status":"up","listeners":[{"name":"gateway","port":8443,"tls":true,
 *                       "protocols":["h2","http/1.1"]},{"name":"admin","port":9090,"tls":false,
 *                       "protocols":["http/1.1"]}]}: the liveness, and which
 *                       listeners are TLS (503 and "down" as /health/live)
 *   GET /health/live    200 {"status":"up"}, or 503 {"status":"down","reason":...} once the engine
 *                       can no longer serve (RunningGateway.failure(): restart the process)
 *   GET /health/ready   200 {"status":"ready"} while it takes traffic; 503 {"status":"stopping"}
 *                       from the moment it begins to stop
 *   GET /metrics        Prometheus text format (docs/METRICS.md)
 *   GET /routes         JSON: each route's id, path, methods and target (the running configuration)
 *   GET /config         JSON: the running configuration file's tree, secrets redacted (ConfigView)
 *   (with admin.auth.token, every endpoint but /health/live and /health/ready answers 401 without
 *   Authorization: Bearer TOKEN)
 *   POST /reload        reads the configuration file again: 200 {"status":"reloaded",...}, or 400
 *                       {"error":"invalid_config","problems":[{"path":..,"message":..}]} and nothing
 *                       changed
 * </pre>
 */
final class AdminServer implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService executor;
    private final RunningGateway gateway;
    private final PrometheusMeterRegistry registry;
    private final Reloader reloader;
    private final String host;
    private final Runnable beforeScrape;
    private final Optional<byte[]> tokenDigest; // SHA-256 of admin.auth.token
    private final Optional<dev.sluice.tls.ServerTls> tls; // admin.tls: its certificates rotate as the server's do
    private volatile boolean stopping;

    private AdminServer(
            HttpServer server,
            ExecutorService executor,
            RunningGateway gateway,
            PrometheusMeterRegistry registry,
            Reloader reloader,
            String host,
            Runnable beforeScrape,
            Optional<String> token,
            Optional<dev.sluice.tls.ServerTls> tls) {
        this.beforeScrape = beforeScrape;
        this.tls = tls;
        this.tokenDigest = token.map(AdminServer::sha256);
        this.server = server;
        this.executor = executor;
        this.gateway = gateway;
        this.registry = registry;
        this.reloader = reloader;
        this.host = host;
    }

    /**
     * Binds {@code admin.host:admin.port} (0: any free port) and serves until closed.
     *
     * @param beforeScrape run before each {@code /metrics} answer (reads the gauges read at scrape time)
     */
    static AdminServer start(
            AdminConfig admin,
            RunningGateway gateway,
            PrometheusMeterRegistry registry,
            Reloader reloader,
            Runnable beforeScrape)
            throws IOException {
        requireNonNull(gateway, "gateway");
        requireNonNull(reloader, "reloader");
        Optional<dev.sluice.tls.ServerTls> tls = Optional.empty();
        HttpServer server;
        if (admin.tls().isPresent()) {
            try {
                tls = Optional.of(dev.sluice.tls.ServerTls.open(admin.tls().get(), "admin.tls"));
            } catch (dev.sluice.config.ConfigException e) {
                throw new IOException(e.getMessage().strip().replace('\n', ' '), e);
            }
            dev.sluice.tls.ServerTls context = tls.get();
            com.sun.net.httpserver.HttpsServer https =
                    com.sun.net.httpserver.HttpsServer.create(new InetSocketAddress(admin.host(), admin.port()), 64);
            https.setHttpsConfigurator(new com.sun.net.httpserver.HttpsConfigurator(context.context()) {
                @Override
                public void configure(com.sun.net.httpserver.HttpsParameters params) {
                    javax.net.ssl.SSLParameters p = context.context().getDefaultSSLParameters();
                    p.setProtocols(context.protocols());
                    p.setCipherSuites(context.cipherSuites());
                    switch (context.clientAuth()) { // the same ask as the gateway's listener
                        case REQUIRE -> p.setNeedClientAuth(true);
                        case OPTIONAL -> p.setWantClientAuth(true);
                        case NONE -> {}
                    }
                    params.setSSLParameters(p);
                }
            });
            server = https;
        } else {
            server = HttpServer.create(new InetSocketAddress(admin.host(), admin.port()), 64);
        }
        ExecutorService executor = Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name("sluice-admin-", 0).factory());
        server.setExecutor(executor);
        AdminServer adminServer = new AdminServer(
                server, executor, gateway, registry, reloader, admin.host(), beforeScrape, admin.token(), tls);
        server.createContext("/", adminServer::handle);
        server.start();
        return adminServer;
    }

    /** The port really bound. */
    int port() {
        return server.getAddress().getPort();
    }

    /** Where it is reached: {@code http://127.0.0.1:9090}. */
    URI url() {
        return URI.create((tls.isPresent() ? "https://" : "http://") + Session.urlHost(host) + ":" + port());
    }

    /** From now on {@code /health/ready} answers 503: the gateway is stopping. */
    void stopping() {
        stopping = true;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getRawPath();
            if (!authorized(exchange, path)) {
                exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"sluice-admin\"");
                json(exchange, 401, error(401, "unauthorized", "this endpoint needs Authorization: Bearer TOKEN"));
                return;
            }
            if (path.equals("/reload")) {
                reload(exchange);
                return;
            }
            if (!exchange.getRequestMethod().equals("GET")
                    && !exchange.getRequestMethod().equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                json(exchange, 405, error(405, "method_not_allowed", "the admin listener answers GET only"));
                return;
            }
            switch (path) {
                case "/health" -> {
                    Optional<String> failure = gateway.failure();
                    dev.sluice.config.ServerConfig server = reloader.running().server();
                    String protocols = server.http2().protocols(server.tls().isPresent()).stream()
                            .map(p -> "\"" + p + "\"")
                            .collect(java.util.stream.Collectors.joining(","));
                    String listeners = ",\"listeners\":[{\"name\":\"gateway\",\"port\":" + gateway.port()
                            + ",\"tls\":" + server.tls().isPresent() + ",\"protocols\":[" + protocols
                            + "]},{\"name\":\"admin\",\"port\":" + port()
                            + ",\"tls\":" + tls.isPresent() + ",\"protocols\":[\"http/1.1\"]}]}";
                    if (failure.isEmpty()) {
                        json(exchange, 200, "{\"status\":\"up\"" + listeners);
                    } else {
                        json(
                                exchange,
                                503,
                                "{\"status\":\"down\",\"reason\":" + JsonSplice.quote(failure.get()) + listeners);
                    }
                }
                case "/health/live" -> {
                    Optional<String> failure = gateway.failure();
                    if (failure.isEmpty()) {
                        json(exchange, 200, "{\"status\":\"up\"}");
                    } else {
                        json(exchange, 503, "{\"status\":\"down\",\"reason\":" + JsonSplice.quote(failure.get()) + "}");
                    }
                }
                case "/health/ready" -> {
                    if (stopping) {
                        json(exchange, 503, "{\"status\":\"stopping\"}");
                    } else if (gateway.failure().isPresent()) {
                        json(exchange, 503, "{\"status\":\"down\"}");
                    } else {
                        json(exchange, 200, "{\"status\":\"ready\"}");
                    }
                }
                case "/metrics" -> {
                    beforeScrape.run();
                    byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
                    exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                    send(exchange, 200, body);
                }
                case "/config" -> {
                    exchange.getResponseHeaders().set("Content-Type", "application/json");
                    send(exchange, 200, reloader.runningJson().getBytes(StandardCharsets.UTF_8));
                }
                case "/routes" -> {
                    exchange.getResponseHeaders().set("Content-Type", "application/json");
                    send(exchange, 200, routesJson(reloader.running()).getBytes(StandardCharsets.UTF_8));
                }
                default -> json(exchange, 404, error(404, "not_found", "no admin endpoint " + path));
            }
        }
    }

    /**
     * Whether the exchange may see {@code path}: always without {@code admin.auth.token}, and for the
     * orchestrator's probes ({@code /health/live}, {@code /health/ready}, which tell nothing); else
     * with {@code Authorization: Bearer TOKEN}. The digests are compared in constant time
     * ({@link MessageDigest#isEqual}), so the time taken tells nothing of how much of a guess was right.
     */
    private boolean authorized(HttpExchange exchange, String path) {
        if (tokenDigest.isEmpty() || path.equals("/health/live") || path.equals("/health/ready")) {
            return true;
        }
        String header = exchange.getRequestHeaders().getFirst("Authorization");
        if (header == null || header.length() < 7 || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        return MessageDigest.isEqual(sha256(header.substring(7).strip()), tokenDigest.get());
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    private void reload(HttpExchange exchange) throws IOException {
        if (!exchange.getRequestMethod().equals("POST")) {
            exchange.getResponseHeaders().set("Allow", "POST");
            json(exchange, 405, error(405, "method_not_allowed", "POST /reload reads the configuration file again"));
            return;
        }
        exchange.getRequestBody().readAllBytes(); // nothing is read from it: the file is the configuration
        Reloader.Outcome outcome = reloader.reload("POST /reload");
        if (outcome.applied()) {
            json(
                    exchange,
                    200,
                    "{\"status\":\"reloaded\",\"routes\":"
                            + outcome.config().routes().size() + ",\"upstreams\":"
                            + outcome.config().upstreams().size() + "}");
        } else {
            json(
                    exchange,
                    400,
                    "{\"error\":\"invalid_config\",\"message\":"
                            + JsonSplice.quote(
                                    "the running configuration stays; nothing of " + outcome.source() + " was applied")
                            + ",\"problems\":["
                            + outcome.problems().stream()
                                    .map(p -> "{\"path\":" + JsonSplice.quote(p.path()) + ",\"message\":"
                                            + JsonSplice.quote(p.message()) + "}")
                                    .collect(Collectors.joining(","))
                            + "]}");
        }
    }

    private static String error(int status, String code, String message) {
        return new String(dev.sluice.http.ErrorBody.of(status, code, message), StandardCharsets.UTF_8);
    }

    private static void json(HttpExchange exchange, int status, String body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        send(exchange, status, body.getBytes(StandardCharsets.UTF_8));
    }

    private static void send(HttpExchange exchange, int status, byte[] body) throws IOException {
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : body.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** {@code [{"id":..,"path":..,"methods":[..],"proxy":"upstream"} or "compose":{"part":"upstream",..}}]}. */
    static String routesJson(GatewayConfig config) {
        StringBuilder json = new StringBuilder("[");
        for (RouteConfig route : config.routes()) {
            if (json.length() > 1) {
                json.append(',');
            }
            json.append("{\"id\":")
                    .append(JsonSplice.quote(route.id()))
                    .append(",\"path\":")
                    .append(JsonSplice.quote(route.match().path().toString()))
                    .append(",\"methods\":[")
                    .append(route.match().methods().stream()
                            .sorted()
                            .map(JsonSplice::quote)
                            .collect(Collectors.joining(",")))
                    .append(']');
            switch (route.target()) {
                case ProxyTarget proxy -> {
                    json.append(",\"proxy\":").append(JsonSplice.quote(proxy.upstream()));
                    proxy.backends()
                            .ifPresent(b -> json.append(",\"backends\":{")
                                    .append(b.sides().stream()
                                            .map(side -> JsonSplice.quote(side.upstream()) + ":" + side.weight())
                                            .collect(Collectors.joining(",")))
                                    .append('}'));
                }
                case ComposeTarget compose -> {
                    json.append(",\"compose\":{");
                    json.append(compose.parts().stream()
                            .map(p -> JsonSplice.quote(p.name()) + ":" + JsonSplice.quote(p.upstream()))
                            .collect(Collectors.joining(",")));
                    json.append('}');
                }
                case AnswerTarget.Redirect redirect ->
                    json.append(",\"redirect\":")
                            .append(JsonSplice.quote(redirect.location().toString()));
                case AnswerTarget.Respond respond ->
                    json.append(",\"respond\":").append(respond.status());
            }
            json.append('}');
        }
        return json.append(']').toString();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        tls.ifPresent(dev.sluice.tls.ServerTls::close);
    }
}
