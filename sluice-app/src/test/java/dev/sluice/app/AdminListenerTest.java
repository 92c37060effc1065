package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.demo.DemoUpstreams;
import dev.sluice.tck.ListeningSockets;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code sluice run} with an {@code admin:} section, in every engine mode: the admin listener on its
 * own port answers health, Prometheus metrics fed by the core's observer seam (the same meters in
 * every engine), and the routes; traffic on the gateway shows in the metrics.
 */
class AdminListenerTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"virtual", "platform", "reactive"})
    void theMetricsShowEachEndpointInOrOutOfTheRotationAndTheRetries(String engine) throws Exception {
        int refused = dev.sluice.tck.TestUpstream.refusedPort();
        try (DemoUpstreams upstreams = DemoUpstreams.start("127.0.0.1", 0)) {
            URI live = upstreams.urls().get("customers");
            Path file = Files.writeString(dir.resolve("gateway.yaml"), """
          server: { host: 127.0.0.1, port: 0 }
          admin: { host: 127.0.0.1, port: 0 }
          upstreams:
            people:
              endpoints: ["%s", "http://127.0.0.1:%d"]
              outlier-detection: { consecutive-failures: 1 }
              retry: { attempts: 2, on: [connect-failure] }
              circuit-breaker: { window: 10 }
          routes:
            - id: people
              match: { path: "/customers/**" }
              proxy: { upstream: people }
          """.formatted(live, refused));
            CliRunner.Result result = CliRunner.run(
                    session -> {
                        URI gateway = session.gatewayUrl().orElseThrow();
                        URI admin = session.adminUrl().orElseThrow();
                        for (int i = 0; i < 6; i++) {
                            assertThat(Http.get(gateway, "/customers/42").statusCode())
                                    .as("a refused try moves to the live endpoint")
                                    .isEqualTo(200);
                        }
                        String text = Http.get(admin, "/metrics").body();
                        String liveTags = "endpoint=\"" + live.getAuthority() + "\",upstream=\"people\"";
                        String deadTags = "endpoint=\"127.0.0.1:" + refused + "\",upstream=\"people\"";
                        assertThat(text)
                                .contains("sluice_upstream_endpoint_up{" + liveTags + "} 1.0")
                                .contains("sluice_upstream_endpoint_up{" + deadTags + "} 0.0")
                                .contains("sluice_upstream_endpoint_breaker_open{" + liveTags + "} 0.0")
                                .contains("sluice_upstream_retries_total{upstream=\"people\"} 1.0")
                                .contains("sluice_upstream_retries_over_budget_total{upstream=\"people\"} 0.0")
                                .contains("sluice_upstream_circuit_open_total{upstream=\"people\"} 0.0");
                    },
                    "run",
                    "-c",
                    file.toString(),
                    "--engine",
                    engine);
            assertThat(result.exitCode()).as(result.err()).isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"virtual", "platform", "reactive"})
    void theAdminListenerAnswersHealthMetricsAndRoutes(String engine) throws Exception {
        try (DemoUpstreams upstreams = DemoUpstreams.start("127.0.0.1", 0)) {
            Path file = Files.writeString(dir.resolve("gateway.yaml"), """
          server: { host: 127.0.0.1, port: 0, limits: { max-read-ahead: 2MiB } }
          admin: { host: 127.0.0.1, port: 0 }
          upstreams:
            catalog: { url: "%s" }
            people:  { url: "%s" }
          routes:
            - id: page
              match: { path: "/page/{id}", methods: [GET] }
              compose:
                parts:
                  product:  { upstream: catalog, path: "/products/{id}", cache: { ttl: 30s } }
                  customer: { upstream: people,  path: "/customers/{id}" }
            - id: catalog
              match: { path: "/products/**" }
              proxy: { upstream: catalog }
          """.formatted(
                            upstreams.urls().get("products"), upstreams.urls().get("customers")));
            AtomicReference<URI> admin = new AtomicReference<>();
            CliRunner.Result result = CliRunner.run(
                    session -> {
                        URI gateway = session.gatewayUrl().orElseThrow();
                        admin.set(session.adminUrl().orElseThrow());
                        assertThat(admin.get().getPort()).isNotEqualTo(gateway.getPort());

                        HttpResponse<String> live = Http.get(admin.get(), "/health/live");
                        assertThat(live.statusCode()).isEqualTo(200);
                        assertThat(live.body()).isEqualTo("{\"status\":\"up\"}");
                        HttpResponse<String> health = Http.get(admin.get(), "/health");
                        assertThat(health.statusCode()).isEqualTo(200);
                        assertThat(health.body())
                                .isEqualTo("{\"status\":\"up\",\"listeners\":[{\"name\":\"gateway\",\"port\":"
                                        + gateway.getPort()
                                        + ",\"tls\":false,\"protocols\":[\"h2c\",\"http/1.1\"]},{\"name\":\"admin\",\"port\":"
                                        + admin.get().getPort() + ",\"tls\":false,\"protocols\":[\"http/1.1\"]}]}");
                        HttpResponse<String> ready = Http.get(admin.get(), "/health/ready");
                        assertThat(ready.statusCode()).isEqualTo(200);
                        assertThat(ready.body()).isEqualTo("{\"status\":\"ready\"}");

                        assertThat(Http.get(gateway, "/page/77").statusCode()).isEqualTo(200);
                        assertThat(Http.get(gateway, "/products/1001").statusCode())
                                .isEqualTo(200);
                        assertThat(Http.get(gateway, "/products/1001").statusCode())
                                .isEqualTo(200);
                        assertThat(Http.get(gateway, "/nowhere").statusCode()).isEqualTo(404);
                        assertThat(Http.raw(gateway, "GET /products/1001 HTTP/1.1\r\n\r\n"))
                                .as("no Host: refused before routing, and counted")
                                .startsWith("HTTP/1.1 400 ");

                        HttpResponse<String> metrics = Http.get(admin.get(), "/metrics");
                        assertThat(metrics.statusCode()).isEqualTo(200);
                        assertThat(metrics.headers().firstValue("content-type").orElse(""))
                                .startsWith("text/plain");
                        // An exchange is reported once its answer is written, which may be just after the
                        // client had its last byte (the refused head's 400 above, the last /products call):
                        // scrape again until every line is there, boundedly, then say which one is missing.
                        List<String> expected = List.of(
                                "sluice_requests_seconds_count{method=\"GET\",outcome=\"answered\","
                                        + "route=\"catalog\",status=\"2xx\"} 2",
                                "sluice_requests_seconds_count{method=\"GET\",outcome=\"answered\","
                                        + "route=\"page\",status=\"2xx\"} 1",
                                "sluice_requests_seconds_count{method=\"GET\",outcome=\"answered\","
                                        + "route=\"(none)\",status=\"4xx\"} 2", // the 404 and the refused head
                                "sluice_policy_refusals_total{policy=\"request-framing\",route=\"(none)\","
                                        + "status=\"400\"} 1.0",
                                "sluice_requests_seconds_bucket{method=\"GET\",outcome=\"answered\","
                                        + "route=\"catalog\",status=\"2xx\",le=\"10.0\"} 2",
                                "sluice_composition_parts_total{outcome=\"ok\",route=\"page\",upstream=\"catalog\"} 1",
                                "sluice_composition_parts_total{outcome=\"ok\",route=\"page\",upstream=\"people\"} 1",
                                "sluice_up 1.0",
                                "jvm_memory_used_bytes",
                                "process_files_open_files",
                                "sluice_upstream_calls_seconds_count{outcome=\"ok\",upstream=\"catalog\"} 3",
                                "sluice_upstream_calls_seconds_count{outcome=\"ok\",upstream=\"people\"} 1",
                                "sluice_composition_part_first_byte_seconds_count{route=\"page\",upstream=\"people\"} 1",
                                "sluice_upstream_connections{state=\"pending\",upstream=\"catalog\"} 0.0",
                                // the read-ahead budget: its limit as configured, nothing held once the
                                // composition is answered, no part waiting
                                "sluice_read_ahead_limit_bytes 2097152.0",
                                "sluice_read_ahead_held_bytes 0.0",
                                "sluice_read_ahead_waiting 0.0",
                                // the part cache: the product's first lookup missed, nothing expired yet
                                "sluice_part_cache_misses_total 1.0",
                                "sluice_part_cache_hits_total 0.0",
                                "sluice_part_cache_evictions_total 0.0");
                        String text = metrics.body();
                        long counted = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
                        while (!expected.stream().allMatch(text::contains) && System.nanoTime() < counted) {
                            Thread.sleep(20);
                            text = Http.get(admin.get(), "/metrics").body();
                        }
                        for (String line : expected) {
                            assertThat(text).as("/metrics has " + line).contains(line);
                        }
                        // The pool takes a connection back once it has read the body's end, which may be
                        // just after the client had its last byte: wait for it, boundedly.
                        java.util.regex.Pattern idle = java.util.regex.Pattern.compile(
                                "sluice_upstream_connections\\{state=\"idle\",upstream=\"catalog\"} [1-9]");
                        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
                        while (!idle.matcher(text).find() && System.nanoTime() < deadline) {
                            text = Http.get(admin.get(), "/metrics").body();
                        }
                        assertThat(text)
                                .as("a kept-alive connection to catalog is idle")
                                .containsPattern(idle);

                        HttpResponse<String> routes = Http.get(admin.get(), "/routes");
                        assertThat(routes.statusCode()).isEqualTo(200);
                        assertThat(Http.jsonList(routes.body())).hasSize(2);
                        assertThat(routes.body())
                                .contains(
                                        "\"id\":\"page\"",
                                        "\"compose\":{\"product\":\"catalog\",\"customer\":\"people\"}")
                                .contains("\"id\":\"catalog\"", "\"proxy\":\"catalog\"");

                        HttpResponse<String> missing = Http.get(admin.get(), "/nothing");
                        assertThat(missing.statusCode()).isEqualTo(404);
                        assertThat(missing.body()).contains("\"error\":\"not_found\"");
                    },
                    "run",
                    "-c",
                    file.toString(),
                    "--engine",
                    engine);

            assertThat(result.exitCode()).as(result.err()).isZero();
            List<String> lines = result.out().lines().toList();
            assertThat(lines).hasSize(3);
            assertThat(lines.get(1))
                    .isEqualTo("admin listening on " + admin.get()
                            + " (/health, /health/live, /health/ready, /metrics, /routes, /config, POST /reload)");
            assertThat(ListeningSockets.awaitNotListening(admin.get().getPort(), Duration.ofSeconds(10)))
                    .as("the admin listener is closed with the gateway")
                    .isTrue();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"virtual", "platform", "reactive"})
    void onStopReadinessTurnsFalseAndTheGatewayServesThroughItsDrainDelay(String engine) throws Exception {
        try (DemoUpstreams upstreams = DemoUpstreams.start("127.0.0.1", 0)) {
            Path file = Files.writeString(
                    dir.resolve("gateway.yaml"), """
          server: { host: 127.0.0.1, port: 0 }
          admin: { host: 127.0.0.1, port: 0, drain-delay: 2s }
          upstreams:
            catalog: { url: "%s" }
          routes:
            - id: catalog
              match: { path: "/products/**" }
              proxy: { upstream: catalog }
          """.formatted(upstreams.urls().get("products")));
            java.util.concurrent.atomic.AtomicInteger served = new java.util.concurrent.atomic.AtomicInteger();
            List<String> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
            java.util.concurrent.CountDownLatch warm = new java.util.concurrent.CountDownLatch(20);
            java.util.concurrent.atomic.AtomicReference<Thread> balancer =
                    new java.util.concurrent.atomic.AtomicReference<>();
            java.util.concurrent.atomic.AtomicBoolean sawNotReady = new java.util.concurrent.atomic.AtomicBoolean();
            CliRunner.Result result = CliRunner.run(
                    session -> {
                        URI gateway = session.gatewayUrl().orElseThrow();
                        URI admin = session.adminUrl().orElseThrow();
                        // a load balancer: sends while the gateway is ready, and stops once it is not
                        balancer.set(Thread.ofVirtual().start(() -> {
                            while (true) {
                                try {
                                    if (Http.get(admin, "/health/ready").statusCode() != 200) {
                                        sawNotReady.set(true);
                                        return;
                                    }
                                    HttpResponse<String> r = Http.get(gateway, "/products/1001");
                                    if (r.statusCode() == 200) {
                                        served.incrementAndGet();
                                    } else {
                                        failures.add("status " + r.statusCode());
                                    }
                                } catch (Exception e) {
                                    failures.add(String.valueOf(e));
                                    return;
                                }
                                warm.countDown();
                            }
                        }));
                        assertThat(warm.await(30, java.util.concurrent.TimeUnit.SECONDS))
                                .isTrue();
                    }, // returning stops the gateway while the balancer keeps sending
                    "run",
                    "-c",
                    file.toString(),
                    "--engine",
                    engine);
            balancer.get().join(Duration.ofSeconds(30));
            assertThat(result.exitCode()).as(result.err()).isZero();
            assertThat(sawNotReady).as("readiness turned false").isTrue();
            assertThat(failures)
                    .as("requests that failed while the gateway stopped")
                    .isEmpty();
            assertThat(served.get()).isGreaterThanOrEqualTo(20);
        }
    }

    @org.junit.jupiter.api.Test
    void configShowsTheRunningFileWithTheCommandLineAppliedAndSecretsRedacted() throws Exception {
        Path file = Files.writeString(dir.resolve("gateway.yaml"), """
          server: { host: 127.0.0.1, port: 0, engine: virtual }
          admin: { host: 127.0.0.1, port: 0 }
          upstreams:
            catalog: { url: "http://127.0.0.1:9" }
          routes:
            - id: catalog
              match: { path: "/products/**" }
              proxy: { upstream: catalog }
              filters:
                - request-headers: { set: { x-api-key: "s3cr3t-value", authorization: "Bearer abc.def", x-env: prod } }
          """);
        AtomicReference<String> config = new AtomicReference<>();
        CliRunner.Result result = CliRunner.run(
                session -> config.set(
                        Http.get(session.adminUrl().orElseThrow(), "/config").body()),
                "run",
                "-c",
                file.toString(),
                "--engine",
                "reactive");
        assertThat(result.exitCode()).as(result.err()).isZero();
        java.util.Map<String, Object> json = Http.json(config.get());
        assertThat(config.get()).doesNotContain("s3cr3t-value").doesNotContain("abc.def");
        assertThat(config.get()).contains("\"x-env\":\"prod\"", "\"x-api-key\":\"(redacted)\"");
        @SuppressWarnings("unchecked")
        java.util.Map<String, Object> server = (java.util.Map<String, Object>) json.get("server");
        assertThat(server).containsEntry("engine", "reactive").containsEntry("host", "127.0.0.1");
        assertThat(server).as("the configured port (0: any free one)").containsEntry("port", 0);
        assertThat(json).containsKeys("upstreams", "routes", "admin");
    }

    /**
     * {@code admin.auth.token} (here from a secret file) guards every admin endpoint but the
     * orchestrator's probes: 401 without it or with another, 200 with it; {@code --admin-port}
     * starts the listener on the port it names.
     */
    @Test
    void withATokenTheAdminAnswers401WithoutItAnd200WithIt() throws Exception {
        int adminPort;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            adminPort = free.getLocalPort();
        }
        String token = "s3cret-admin-token-0123456789";
        Files.writeString(dir.resolve("admin-token"), token + "\n");
        Path file = Files.writeString(dir.resolve("gateway.yaml"), """
                server: { host: 127.0.0.1, port: 0 }
                admin: { host: 127.0.0.1, port: 0, auth: { token: { secret-file: admin-token } } }
                upstreams: { u: { url: "http://127.0.0.1:9" } }
                routes: [ { id: a, match: { path: "/a" }, proxy: { upstream: u } } ]
                """);
        java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
        CliRunner.Result result = CliRunner.run(
                session -> {
                    URI admin = session.adminUrl().orElseThrow();
                    assertThat(admin.getPort()).as("--admin-port").isEqualTo(adminPort);
                    for (String path : new String[] {"/metrics", "/config", "/routes", "/health"}) {
                        assertThat(Http.get(admin, path).statusCode()).as(path).isEqualTo(401);
                        for (String auth : new String[] {"Bearer wrong-token-0123456789", "Basic " + token, "Bearer"}) {
                            assertThat(client.send(
                                                    java.net.http.HttpRequest.newBuilder(admin.resolve(path))
                                                            .header("Authorization", auth)
                                                            .build(),
                                                    java.net.http.HttpResponse.BodyHandlers.ofString())
                                            .statusCode())
                                    .as("%s with %s", path, auth.split(" ")[0])
                                    .isEqualTo(401);
                        }
                        java.net.http.HttpResponse<String> ok = client.send(
                                java.net.http.HttpRequest.newBuilder(admin.resolve(path))
                                        .header("Authorization", "Bearer " + token)
                                        .build(),
                                java.net.http.HttpResponse.BodyHandlers.ofString());
                        assertThat(ok.statusCode()).as(path).isEqualTo(200);
                        assertThat(ok.body()).doesNotContain(token);
                    }
                    assertThat(client.send(
                                            java.net.http.HttpRequest.newBuilder(admin.resolve("/reload"))
                                                    .POST(java.net.http.HttpRequest.BodyPublishers.noBody())
                                                    .build(),
                                            java.net.http.HttpResponse.BodyHandlers.ofString())
                                    .statusCode())
                            .isEqualTo(401);
                    assertThat(Http.get(admin, "/health/live").statusCode())
                            .as("probes")
                            .isEqualTo(200);
                    assertThat(Http.get(admin, "/health/ready").statusCode())
                            .as("probes")
                            .isEqualTo(200);
                },
                "run",
                "-c",
                file.toString(),
                "--admin-port",
                String.valueOf(adminPort));
        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out() + result.err()).doesNotContain(token);
    }

    /**
     * {@code admin.tls} with {@code client-auth: require}: a client without a certificate the CA
     * signed is refused in the handshake, one with it gets 200; {@code sluice check} does not warn of
     * such a listener beyond loopback.
     */
    @Test
    void withAdminTlsRequiringAClientCertificateOnlyItsHoldersGetIn() throws Exception {
        dev.sluice.tck.TestCertificates ca = dev.sluice.tck.TestCertificates.authority("admin CA");
        dev.sluice.tck.TestCertificates.Issued server =
                ca.server(dev.sluice.tck.TestCertificates.KeyType.EC, "localhost");
        server.writeCertificate(dir.resolve("admin.pem"));
        server.writeKey(dir.resolve("admin-key.pem"));
        ca.writeCertificate(dir.resolve("ca.pem"));
        String admin = "admin: { host: %s, port: 0, tls: { certificate: admin.pem, key: admin-key.pem,"
                + " client-auth: require, client-ca: ca.pem } }\n";
        String rest = """
                server: { host: 127.0.0.1, port: 0 }
                upstreams: { u: { url: "http://127.0.0.1:9" } }
                routes: [ { id: a, match: { path: "/a" }, proxy: { upstream: u } } ]
                """;
        Path wide = Files.writeString(dir.resolve("wide.yaml"), rest + admin.formatted("0.0.0.0"));
        assertThat(CliRunner.run("check", "-c", wide.toString()).out()).doesNotContain("warning: admin");
        Path file = Files.writeString(dir.resolve("gateway.yaml"), rest + admin.formatted("127.0.0.1"));
        CliRunner.Result result = CliRunner.run(
                session -> {
                    URI url = session.adminUrl().orElseThrow().resolve("/metrics");
                    assertThat(url.getScheme()).isEqualTo("https");
                    try (java.net.http.HttpClient without = java.net.http.HttpClient.newBuilder()
                            .sslContext(ca.clientContext(Optional.empty()))
                            .build()) {
                        assertThatThrownBy(() -> without.send(
                                        java.net.http.HttpRequest.newBuilder(url)
                                                .build(),
                                        java.net.http.HttpResponse.BodyHandlers.ofString()))
                                .as("no client certificate: refused in the handshake")
                                .isInstanceOf(java.io.IOException.class);
                    }
                    try (java.net.http.HttpClient with = java.net.http.HttpClient.newBuilder()
                            .sslContext(ca.clientContext(Optional.of(ca.client("operator"))))
                            .build()) {
                        assertThat(with.send(
                                                java.net.http.HttpRequest.newBuilder(url)
                                                        .build(),
                                                java.net.http.HttpResponse.BodyHandlers.ofString())
                                        .statusCode())
                                .isEqualTo(200);
                    }
                },
                "run",
                "-c",
                file.toString());
        assertThat(result.exitCode()).as(result.err()).isZero();
    }
}
