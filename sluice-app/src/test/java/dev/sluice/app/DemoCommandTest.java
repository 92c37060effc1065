package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.EngineMode;
import dev.sluice.engine.Engine;
import dev.sluice.tck.ListeningSockets;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code sluice demo} in-process: demo upstreams on free ports, the gateway on port 0. */
class DemoCommandTest {

    private static final Pattern STARTED = Pattern.compile(
            "sluice started in (\\d+) ms: listening on 127\\.0\\.0\\.1:(\\d+) \\(http://127\\.0\\.0\\.1:\\2\\);"
                    + " h2c, http/1.1; engine (\\w+) on (\\w+), 11 routes");

    /** Every engine mode on the class path. */
    static Stream<String> modes() {
        List<String> modes = new ArrayList<>();
        for (Engine engine : ServiceLoader.load(Engine.class)) {
            engine.modes().forEach(m -> modes.add(m.key()));
        }
        return Arrays.stream(EngineMode.values()).map(EngineMode::key).filter(modes::contains);
    }

    @ParameterizedTest(name = "engine {0}")
    @MethodSource("modes")
    void demoServesTheBundledRoutesAndStopsCleanly(String mode) throws Exception {
        AtomicReference<URI> gateway = new AtomicReference<>();
        AtomicReference<Map<String, URI>> upstreams = new AtomicReference<>();
        CliRunner.Result result = CliRunner.run(
                session -> {
                    gateway.set(session.gatewayUrl().orElseThrow());
                    upstreams.set(session.upstreamUrls());
                    checkCompose(gateway.get());
                    checkComposeDelay(gateway.get());
                    checkProxies(gateway.get(), session.upstreamUrls().get("products"));
                },
                "demo",
                "--engine",
                mode,
                "--port",
                "0",
                "--upstream-port-base",
                "0");

        assertThat(result.err()).isEmpty();
        assertThat(result.exitCode()).isZero();
        List<String> lines = result.out().lines().toList();
        Matcher started = STARTED.matcher(lines.getFirst());
        assertThat(started.matches()).as(lines.getFirst()).isTrue();
        assertThat(Integer.parseInt(started.group(2))).isEqualTo(gateway.get().getPort());
        assertThat(started.group(3)).isEqualTo(mode);
        assertThat(lines).filteredOn(l -> l.startsWith("sluice started")).hasSize(1);
        assertThat(lines)
                .anyMatch(l -> l.matches("  curl -s " + Pattern.quote(gateway.get() + "/compose")
                        + " +# the paper's composition: products \\+ customer \\+ reviews, streamed as they arrive"));
        assertThat(lines)
                .filteredOn(l -> l.startsWith("  curl -s "))
                .hasSize(12)
                .allSatisfy(l -> assertThat(l).contains(gateway.get().toString()));
        assertThat(lines.get(1))
                .startsWith("demo upstreams: products " + upstreams.get().get("products"));
        assertThat(lines.getLast()).isEqualTo("sluice stopped");

        // Everything is closed: neither the gateway nor an upstream listens any more.
        assertThat(ListeningSockets.awaitNotListening(gateway.get().getPort(), Duration.ofSeconds(10)))
                .as("the gateway's port is closed")
                .isTrue();
        assertThat(upstreams.get().values())
                .allSatisfy(url -> assertThat(ListeningSockets.awaitNotListening(url.getPort(), Duration.ofSeconds(10)))
                        .as("%s is closed", url)
                        .isTrue());
    }

    @SuppressWarnings("unchecked")
    private static void checkCompose(URI gateway) throws Exception {
        HttpResponse<String> response = Http.get(gateway, "/compose");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(response.headers().firstValue("cache-control")).hasValue("no-store");
        Map<String, Object> body = Http.json(response.body());
        assertThat(body.keySet()).containsExactlyInAnyOrder("products", "customer", "reviews", "_meta");
        assertThat((List<?>) ((Map<String, Object>) body.get("products")).get("products"))
                .isNotEmpty();
        assertThat((Map<String, Object>) body.get("customer")).containsEntry("id", "42");
        assertThat((Map<String, Object>) body.get("reviews")).containsEntry("product_id", "1001");
        Map<String, Object> meta = (Map<String, Object>) body.get("_meta");
        assertThat((List<?>) meta.get("failed")).isEmpty();
        Map<String, Map<String, Object>> parts = (Map<String, Map<String, Object>>) meta.get("parts");
        assertThat(parts.keySet()).containsExactly("products", "customer", "reviews");
        assertThat(parts.values()).allSatisfy(p -> assertThat(p).containsEntry("status", 200));
        assertThat(((Number) parts.get("products").get("bytes")).intValue()).isBetween(15_000, 17_500);
        assertThat(((Number) parts.get("customer").get("bytes")).intValue()).isBetween(4_500, 5_500);
        assertThat(((Number) parts.get("reviews").get("bytes")).intValue()).isBetween(6_500, 7_500);
        assertThat(response.body()).endsWith("}}");
    }

    @SuppressWarnings("unchecked")
    private static void checkComposeDelay(URI gateway) throws Exception {
        for (String route : List.of("/compose-delay", "/compose-delay-sequential")) {
            HttpResponse<String> response = Http.get(gateway, route);
            assertThat(response.statusCode()).as(route).isEqualTo(200);
            Map<String, Object> body = Http.json(response.body());
            assertThat(body)
                    .as(route)
                    .containsEntry("first", Map.of("index", 1, "data", "test data"))
                    .containsEntry("second", Map.of("index", 2, "data", "test data"))
                    .containsEntry("third", Map.of("index", 3, "data", "test data"));
            assertThat((List<?>) ((Map<String, Object>) body.get("_meta")).get("failed"))
                    .isEmpty();
        }
        // Sequential: each part starts after the one before ended, so the last ends 90+ ms in.
        Map<String, Object> meta = (Map<String, Object>)
                Http.json(Http.get(gateway, "/compose-delay-sequential").body()).get("_meta");
        Map<String, Map<String, Object>> parts = (Map<String, Map<String, Object>>) meta.get("parts");
        assertThat(((Number) parts.get("third").get("latency_ms")).doubleValue())
                .isGreaterThanOrEqualTo(90);
    }

    private static void checkProxies(URI gateway, URI products) throws Exception {
        HttpResponse<String> direct = Http.get(products, "/products/1001");
        HttpResponse<String> proxied = Http.get(gateway, "/products/1001");
        assertThat(proxied.statusCode()).isEqualTo(200);
        assertThat(proxied.body()).isEqualTo(direct.body());
        HttpResponse<String> stripped = Http.get(gateway, "/api/products/1001");
        assertThat(stripped.statusCode()).isEqualTo(200);
        assertThat(stripped.body()).isEqualTo(direct.body());
        HttpResponse<String> delay = Http.get(gateway, "/delay?ms=0&index=9");
        assertThat(delay.body()).isEqualTo("{\"index\":9,\"data\":\"test data\"}");
    }

    @Test
    void aGatewayPortInUseIsOneLineAndTheUpstreamsAreStoppedAgain() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            CliRunner.Result result = CliRunner.run(
                    "demo", "--port", Integer.toString(taken.getLocalPort()), "--upstream-port-base", "0");
            assertThat(result.exitCode()).isEqualTo(1);
            assertThat(result.err())
                    .isEqualTo(
                            "sluice: port " + taken.getLocalPort() + " is in use: stop what uses it or pass --port\n");
            assertThat(result.out()).isEmpty();
        }
    }

    @Test
    void anUpstreamPortInUseNamesTheOptionToChangeIt() throws Exception {
        try (ServerSocket taken = portBelow(65531)) {
            int port = taken.getLocalPort();
            CliRunner.Result demo =
                    CliRunner.run("demo", "--port", "0", "--upstream-port-base", Integer.toString(port));
            assertThat(demo.exitCode()).isEqualTo(1);
            assertThat(demo.err())
                    .isEqualTo("sluice: port " + port + " is in use: stop what uses it or pass --upstream-port-base\n");

            CliRunner.Result upstreams = CliRunner.run("upstreams", "--port-base", Integer.toString(port));
            assertThat(upstreams.exitCode()).isEqualTo(1);
            assertThat(upstreams.err())
                    .isEqualTo("sluice: port " + port + " is in use: stop what uses it or pass --port-base\n");
        }
    }

    /** A bound loopback socket whose port is below {@code limit} (a valid port base). */
    private static ServerSocket portBelow(int limit) throws java.io.IOException {
        while (true) {
            ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            if (socket.getLocalPort() < limit) {
                return socket;
            }
            socket.close();
        }
    }
}
