package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

class DemoUpstreamsTest {

    private static DemoUpstreams upstreams;
    private static HttpClient client;

    @BeforeAll
    static void start() throws IOException {
        upstreams = DemoUpstreams.start("127.0.0.1", 0);
        client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    static void stop() {
        upstreams.close();
        client.close();
    }

    private static HttpResponse<String> get(String service, String pathAndQuery) throws Exception {
        URI uri = URI.create(upstreams.urls().get(service) + pathAndQuery);
        return client.send(
                HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Parses JSON (YAML 1.2 is a superset of it). */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> json(String text) {
        return (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(text);
    }

    private static void assertJson(HttpResponse<String> response, int status) {
        assertThat(response.statusCode()).isEqualTo(status);
        assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(response.headers().firstValueAsLong("content-length"))
                .hasValue(response.body().getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
    }

    @Test
    void urlsNameTheSixServicesOnDistinctLoopbackPorts() {
        assertThat(upstreams.urls().keySet()).containsExactlyElementsOf(DemoUpstreams.NAMES);
        assertThat(upstreams.urls().values()).allSatisfy(u -> {
            assertThat(u.getHost()).isEqualTo("127.0.0.1");
            assertThat(u.getPort()).isPositive();
        });
        assertThat(upstreams.urls().values().stream().map(URI::getPort).distinct())
                .hasSize(6);
    }

    @Test
    void everyServiceAnswersHealth() throws Exception {
        for (String name : DemoUpstreams.NAMES) {
            HttpResponse<String> response = get(name, "/health");
            assertJson(response, 200);
            assertThat(json(response.body())).containsEntry("status", "up").containsEntry("service", name);
        }
    }

    @Test
    void productsAnswersACatalogueOfAbout16KiB() throws Exception {
        HttpResponse<String> response = get("products", "/products");
        assertJson(response, 200);
        assertThat(response.body().length()).isBetween(15_000, 17_500);
        Map<String, Object> catalogue = json(response.body());
        assertThat((List<?>) catalogue.get("products")).hasSizeGreaterThan(10);
        assertThat(response.body()).doesNotContain("{{");
    }

    @Test
    void productsAnswersOneProductById() throws Exception {
        HttpResponse<String> response = get("products", "/products/1007");
        assertJson(response, 200);
        assertThat(response.body().length()).isBetween(15_000, 17_500);
        Map<String, Object> product = json(response.body());
        assertThat(product).containsEntry("id", "1007").containsEntry("sku", "SLC-APP-1007");
        assertThat(response.body()).doesNotContain("{{");
    }

    @Test
    void anUnknownProductIdIs404() throws Exception {
        HttpResponse<String> response = get("products", "/products/no%20such");
        assertJson(response, 404);
        assertThat(json(response.body())).containsEntry("error", "not_found");
    }

    @Test
    void customersAnswersAProfileOfAbout5KiB() throws Exception {
        HttpResponse<String> response = get("customers", "/customers/42");
        assertJson(response, 200);
        assertThat(response.body().length()).isBetween(4_500, 5_500);
        Map<String, Object> customer = json(response.body());
        assertThat(customer).containsEntry("id", "42");
        assertThat((List<?>) customer.get("addresses")).isNotEmpty();
    }

    @Test
    void reviewsAnswersAPageOfAbout7KiBForTheAskedProduct() throws Exception {
        HttpResponse<String> byDefault = get("reviews", "/reviews");
        assertJson(byDefault, 200);
        assertThat(byDefault.body().length()).isBetween(6_500, 7_500);
        assertThat(json(byDefault.body())).containsEntry("product_id", "1001");

        HttpResponse<String> forOne = get("reviews", "/reviews?product=2002");
        assertJson(forOne, 200);
        assertThat(json(forOne.body())).containsEntry("product_id", "2002");

        assertJson(get("reviews", "/reviews?product=%22x"), 400);
    }

    @Test
    void delayAnswersTheSeedBodyAfterThirtyMilliseconds() throws Exception {
        long start = System.nanoTime();
        HttpResponse<String> response = get("delay", "/delay");
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertJson(response, 200);
        assertThat(response.body()).isEqualTo("{\"index\":1,\"data\":\"test data\"}");
        assertThat(elapsedMs).isGreaterThanOrEqualTo(30);
    }

    @Test
    void delayTakesIndexAndMillisecondsFromTheQuery() throws Exception {
        long start = System.nanoTime();
        HttpResponse<String> response = get("delay", "/delay?index=3&ms=150");
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(response.body()).isEqualTo("{\"index\":3,\"data\":\"test data\"}");
        assertThat(elapsedMs).isGreaterThanOrEqualTo(150);

        HttpResponse<String> bad = get("delay", "/delay?ms=soon");
        assertJson(bad, 400);
        assertThat(json(bad.body()).get("message").toString()).contains("ms: 'soon'");
    }

    @Test
    void blockingAnswersAfterTheAskedTimeAndNamesTheThreadKind() throws Exception {
        long start = System.nanoTime();
        HttpResponse<String> response = get("blocking", "/blocking?ms=200");
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertJson(response, 200);
        Map<String, Object> body = json(response.body());
        assertThat(body).containsEntry("waited_ms", 200);
        assertThat(body.get("thread")).isIn("virtual", "platform");
        assertThat(elapsedMs).isGreaterThanOrEqualTo(200);
    }

    @Test
    void limitedAnswers429WithRetryAfterToACallWithin200Ms() throws Exception {
        Thread.sleep(250);
        long start = System.nanoTime();
        HttpResponse<String> first = get("limited", "/limited");
        HttpResponse<String> second = get("limited", "/limited");
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertJson(first, 200);
        org.junit.jupiter.api.Assumptions.assumeTrue(elapsedMs < 150, "the two calls took " + elapsedMs + " ms");
        assertJson(second, 429);
        assertThat(second.headers().firstValue("retry-after")).hasValue("1");
        Map<String, Object> error = json(second.body());
        assertThat(error).containsEntry("error", "too_many_requests");
        assertThat((Integer) error.get("retry_after_ms")).isBetween(1, 200);
    }

    @Test
    void limitedAdmitsOneCallPerInterval() {
        var limited = new TimedServices.Limited(Duration.ofMillis(200));
        long t0 = System.nanoTime() + 1_000_000_000L;
        assertThat(limited.admit(t0)).isZero();
        assertThat(limited.admit(t0 + 50_000_000)).isEqualTo(150_000_000);
        assertThat(limited.admit(t0 + 199_999_999)).isEqualTo(1);
        assertThat(limited.admit(t0 + 200_000_000)).isZero();
        assertThat(limited.admit(t0 + 200_000_000)).isEqualTo(200_000_000);
    }

    @Test
    void unknownPathsAre404AndOtherMethods405() throws Exception {
        HttpResponse<String> missing = get("customers", "/orders");
        assertJson(missing, 404);
        assertThat(json(missing.body())).containsEntry("error", "not_found");

        HttpResponse<String> post = client.send(
                HttpRequest.newBuilder(URI.create(upstreams.urls().get("products") + "/products"))
                        .POST(HttpRequest.BodyPublishers.ofString("{}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertJson(post, 405);
        assertThat(post.headers().firstValue("allow")).hasValue("GET, HEAD");
    }

    @Test
    void headAnswersTheLengthWithoutTheBody() throws Exception {
        HttpResponse<String> head = client.send(
                HttpRequest.newBuilder(URI.create(upstreams.urls().get("customers") + "/customers/7"))
                        .method("HEAD", HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
        assertThat(head.headers().firstValueAsLong("content-length").orElseThrow())
                .isBetween(4_500L, 5_500L);
    }

    @Test
    void aTakenPortIsReportedAndNothingIsLeftListening() throws Exception {
        int base = freePortBase();
        try (ServerSocket taken = new ServerSocket(base + 2, 50, InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> DemoUpstreams.start("127.0.0.1", base))
                    .isInstanceOfSatisfying(
                            PortInUseException.class, e -> assertThat(e.port()).isEqualTo(base + 2))
                    .hasMessageStartingWith("port " + (base + 2) + " is in use");
        }
        // The two servers that had started were stopped: their ports are free again.
        for (int port = base; port < base + 2; port++) {
            try (ServerSocket again = new ServerSocket(port, 50, InetAddress.getLoopbackAddress())) {
                assertThat(again.getLocalPort()).isEqualTo(port);
            }
        }
    }

    @Test
    void aFixedPortBaseGivesConsecutivePorts() throws Exception {
        int base = freePortBase();
        try (DemoUpstreams fixed = DemoUpstreams.start("127.0.0.1", base)) {
            for (int i = 0; i < DemoUpstreams.NAMES.size(); i++) {
                assertThat(fixed.urls().get(DemoUpstreams.NAMES.get(i)))
                        .isEqualTo(URI.create("http://127.0.0.1:" + (base + i)));
            }
        }
    }

    @Test
    void aPortBaseOutOfRangeIsRefused() {
        assertThatThrownBy(() -> DemoUpstreams.start("127.0.0.1", 65533))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("portBase: 65533 (expected: 0 or 1..65530)");
    }

    /**
     * A base with six free consecutive ports, found by trying below the kernel's ephemeral range
     * (Linux: 32768-60999): ports there are never handed to a socket that did not name them, so the
     * probe's ports cannot be taken meanwhile by a server on port 0 or an outgoing connection.
     */
    static int freePortBase() {
        for (int attempt = 0; attempt < 200; attempt++) {
            int base = java.util.concurrent.ThreadLocalRandom.current().nextInt(20_000, 30_000);
            if (allFree(base, 6)) {
                return base;
            }
        }
        throw new IllegalStateException("no six consecutive free ports in 20000..30000");
    }

    private static boolean allFree(int base, int count) {
        for (int port = base; port < base + count; port++) {
            try (ServerSocket s = new ServerSocket(port, 50, InetAddress.getLoopbackAddress())) {
                // free
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }
}
