package dev.sluice.app;

import dev.sluice.config.EngineMode;
import dev.sluice.config.GatewayConfig;
import dev.sluice.demo.DemoConfig;
import dev.sluice.engine.RunningGateway;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

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
