package dev.sluice.engine.blocking.bench;

import dev.sluice.config.ComposeTarget;
import dev.sluice.config.EngineMode;
import dev.sluice.config.GatewayConfig;
import dev.sluice.config.PartConfig;
import dev.sluice.config.RouteConfig;
import dev.sluice.config.RouteMatch;
import dev.sluice.config.ServerConfig;
import dev.sluice.config.UpstreamConfig;
import dev.sluice.engine.RunningGateway;
import dev.sluice.engine.blocking.BlockingEngine;
import dev.sluice.engine.blocking.upstream.ApacheUpstreamClient;
import dev.sluice.engine.blocking.upstream.Http1UpstreamClient;
import dev.sluice.engine.blocking.upstream.JdkUpstreamClient;
import dev.sluice.engine.blocking.upstream.JettyUpstreamClient;
import dev.sluice.engine.blocking.upstream.UpstreamClient;
import dev.sluice.routing.PathTemplate;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The blocking engine in-process with a chosen upstream client, for {@code client-bench.sh}:
 *
 * <pre>
 *   ClientBench http1|apache|jdk|jetty virtual|platform PORT [PRODUCTS_URL CUSTOMERS_URL REVIEWS_URL]
 * </pre>
 *
 * Serves {@code GET /compose}, a parallel composition of the three URLs (default: the demo upstreams
 * {@code http://127.0.0.1:19081/products}, {@code :19082/customers/42}, {@code :19083/reviews}),
 * with every other setting at its configuration default. Prints {@code READY <port>} once it
 * accepts connections and runs until its standard input closes.
 */
public final class ClientBench {

    private static final List<String> DEFAULT_URLS = List.of(
            "http://127.0.0.1:19081/products", "http://127.0.0.1:19082/customers/42", "http://127.0.0.1:19083/reviews");
    private static final List<String> PART_NAMES = List.of("products", "customers", "reviews");

    private ClientBench() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 3 && args.length != 6) {
            System.err.println(
                    "usage: ClientBench http1|apache|jdk|jetty virtual|platform PORT [PRODUCTS_URL CUSTOMERS_URL REVIEWS_URL]");
            System.exit(2);
        }
        Function<UpstreamConfig, UpstreamClient> clients = clients(args[0]);
        EngineMode mode = EngineMode.fromKey(args[1])
                .filter(m -> m != EngineMode.REACTIVE)
                .orElseThrow(
                        () -> new IllegalArgumentException("mode: '" + args[1] + "' (expected: virtual or platform)"));
        int port = Integer.parseInt(args[2]);
        List<String> urls = args.length == 6 ? List.of(args[3], args[4], args[5]) : DEFAULT_URLS;
        try (RunningGateway gateway = new BlockingEngine(clients).start(config(mode, port, urls))) {
            System.out.println("READY " + gateway.port());
            System.out.flush();
            awaitEndOfInput();
        }
    }

    static Function<UpstreamConfig, UpstreamClient> clients(String name) {
        return switch (name) {
            case "http1" -> Http1UpstreamClient::new;
            case "apache" -> ApacheUpstreamClient::new;
            case "jdk" -> JdkUpstreamClient::new;
            case "jetty" -> JettyUpstreamClient::new;
            default ->
                throw new IllegalArgumentException("client: '" + name + "' (expected: http1, apache, jdk or jetty)");
        };
    }

    /** One upstream per URL (its scheme and authority) and a part for its path and query. */
    static GatewayConfig config(EngineMode mode, int port, List<String> urls) {
        ServerConfig d = ServerConfig.defaults();
        ServerConfig server = new ServerConfig(
                "127.0.0.1",
                port,
                mode,
                d.platformThreads(),
                d.fanoutThreads(),
                d.shutdownGrace(),
                d.readAhead(),
                d.transport());
        Map<String, UpstreamConfig> upstreams = new LinkedHashMap<>();
        List<PartConfig> parts = new ArrayList<>();
        for (int i = 0; i < urls.size(); i++) {
            URI url = URI.create(urls.get(i));
            if (url.getHost() == null
                    || url.getRawPath() == null
                    || url.getRawPath().isEmpty()) {
                throw new IllegalArgumentException("url: '" + urls.get(i) + "' (expected: http://host:port/path)");
            }
            String name = PART_NAMES.get(i);
            upstreams.put(name, UpstreamConfig.of(name, URI.create("http://" + url.getRawAuthority())));
            String target = url.getRawQuery() == null ? url.getRawPath() : url.getRawPath() + "?" + url.getRawQuery();
            parts.add(new PartConfig(name, name, PathTemplate.parse(target), false, Optional.empty()));
        }
        ComposeTarget compose = new ComposeTarget(
                ComposeTarget.Fanout.PARALLEL,
                ComposeTarget.Order.ARRIVAL,
                ComposeTarget.OnError.PARTIAL,
                Duration.ofSeconds(10),
                false,
                parts);
        RouteConfig route = new RouteConfig("compose", RouteMatch.path("/compose"), compose, List.of());
        return new GatewayConfig(server, Optional.empty(), upstreams, List.of(route));
    }

    private static void awaitEndOfInput() throws IOException {
        byte[] sink = new byte[256];
        while (System.in.read(sink) >= 0) {
            // input is ignored; its end is the stop signal
        }
    }
}
