package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.demo.DemoUpstreams;
import dev.sluice.tck.ListeningSockets;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunAndUpstreamsCommandTest {

    @TempDir
    Path dir;

    @Test
    void runServesAConfigurationFileWithCommandLineOverrides() throws Exception {
        try (DemoUpstreams upstreams = DemoUpstreams.start("127.0.0.1", 0)) {
            Path file = Files.writeString(dir.resolve("gateway.yaml"), """
          server: { host: 127.0.0.1, port: 8080, engine: virtual }
          upstreams:
            catalog: { url: "%s" }
            people:  { url: "%s" }
          routes:
            - id: page
              match: { path: "/page/{id}", methods: [GET] }
              compose:
                order: declared
                parts:
                  product:  { upstream: catalog, path: "/products/{id}" }
                  customer: { upstream: people,  path: "/customers/{id}" }
            - id: catalog
              match: { path: "/products/**" }
              proxy: { upstream: catalog }
          """.formatted(
                            upstreams.urls().get("products"), upstreams.urls().get("customers")));
            AtomicReference<URI> gateway = new AtomicReference<>();
            CliRunner.Result result = CliRunner.run(
                    session -> {
                        gateway.set(session.gatewayUrl().orElseThrow());
                        HttpResponse<String> page = Http.get(gateway.get(), "/page/77");
                        assertThat(page.statusCode()).isEqualTo(200);
                        assertThat(page.body()).startsWith("{\"product\":{");
                        Map<String, Object> body = Http.json(page.body());
                        assertThat(body).containsKeys("product", "customer", "_meta");
                        HttpResponse<String> missing = Http.get(gateway.get(), "/nothing");
                        assertThat(missing.statusCode()).isEqualTo(404);
                    },
                    "run",
                    "-c",
                    file.toString(),
                    "--port",
                    "0",
                    "--engine",
                    "platform");

            assertThat(result.err()).isEmpty();
            assertThat(result.exitCode()).isZero();
            assertThat(gateway.get().getPort()).isNotEqualTo(8080);
            List<String> lines = result.out().lines().toList();
            assertThat(lines).hasSize(2);
            assertThat(lines.getFirst())
                    .matches("sluice started in \\d+ ms: listening on 127\\.0\\.0\\.1:"
                            + gateway.get().getPort()
                            + " \\(http://127\\.0\\.0\\.1:" + gateway.get().getPort()
                            + "\\); h2c, http/1.1; engine platform on nio, 2 routes");
            assertThat(lines.getLast()).isEqualTo("sluice stopped");
        }
    }

    @Test
    void onAWildcardTheStartedLineNamesItAndEveryUrlItListsAnswers() throws Exception {
        try (DemoUpstreams upstreams = DemoUpstreams.start("127.0.0.1", 0)) {
            Path file = Files.writeString(
                    dir.resolve("gateway.yaml"), """
          server: { host: 0.0.0.0, port: 0, engine: reactive }
          upstreams: { catalog: { url: "%s" } }
          routes: [ { id: catalog, match: { path: "/products/**" }, proxy: { upstream: catalog } } ]
          """.formatted(upstreams.urls().get("products")));
            AtomicReference<Integer> port = new AtomicReference<>();
            AtomicReference<List<Integer>> statuses = new AtomicReference<>(List.of());
            CliRunner.Result result = CliRunner.run(
                    session -> {
                        port.set(session.port().orElseThrow());
                        statuses.set(ListenAddresses.urls("0.0.0.0", port.get()).stream()
                                .map(url -> {
                                    try {
                                        return Http.get(url, "/products/1001").statusCode();
                                    } catch (Exception e) {
                                        throw new AssertionError(url + " does not answer", e);
                                    }
                                })
                                .toList());
                    },
                    "run",
                    "-c",
                    file.toString());

            assertThat(result.err()).isEmpty();
            assertThat(result.exitCode()).isZero();
            String started = result.out().lines().findFirst().orElseThrow();
            assertThat(started)
                    .startsWith("sluice started in ")
                    .contains(" ms: listening on 0.0.0.0:" + port.get() + " (http://127.0.0.1:" + port.get())
                    .matches(".*\\); h2c, http/1.1; engine reactive on \\w+, 1 route");
            assertThat(statuses.get())
                    .isNotEmpty()
                    .allSatisfy(status -> assertThat(status).isEqualTo(200));
        }
    }

    @Test
    void ioUringOnABlockingEngineIsRefusedInOneLine() throws Exception {
        Path file = Files.writeString(dir.resolve("gateway.yaml"), """
        server: { host: 127.0.0.1, port: 0, engine: reactive, transport: io_uring }
        upstreams: { app: { url: "http://127.0.0.1:1" } }
        routes: [ { id: all, match: { path: "/**" }, proxy: { upstream: app } } ]
        """);
        CliRunner.Result result = CliRunner.run("run", "-c", file.toString(), "--engine", "virtual");
        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err())
                .isEqualTo("sluice: the gateway could not start: server.transport: 'io_uring' needs engine"
                        + " 'reactive' (expected: auto or nio for engine 'virtual')\n");
        assertThat(result.out()).isEmpty();
    }

    @Test
    void upstreamsRunsOnlyTheDemoUpstreams() throws Exception {
        AtomicReference<Map<String, URI>> urls = new AtomicReference<>();
        CliRunner.Result result = CliRunner.run(
                session -> {
                    assertThat(session.gatewayUrl()).isEmpty();
                    urls.set(session.upstreamUrls());
                    for (Map.Entry<String, URI> e : session.upstreamUrls().entrySet()) {
                        HttpResponse<String> health = Http.get(e.getValue(), "/health");
                        assertThat(health.statusCode()).isEqualTo(200);
                        assertThat(Http.json(health.body())).containsEntry("service", e.getKey());
                    }
                },
                "upstreams",
                "--host",
                "127.0.0.1",
                "--port-base",
                "0");

        assertThat(result.exitCode()).isZero();
        List<String> lines = result.out().lines().toList();
        assertThat(lines.getFirst()).matches("sluice upstreams started in \\d+ ms: 6 demo upstreams");
        assertThat(lines.subList(1, 7))
                .containsExactly(
                        "  products  " + urls.get().get("products"),
                        "  customers " + urls.get().get("customers"),
                        "  reviews   " + urls.get().get("reviews"),
                        "  delay     " + urls.get().get("delay"),
                        "  blocking  " + urls.get().get("blocking"),
                        "  limited   " + urls.get().get("limited"));
        assertThat(lines.getLast()).isEqualTo("sluice stopped");
        assertThat(urls.get().values())
                .allSatisfy(url -> assertThat(ListeningSockets.awaitNotListening(url.getPort(), Duration.ofSeconds(10)))
                        .as("%s is closed", url)
                        .isTrue());
    }
}
