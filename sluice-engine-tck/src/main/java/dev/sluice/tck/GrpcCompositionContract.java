package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ComposeTarget.Order;
import dev.sluice.config.ConfigLoader;
import dev.sluice.config.PartConfig;
import dev.sluice.config.Problem;
import dev.sluice.config.TranscodeConfig;
import dev.sluice.config.UpstreamResilience;
import dev.sluice.routing.PathTemplate;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A composition part that calls a real grpc-java service's method ({@code compose.parts.NAME.grpc-transcode},
 * {@link dev.sluice.transcode.TranscodedPart}): its expanded path picks the method and fills its request
 * message, a unary answer is spliced as a JSON object and a server stream as a JSON array whose elements
 * reach the client as they arrive; a gRPC error fails the part ({@code _meta}: the code's HTTP status and
 * the gRPC status) while the other parts stay whole; {@code sluice check} refuses its mistakes by path.
 */
public abstract class GrpcCompositionContract extends ShopFixture {

    private static PartConfig grpcPart(String name, String path) {
        return grpcPart(name, path, Optional.empty());
    }

    private static PartConfig grpcPart(String name, String path, Optional<Duration> timeout) {
        TranscodeConfig transcode = shopTranscode(Optional.empty(), TranscodeConfig.DEFAULT_MAX_MESSAGE);
        return new PartConfig(
                name,
                SHOP,
                PathTemplate.parsePart(path),
                false,
                timeout,
                Optional.empty(),
                Optional.empty(),
                PartConfig.DEFAULT_MAX_VALUE,
                Optional.empty(),
                Optional.empty(),
                Optional.of(transcode));
    }

    private TestGateway.Builder shopGateway(Routes.ComposeSpec composition) {
        return shopGateway(service.url(), composition);
    }

    private TestGateway.Builder shopGateway(java.net.URI url, Routes.ComposeSpec composition) {
        return gateway()
                .upstream(shopUpstream(url))
                .route("page", on("/page/{id}"), composition.timeout(Duration.ofSeconds(20)));
    }

    private static Map<String, Object> body(HttpResponse<String> response) {
        return Json.object(response.body().getBytes(StandardCharsets.UTF_8));
    }

    /** The part's status in {@code _meta}. */
    private static int status(Map<String, Object> json, String part) {
        return ((Number) Json.at(json, "_meta", "parts", part, "status")).intValue();
    }

    private static HttpResponse<String> call(TestGateway gw, String target) throws Exception {
        return call(gw, HttpRequest.newBuilder(gw.uri(target)));
    }

    /** A JSON part and a unary gRPC part, the route's path variable and a query value in its request message. */
    @Test
    void aUnaryGrpcPartIsSplicedAsAnObjectBesideAJsonPart() throws Exception {
        try (TestGateway gw = shopGateway(compose()
                        .part("info", APP, "/json/20")
                        .part(grpcPart("book", "/v1/shelves/fiction/books/{id}?lang=en")))
                .start()) {
            HttpResponse<String> response = call(gw, "/page/7");
            assertThat(response.statusCode()).isEqualTo(200);
            Map<String, Object> json = body(response);
            assertThat(Json.at(json, "book", "id")).isEqualTo("7");
            assertThat(Json.at(json, "book", "title")).isEqualTo("fiction/en");
            assertThat(json.get("info")).isInstanceOf(String.class);
            assertThat(status(json, "book")).isEqualTo(200);
            assertThat(response.body()).contains("\"book\":{\"id\":\"7\",\"title\":\"fiction/en\"}");
        }
    }

    /** A chained gRPC part: a value streamed past in an earlier JSON part goes into its request message. */
    @Test
    void aChainedGrpcPartTakesAValueFromAnEarlierPart() throws Exception {
        try (TestGateway gw = shopGateway(compose()
                        .part("seen", APP, "/inspect/shelf")
                        .part(grpcPart("book", "/v1/shelves/{seen:/method}/books/{id}?lang=fr")))
                .start()) {
            HttpResponse<String> response = call(gw, "/page/12");
            assertThat(response.statusCode()).isEqualTo(200);
            Map<String, Object> json = body(response);
            assertThat(Json.at(json, "book", "title")).isEqualTo("GET/fr"); // /inspect's method: GET
            assertThat(Json.at(json, "book", "id")).isEqualTo("12");
            assertThat(status(json, "book")).isEqualTo(200);
        }
    }

    /** The stream's first element reaches the client while the service holds the rest back, waiting for it. */
    @Test
    void aServerStreamingPartIsAnArrayWhoseFirstElementArrivesBeforeTheStreamEnds() throws Exception {
        service.rearm();
        try (TestGateway gw = shopGateway(compose()
                        .order(Order.DECLARED)
                        .part(grpcPart("books", "/v1/shelves/s/books?limit=3"))
                        .part("info", APP, "/json/20"))
                .start()) {
            HttpResponse<InputStream> response = stream(gw, HttpRequest.newBuilder(gw.uri("/page/1")));
            assertThat(response.statusCode()).isEqualTo(200);
            String first = "{\"books\":[{\"id\":\"1\",\"title\":\"s\"}";
            ByteArrayOutputStream seen = new ByteArrayOutputStream();
            try (InputStream body = response.body()) {
                while (seen.size() < first.length()) { // only the first element can come before firstSeen()
                    int b = body.read();
                    assertThat(b).as("the body went on: %s", seen).isNotNegative();
                    seen.write(b);
                }
                assertThat(seen.toString(StandardCharsets.UTF_8)).isEqualTo(first);
                service.firstSeen(); // only now does the service send the rest
                seen.writeBytes(body.readAllBytes());
            }
            Map<String, Object> json = Json.object(seen.toByteArray());
            assertThat((List<?>) json.get("books")).hasSize(3);
            assertThat(seen.toString(StandardCharsets.UTF_8))
                    .startsWith(first + ",{\"id\":\"2\",\"title\":\"s\"},{\"id\":\"3\",\"title\":\"s\"}]");
            assertThat(status(json, "books")).isEqualTo(200);
        }
    }

    /** A gRPC error after the stream's first element was relayed cuts the composition short, as any part failing mid-body. */
    @Test
    void aGrpcErrorAfterTheFirstElementCutsTheCompositionShort() throws Exception {
        service.rearm();
        try (TestGateway gw = shopGateway(compose()
                        .order(Order.DECLARED)
                        .part(grpcPart("books", "/v1/shelves/late-break/books?limit=3"))
                        .part("info", APP, "/json/20"))
                .start()) {
            HttpResponse<InputStream> response = stream(gw, HttpRequest.newBuilder(gw.uri("/page/1")));
            assertThat(response.statusCode()).isEqualTo(200);
            String first = "{\"books\":[{\"id\":\"1\",\"title\":\"late-break\"}";
            try (InputStream body = response.body()) {
                assertThat(new String(body.readNBytes(first.length()), StandardCharsets.UTF_8))
                        .isEqualTo(first);
                service.firstSeen(); // only now does the service fail the stream
                assertThatThrownBy(body::readAllBytes)
                        .as("the chunked body ends without its last chunk")
                        .isInstanceOf(IOException.class);
            }
        }
    }

    /** A gRPC error fails the part, {@code _meta} saying the code's HTTP status and the gRPC status; the JSON part is whole. */
    @Test
    void aGrpcErrorFailsThePartWithItsStatusAndTheOtherPartStaysWhole() throws Exception {
        try (TestGateway gw = shopGateway(
                        compose().part("info", APP, "/json/20").part(grpcPart("book", "/v1/shelves/s/books/{id}")))
                .start()) {
            HttpResponse<String> response = call(gw, "/page/404");
            assertThat(response.statusCode()).isEqualTo(200);
            Map<String, Object> json = body(response);
            assertThat(json.get("book")).isEqualTo(Json.NULL);
            assertThat(json.get("info")).isInstanceOf(String.class);
            assertThat(((String) json.get("info")).length()).isEqualTo(18); // /json/20: 20 bytes with its quotes
            assertThat(status(json, "book")).isEqualTo(404);
            assertThat(Json.at(json, "_meta", "parts", "book", "error")).isEqualTo("gRPC status 5: no book 404");
            assertThat(status(json, "info")).isEqualTo(200);

            HttpResponse<String> badValue = call(gw, "/page/seven"); // not an int64: refused before any call
            Map<String, Object> refused = body(badValue);
            assertThat(status(refused, "book")).isEqualTo(400);
            assertThat((String) Json.at(refused, "_meta", "parts", "book", "error"))
                    .startsWith("gRPC status 3");
        }
    }

    /**
     * A gRPC part whose upstream resets the stream (RST_STREAM, no trailers): cut before any message or
     * inside one, the part fails (502 in {@code _meta}) while the JSON part stays whole; cut after a
     * stream's first element, the composition is cut short (no last chunk, no {@code _meta}) when that
     * element was taken already, else the part fails. Never a whole part.
     */
    @Test
    void aResetGrpcPartIsAFailedPartNeverAWholeOne() throws Exception {
        byte[] two = GrpcCutUpstream.books(2, "cut");
        for (int sent : new int[] {0, 7}) { // before any message; inside the first
            try (GrpcCutUpstream upstream = GrpcCutUpstream.start(java.util.Arrays.copyOf(two, sent), 8);
                    TestGateway gw = shopGateway(
                                    upstream.url(),
                                    compose()
                                            .part("info", APP, "/json/20")
                                            .part(grpcPart("book", "/v1/shelves/s/books/{id}")))
                            .start()) {
                HttpResponse<String> response = call(gw, "/page/1");
                assertThat(response.statusCode()).isEqualTo(200);
                Map<String, Object> json = body(response);
                assertThat(json.get("book")).as("reset at %d bytes", sent).isEqualTo(Json.NULL);
                assertThat(status(json, "book")).as(response.body()).isEqualTo(502);
                assertThat(status(json, "info")).isEqualTo(200);
                assertThat(((String) json.get("info")).length()).isEqualTo(18);
            }
        }
        try (GrpcCutUpstream upstream = GrpcCutUpstream.start(java.util.Arrays.copyOf(two, two.length / 2), 0);
                TestGateway gw = shopGateway(
                                upstream.url(),
                                compose()
                                        .order(Order.DECLARED)
                                        .part(grpcPart("books", "/v1/shelves/s/books?limit=2"))
                                        .part("info", APP, "/json/20"))
                        .start()) {
            HttpResponse<InputStream> response = stream(gw, HttpRequest.newBuilder(gw.uri("/page/1")));
            if (response.statusCode() == 502) { // the reset came after the first element was relayed,
                // before the response left the gateway's buffer: the composition failed as a whole
                try (InputStream body = response.body()) {
                    assertThat(new String(body.readAllBytes(), StandardCharsets.UTF_8))
                            .contains("\"part_failed\"");
                }
                return;
            }
            assertThat(response.statusCode()).isEqualTo(200);
            ByteArrayOutputStream seen = new ByteArrayOutputStream();
            boolean cut = false;
            try (InputStream body = response.body()) {
                body.transferTo(seen);
            } catch (IOException e) {
                cut = true;
            }
            String text = seen.toString(StandardCharsets.UTF_8);
            if (cut) { // the first element was given to the composition before the reset came: cut short
                assertThat(text).as("never ended").doesNotContain("_meta");
            } else { // the reset came first: the part failed, nothing of it relayed
                Map<String, Object> json = Json.object(seen.toByteArray());
                assertThat(json.get("books")).as(text).isEqualTo(Json.NULL);
                assertThat(status(json, "books")).as(text).isEqualTo(502);
            }
        }
    }

    /**
     * A gRPC part's answers inform its upstream's circuit breaker as a proxied call's do: four answered
     * HTTP 500 (each part failed, 502) open it, and the next part fails fast ({@code circuit_open})
     * without a call. The breaker's open time is on the gateway's clock, which stands still here.
     */
    @Test
    void aGrpcPartsAnswersInformTheUpstreamsBreaker() throws Exception {
        UpstreamResilience.CircuitBreaker breaker =
                new UpstreamResilience.CircuitBreaker(50, 100, Duration.ofSeconds(10), 4, 4, Duration.ofSeconds(1), 1);
        try (GrpcCutUpstream upstream = GrpcCutUpstream.answering500();
                TestGateway gw = gateway()
                        .ticker(new ManualTicker())
                        .upstream(shopUpstream(upstream.url())
                                .resilience(new UpstreamResilience(
                                        List.of(upstream.url()),
                                        UpstreamResilience.Balance.ROUND_ROBIN,
                                        Optional.empty(),
                                        Optional.empty(),
                                        Optional.empty(),
                                        Optional.of(breaker))))
                        .route(
                                "page",
                                on("/page/{id}"),
                                compose()
                                        .part("info", APP, "/json/20")
                                        .part(grpcPart("book", "/v1/shelves/s/books/{id}"))
                                        .timeout(Duration.ofSeconds(20)))
                        .start()) {
            for (int i = 0; i < 4; i++) {
                Map<String, Object> json = body(call(gw, "/page/1"));
                assertThat(status(json, "book")).isEqualTo(502);
            }
            assertThat(upstream.calls()).isEqualTo(4);
            Map<String, Object> json = body(call(gw, "/page/1"));
            assertThat(json.get("book")).isEqualTo(Json.NULL);
            assertThat(Json.at(json, "_meta", "parts", "book", "error"))
                    .as("the open breaker fails the part fast")
                    .isEqualTo(dev.sluice.http.UpstreamFailure.CIRCUIT_OPEN.partError());
            assertThat(upstream.calls()).as("an open breaker sends nothing").isEqualTo(4);
            assertThat(status(json, "info")).isEqualTo(200);
        }
    }

    /**
     * A part's timeout ends a gRPC server stream the service holds open (after its first book, never
     * ending): the part fails with its timeout in {@code _meta} (none of it was relayed: the part before
     * it still streams), the composition ends, and the call is cancelled upstream (the service sees it).
     */
    @Test
    void aPartTimeoutEndsAHeldGrpcStreamAndCancelsTheCall() throws Exception {
        service.rearm(); // ListBooks holds the stream open after book 1 until firstSeen(), which never comes
        try (TestGateway gw = shopGateway(compose()
                        .order(Order.DECLARED)
                        .part("slow", APP, "/json/1000?chunked=1&stallAt=500&stall=2500")
                        .part(grpcPart("books", "/v1/shelves/held/books?limit=2", Optional.of(Duration.ofSeconds(1)))))
                .start()) {
            long start = System.nanoTime();
            HttpResponse<String> response = call(gw, "/page/1");
            assertThat(response.statusCode()).isEqualTo(200);
            Map<String, Object> json = body(response);
            assertThat(json.get("books")).as(response.body()).isEqualTo(Json.NULL);
            assertThat(Json.at(json, "_meta", "parts", "books", "error")).isEqualTo("timeout");
            assertThat(status(json, "slow")).isEqualTo(200);
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("the part's timeout ended it, not the service's 20 s hold")
                    .isLessThan(Duration.ofSeconds(10));
            assertThat(service.awaitCancelled())
                    .as("the call ended upstream: reset, or the deadline the gateway sent")
                    .isTrue();
        } finally {
            service.firstSeen();
        }
    }

    /**
     * A gRPC part's call carries what the part has left of its deadline as {@code grpc-timeout}: its own
     * timeout when it has one (sooner than the route's 20 s), else the route's; the service sees it.
     */
    @Test
    void aGrpcPartsDeadlineGoesUpstreamAsGrpcTimeout() throws Exception {
        try (TestGateway gw = shopGateway(compose()
                        .part(grpcPart("book", "/v1/shelves/s/books/{id}", Optional.of(Duration.ofMillis(1500)))))
                .start()) {
            HttpResponse<String> response = call(gw, "/page/3");
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(status(body(response), "book")).isEqualTo(200);
            assertThat(service.lastDeadline())
                    .as("the part's own 1.5 s")
                    .hasValueSatisfying(
                            left -> assertThat(left).isPositive().isLessThanOrEqualTo(Duration.ofMillis(1500)));
        }
        try (TestGateway gw = shopGateway(compose().part(grpcPart("book", "/v1/shelves/s/books/{id}")))
                .start()) {
            assertThat(status(body(call(gw, "/page/3")), "book")).isEqualTo(200);
            assertThat(service.lastDeadline())
                    .as("the route's 20 s")
                    .hasValueSatisfying(left -> assertThat(left)
                            .isGreaterThan(Duration.ofMillis(1500))
                            .isLessThanOrEqualTo(Duration.ofSeconds(20)));
        }
    }

    private List<Problem> check(String protocol, String part) throws IOException {
        ShopService.write(dir.resolve("shop.pb"));
        Path file = dir.resolve("sluice.yaml");
        Files.writeString(file, """
                server: { host: 127.0.0.1, port: 0, engine: %s }
                upstreams:
                  shop: { url: "%s", protocol: %s }
                  app: { url: "http://127.0.0.1:9" }
                routes:
                  - id: page
                    match: { path: "/page/{id}" }
                    compose:
                      parts:
                        info: { upstream: app, path: "/info/{id}" }
                        book:
                          upstream: shop
                          path: "/v1/shelves/s/books/{id}"
                %s
                """.formatted(mode().key(), service.url(), protocol, part.indent(10)));
        return ConfigLoader.check(file);
    }

    @Test
    void checkAcceptsAGrpcPartAndRefusesItsMistakesByPath() throws IOException {
        String at = "routes[0].compose.parts.book";
        assertThat(check("h2c", "grpc-transcode: { descriptors: shop.pb, services: [shop.Shop] }"))
                .isEmpty();
        assertThat(check("http/1.1", "grpc-transcode: { descriptors: shop.pb, services: [shop.Shop] }"))
                .extracting(Problem::path)
                .containsExactly(at + ".upstream");
        assertThat(check(
                        "h2c",
                        "grpc-transcode: { descriptors: shop.pb, services: [shop.Shop], method: shop.Shop/Burn }"))
                .extracting(Problem::path)
                .containsExactly(at + ".grpc-transcode.method");
        assertThat(check("h2c", "grpc-transcode: { descriptors: missing.pb, services: [shop.Shop] }"))
                .extracting(Problem::path)
                .containsExactly(at + ".grpc-transcode.descriptors");
        assertThat(check("h2c", "grpc-transcode: { descriptors: shop.pb, services: [shop.Shop] }\nselect: [id]"))
                .extracting(Problem::path)
                .containsExactly(at + ".select");
    }
}
