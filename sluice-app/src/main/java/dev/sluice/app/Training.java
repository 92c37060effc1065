package dev.sluice.app;

import dev.sluice.config.EngineMode;
import dev.sluice.config.GatewayConfig;
import dev.sluice.config.RouteConfig;
import dev.sluice.config.RouteMatch;
import dev.sluice.demo.DemoConfig;
import dev.sluice.engine.RunningGateway;
import dev.sluice.routing.ValueMatch;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * A short run of every engine on the bundled demo, for the JDK's AOT cache to learn from ({@code
 * sluice train} under {@code -XX:AOTCacheOutput}: {@code ./sluice aot} and the container image):
 * each engine in turn serves compositions, proxied requests and 404s from the demo upstreams, so the
 * cache holds the classes and profiles of whichever engine a configuration later names.
 */
final class Training {

    /** What each engine is asked, {@code rounds} times: a composition, one with path variables, a proxy, a 404. */
    static final List<String> PATHS = List.of("/compose", "/product-page/1001", "/products/1001", "/nothing");

    private Training() {}

    /**
     * Serves {@code rounds} rounds of {@link #PATHS} on each engine with {@code config} (the demo's,
     * pointed at {@code upstreams}), one engine at a time.
     *
     * @throws IllegalStateException when an answer is a 5xx: a cache trained on failures is not wanted
     */
    static void run(GatewayConfig config, Map<String, URI> upstreams, int rounds, Starter starter) throws Exception {
        HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        for (EngineMode mode : EngineMode.values()) {
            GatewayConfig engine = DemoConfig.pointedAt(config, upstreams).with(mode, 0);
            try (RunningGateway gateway = starter.start(engine)) {
                URI base = URI.create("http://127.0.0.1:" + gateway.port());
                for (int i = 0; i < rounds; i++) {
                    for (String path : PATHS) {
                        ask(client, base.resolve(path), mode);
                    }
                }
            }
        }
    }

    /**
     * Serves {@code rounds} rounds of {@link #requests} of a user's configuration (its own engine, or
     * the one the caller set, on a free port), as a first user would: each route is asked on a path
     * its {@code match} takes, with each of its methods. Upstreams need not be up: a refused upstream
     * answers 502 and that trains the error path, so no status fails the training.
     *
     * @return how many answers came with each status
     */
    static Map<Integer, Integer> runFile(GatewayConfig config, int rounds, Starter starter) throws Exception {
        GatewayConfig training = config.with(config.server().engine(), 0);
        try (RunningGateway gateway = starter.start(training)) {
            return askRoutes(training, gateway.port(), rounds);
        }
    }

    /**
     * Asks a started gateway of {@code config}, listening on 127.0.0.1:{@code port}, {@code rounds}
     * rounds of {@link #requests}.
     *
     * @return how many answers came with each status (0: the exchange was closed without one)
     */
    static Map<Integer, Integer> askRoutes(GatewayConfig config, int port, int rounds) throws Exception {
        List<Request> requests = requests(config);
        boolean tls = config.server().tls().isPresent();
        HttpClient.Builder builder =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5));
        if (tls) {
            builder.sslContext(trustingLoopback());
        }
        HttpClient client = builder.build();
        Map<Integer, Integer> statuses = new TreeMap<>();
        URI base = URI.create((tls ? "https" : "http") + "://127.0.0.1:" + port);
        for (int i = 0; i < rounds; i++) {
            for (Request request : requests) {
                HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(request.target()))
                        .timeout(Duration.ofSeconds(10))
                        .method(
                                request.method(),
                                request.method().equals("GET")
                                                || request.method().equals("HEAD")
                                        ? HttpRequest.BodyPublishers.noBody()
                                        : HttpRequest.BodyPublishers.ofString("{}"));
                request.headers().forEach(b::header);
                int status;
                try {
                    status = client.send(b.build(), HttpResponse.BodyHandlers.discarding())
                            .statusCode();
                } catch (IOException e) {
                    status = 0; // the gateway closed the exchange (e.g. a policy that drops it)
                }
                statuses.merge(status, 1, Integer::sum);
            }
        }
        return statuses;
    }

    /** One request of a training round: a method, a path with its query, and headers a route requires. */
    record Request(String route, String method, String target, Map<String, String> headers) {}

    /**
     * For each route, a request per method it takes (GET when it names none) on a path its pattern
     * matches ({@code {var}} as {@code 1}, {@code /**} as its prefix), with the headers, query and
     * cookies its {@code match} requires when they are exact or mere presence. A route matched on
     * {@code host} or a prefix/regex value may answer 404: it is still asked.
     */
    static List<Request> requests(GatewayConfig config) {
        List<Request> requests = new ArrayList<>();
        for (RouteConfig route : config.routes()) {
            RouteMatch match = route.match();
            String path = samplePath(match.path().toString());
            if (match.path().match(path).isEmpty()) {
                continue;
            }
            Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            match.headers()
                    .forEach((name, value) -> sample(value).ifPresent(v -> {
                        if (!name.equalsIgnoreCase("host")) {
                            headers.put(name, v);
                        }
                    }));
            List<String> cookies = new ArrayList<>();
            match.cookies().forEach((name, value) -> sample(value).ifPresent(v -> cookies.add(name + "=" + v)));
            if (!cookies.isEmpty()) {
                headers.put("cookie", String.join("; ", cookies));
            }
            List<String> query = new ArrayList<>();
            match.query().forEach((name, value) -> sample(value).ifPresent(v -> query.add(name + "=" + v)));
            String target = path + (query.isEmpty() ? "" : "?" + String.join("&", query));
            List<String> methods = match.methods().isEmpty()
                    ? List.of("GET")
                    : match.methods().stream().sorted().toList();
            for (String method : methods) {
                requests.add(new Request(route.id(), method, target, Map.copyOf(headers)));
            }
        }
        return requests;
    }

    private static String samplePath(String pattern) {
        String path = pattern.endsWith("/**") ? pattern.substring(0, pattern.length() - 3) : pattern;
        path = path.replaceAll("\\{[^/}]+}", "1");
        return path.isEmpty() ? "/" : path;
    }

    private static Optional<String> sample(ValueMatch value) {
        return switch (value) {
            case ValueMatch.Exact exact -> Optional.of(exact.value());
            case ValueMatch.Present present -> Optional.of("1");
            case ValueMatch.Prefix prefix -> Optional.of(prefix.prefix() + "1");
            default -> Optional.empty();
        };
    }

    /** The training asks its own gateway on 127.0.0.1, whose certificate need not name that address. */
    private static SSLContext trustingLoopback() throws Exception {
        X509TrustManager any = new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {}

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        };
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, new TrustManager[] {any}, null);
        return context;
    }

    private static void ask(HttpClient client, URI uri, EngineMode mode) throws IOException, InterruptedException {
        HttpResponse<byte[]> r = client.send(
                HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        if (r.statusCode() >= 500) {
            throw new IllegalStateException(
                    "training: " + uri.getPath() + " answered " + r.statusCode() + " in " + mode.key());
        }
    }

    /** Starts a gateway (the command's own start, with its failures). */
    @FunctionalInterface
    interface Starter {
        RunningGateway start(GatewayConfig config) throws Exception;
    }
}
