package dev.sluice.tck;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigLoader;
import dev.sluice.config.Problem;
import dev.sluice.config.TranscodeConfig;
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
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * JSON clients calling a real grpc-java service's methods through a {@code grpc-transcode:} route
 * ({@link dev.sluice.transcode.TranscodeCall}): path and query variables and the JSON body become the
 * request message, the answer message comes back as JSON, a server stream as a JSON array streamed
 * element by element (or NDJSON when asked), a gRPC error as a JSON error with its HTTP status; {@code
 * sluice check} refuses a bad descriptor file or an unknown method by path.
 */
public abstract class GrpcTranscodeContract extends ShopFixture {

    /** The gateway under test. */
    private TestGateway.Builder shopGateway() {
        return shopGateway(TranscodeConfig.DEFAULT_MAX_MESSAGE, Optional.empty(), Optional.empty());
    }

    private TestGateway.Builder shopGateway(int maxMessage, Optional<String> method, Optional<Duration> timeout) {
        return shopGateway(service.url(), maxMessage, method, timeout);
    }

    private TestGateway.Builder shopGateway(
            java.net.URI url, int maxMessage, Optional<String> method, Optional<Duration> timeout) {
        TranscodeConfig transcode = shopTranscode(method, maxMessage);
        Routes.ProxySpec route = proxy("shop").transcode(transcode);
        timeout.ifPresent(route::timeout);
        return gateway().upstream(shopUpstream(url)).route("shop", on("/v1/**"), route);
    }

    @Test
    void aUnaryGetTakesItsPathAndQueryVariables() throws Exception {
        try (TestGateway gw = shopGateway().start()) {
            HttpResponse<String> response =
                    call(gw, HttpRequest.newBuilder(gw.uri("/v1/shelves/fiction/books/7?lang=en")));
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
            assertThat(response.body()).isEqualTo("{\"id\":\"7\",\"title\":\"fiction/en\"}");
        }
    }

    @Test
    void theClientsHeadersAreTheCallsMetadata() throws Exception {
        try (TestGateway gw = shopGateway().start()) {
            HttpResponse<String> response = call(
                    gw, HttpRequest.newBuilder(gw.uri("/v1/shelves/s/books/1")).header("x-tenant", "acme"));
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(service.lastTenant()).isEqualTo("acme");
        }
    }

    /** {@code max-message} bounds the client's body (413, never buffered past it) and each answer message (502). */
    @Test
    void maxMessageBoundsTheRequestBodyAndEachResponseMessage() throws Exception {
        try (TestGateway gw =
                shopGateway(64, Optional.empty(), Optional.empty()).start()) {
            HttpResponse<String> large = call(
                    gw,
                    HttpRequest.newBuilder(gw.uri("/v1/shelves/s/books"))
                            .header("content-type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"title\":\"" + "x".repeat(100) + "\"}")));
            assertThat(large.statusCode()).isEqualTo(413);

            HttpResponse<String> fits = call(gw, HttpRequest.newBuilder(gw.uri("/v1/shelves/s/books/1?lang=en")));
            assertThat(fits.statusCode()).isEqualTo(200);
            HttpResponse<String> tooLong =
                    call(gw, HttpRequest.newBuilder(gw.uri("/v1/shelves/s/books/1?lang=" + "x".repeat(100))));
            assertThat(tooLong.statusCode()).isEqualTo(502);
            assertThat(tooLong.body()).startsWith("{\"code\":8,");
        }
    }

    @Test
    void aPostSendsItsJsonBodyAsTheBoundField() throws Exception {
        try (TestGateway gw = shopGateway().start()) {
            HttpResponse<String> response = call(
                    gw,
                    HttpRequest.newBuilder(gw.uri("/v1/shelves/poetry/books"))
                            .header("content-type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"id\":\"12\",\"title\":\"Odes\"}")));
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("{\"id\":\"12\",\"title\":\"Odes\",\"tags\":[\"poetry\"]}");
        }
    }

    /** The first element reaches the client while the service still holds the stream open, waiting for it. */
    @Test
    void aServerStreamIsAJsonArrayWhoseFirstElementArrivesBeforeTheStreamEnds() throws Exception {
        service.rearm();
        try (TestGateway gw = shopGateway().start()) {
            HttpResponse<InputStream> response =
                    stream(gw, HttpRequest.newBuilder(gw.uri("/v1/shelves/s/books?limit=3")));
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
            try (InputStream body = response.body()) {
                String first = "[{\"id\":\"1\",\"title\":\"s\"}";
                assertThat(new String(body.readNBytes(first.length()), StandardCharsets.UTF_8))
                        .isEqualTo(first);
                service.firstSeen(); // only now does the service send the rest
                assertThat(new String(body.readAllBytes(), StandardCharsets.UTF_8))
                        .isEqualTo(",{\"id\":\"2\",\"title\":\"s\"},{\"id\":\"3\",\"title\":\"s\"}]");
            }
        }
    }

    @Test
    void aServerStreamIsNdjsonOrServerSentEventsWhenTheClientAsksForThem() throws Exception {
        service.rearm();
        service.firstSeen();
        try (TestGateway gw = shopGateway().start()) {
            HttpResponse<String> response = call(
                    gw,
                    HttpRequest.newBuilder(gw.uri("/v1/shelves/s/books?limit=2"))
                            .header("accept", "application/x-ndjson"));
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("content-type")).hasValue("application/x-ndjson");
            assertThat(response.body()).isEqualTo("{\"id\":\"1\",\"title\":\"s\"}\n{\"id\":\"2\",\"title\":\"s\"}\n");
            HttpResponse<String> sse = call(
                    gw,
                    HttpRequest.newBuilder(gw.uri("/v1/shelves/s/books?limit=2"))
                            .header("accept", "text/event-stream"));
            assertThat(sse.statusCode()).isEqualTo(200);
            assertThat(sse.headers().firstValue("content-type")).hasValue("text/event-stream");
            assertThat(sse.body())
                    .isEqualTo("data: {\"id\":\"1\",\"title\":\"s\"}\n\ndata: {\"id\":\"2\",\"title\":\"s\"}\n\n");
        }
    }

    @Test
    void aGrpcErrorIsAJsonErrorWithItsHttpStatus() throws Exception {
        try (TestGateway gw = shopGateway().start()) {
            HttpResponse<String> response = call(gw, HttpRequest.newBuilder(gw.uri("/v1/shelves/s/books/404")));
            assertThat(response.statusCode()).isEqualTo(404);
            assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
            assertThat(response.body()).isEqualTo("{\"code\":5,\"message\":\"no book 404\"}");
        }
    }

    /** An error after the answer began cannot become a status: the answer is cut short, never ended well. */
    @Test
    void aGrpcErrorAfterTheFirstElementCutsTheAnswerShort() throws Exception {
        try (TestGateway gw = shopGateway().start()) {
            HttpResponse<InputStream> response =
                    stream(gw, HttpRequest.newBuilder(gw.uri("/v1/shelves/broken/books?limit=3")));
            assertThat(response.statusCode()).isEqualTo(200);
            try (InputStream body = response.body()) {
                String first = "[{\"id\":\"1\",\"title\":\"broken\"}";
                assertThat(new String(body.readNBytes(first.length()), StandardCharsets.UTF_8))
                        .isEqualTo(first);
                assertThatThrownBy(body::readAllBytes)
                        .as("the chunked body ends without its last chunk")
                        .isInstanceOf(IOException.class);
            }
        }
    }

    /**
     * Over HTTP/2 (h2c by prior knowledge): a stream's answer ends with END_STREAM when whole, and one
     * failing after its first element is reset (RST_STREAM), never ended as if whole.
     */
    @Test
    void overHttp2AWholeStreamEndsAndABrokenOneIsReset() throws Exception {
        service.rearm();
        service.firstSeen();
        try (TestGateway gw = shopGateway().start();
                H2Wire h2 = H2Wire.connect(gw.port())) {
            for (int stream : new int[] {1, 3}) {
                String shelf = stream == 1 ? "s" : "broken";
                h2.headers(
                        stream,
                        true,
                        ":method",
                        "GET",
                        ":scheme",
                        "http",
                        ":authority",
                        gw.authority(),
                        ":path",
                        "/v1/shelves/" + shelf + "/books?limit=2");
                h2.flush();
                H2Wire.Frame head = h2.readUntil(H2Wire.HEADERS).orElseThrow();
                assertThat(head.stream()).isEqualTo(stream);
                assertThat(head.status()).isEqualTo(200);
                assertThat(head.header("content-type")).isEqualTo("application/json");
                ByteArrayOutputStream body = new ByteArrayOutputStream();
                H2Wire.Frame last = head;
                while (!last.endsStream() && last.type() != H2Wire.RST_STREAM) {
                    last = h2.read().orElseThrow();
                    if (last.stream() == stream && last.type() == H2Wire.DATA) {
                        body.writeBytes(last.payload());
                    }
                    if (last.stream() != stream) {
                        last = head; // another stream's or the connection's frame
                    }
                }
                String text = body.toString(StandardCharsets.UTF_8);
                if (stream == 1) {
                    assertThat(last.type()).isEqualTo(H2Wire.DATA);
                    assertThat(text).isEqualTo("[{\"id\":\"1\",\"title\":\"s\"},{\"id\":\"2\",\"title\":\"s\"}]");
                } else {
                    assertThat(last.type()).as("reset, not ended").isEqualTo(H2Wire.RST_STREAM);
                    assertThat(text).isEqualTo("[{\"id\":\"1\",\"title\":\"broken\"}");
                }
            }
        }
    }

    /**
     * An upstream that resets its stream (RST_STREAM, any code) without trailers, after a whole message or
     * inside one: the answer begun is cut short (no last chunk), never ended as a whole array or NDJSON
     * stream; reset before any message, the answer is a 502 JSON error.
     */
    @Test
    void anAnswerResetUpstreamIsCutShortOrA502() throws Exception {
        byte[] two = GrpcCutUpstream.books(2, "cut");
        int one = two.length / 2; // the two messages are of one length
        for (int[] cut : new int[][] {{one, 0}, {one + 7, 8}}) { // after book 1 (NO_ERROR); inside book 2 (CANCEL)
            try (GrpcCutUpstream upstream = GrpcCutUpstream.start(java.util.Arrays.copyOf(two, cut[0]), cut[1]);
                    TestGateway gw = shopGateway(
                                    upstream.url(),
                                    TranscodeConfig.DEFAULT_MAX_MESSAGE,
                                    Optional.empty(),
                                    Optional.empty())
                            .start()) {
                for (String accept : List.of("application/json", "application/x-ndjson")) {
                    HttpResponse<InputStream> response = stream(
                            gw,
                            HttpRequest.newBuilder(gw.uri("/v1/shelves/s/books?limit=2"))
                                    .header("accept", accept));
                    assertThat(response.statusCode()).isEqualTo(200);
                    String first = accept.equals("application/json")
                            ? "[{\"id\":\"1\",\"title\":\"cut\"}"
                            : "{\"id\":\"1\",\"title\":\"cut\"}\n";
                    try (InputStream body = response.body()) {
                        assertThat(new String(body.readNBytes(first.length()), StandardCharsets.UTF_8))
                                .isEqualTo(first);
                        assertThatThrownBy(body::readAllBytes)
                                .as("reset at %d bytes with code %d (%s): cut short", cut[0], cut[1], accept)
                                .isInstanceOf(IOException.class);
                    }
                }
            }
        }
        for (int sent : new int[] {0, 7}) { // before any message; inside the first
            try (GrpcCutUpstream upstream = GrpcCutUpstream.start(java.util.Arrays.copyOf(two, sent), 8);
                    TestGateway gw = shopGateway(
                                    upstream.url(),
                                    TranscodeConfig.DEFAULT_MAX_MESSAGE,
                                    Optional.empty(),
                                    Optional.empty())
                            .start()) {
                HttpResponse<String> stream = call(gw, HttpRequest.newBuilder(gw.uri("/v1/shelves/s/books?limit=2")));
                assertThat(stream.statusCode())
                        .as("a stream reset at %d bytes", sent)
                        .isEqualTo(502);
                assertThat(stream.headers().firstValue("content-type")).hasValue("application/json");
                HttpResponse<String> unary = call(gw, HttpRequest.newBuilder(gw.uri("/v1/shelves/s/books/1")));
                assertThat(unary.statusCode())
                        .as("a unary answer reset at %d bytes", sent)
                        .isEqualTo(502);
                assertThat(unary.headers().firstValue("content-type")).hasValue("application/json");
            }
        }
    }

    /**
     * Over HTTP/2 (h2c by prior knowledge), an upstream that resets its stream after a whole message
     * (RST_STREAM, no trailers): the client's stream is reset after the first element, never ended with
     * END_STREAM.
     */
    @Test
    void overHttp2AnAnswerResetUpstreamResetsTheClientsStream() throws Exception {
        byte[] two = GrpcCutUpstream.books(2, "cut");
        try (GrpcCutUpstream upstream = GrpcCutUpstream.start(java.util.Arrays.copyOf(two, two.length / 2), 0);
                TestGateway gw = shopGateway(
                                upstream.url(), TranscodeConfig.DEFAULT_MAX_MESSAGE, Optional.empty(), Optional.empty())
                        .start();
                H2Wire h2 = H2Wire.connect(gw.port())) {
            h2.headers(
                    1,
                    true,
                    ":method",
                    "GET",
                    ":scheme",
                    "http",
                    ":authority",
                    gw.authority(),
                    ":path",
                    "/v1/shelves/s/books?limit=2");
            h2.flush();
            H2Wire.Frame head = h2.readUntil(H2Wire.HEADERS).orElseThrow();
            assertThat(head.status()).isEqualTo(200);
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            H2Wire.Frame last = head;
            while (!last.endsStream() && last.type() != H2Wire.RST_STREAM) {
                last = h2.read().orElseThrow();
                if (last.stream() != 1) {
                    last = head; // the connection's frame
                } else if (last.type() == H2Wire.DATA) {
                    body.writeBytes(last.payload());
                }
            }
            assertThat(last.type()).as("reset, not ended").isEqualTo(H2Wire.RST_STREAM);
            assertThat(body.toString(StandardCharsets.UTF_8)).isEqualTo("[{\"id\":\"1\",\"title\":\"cut\"}");
        }
    }

    /** A route naming one method calls it for every request: the JSON body is the whole request message. */
    @Test
    void aRouteNamingAMethodCallsItWithTheWholeBody() throws Exception {
        try (TestGateway gw = shopGateway(
                        TranscodeConfig.DEFAULT_MAX_MESSAGE, Optional.of("shop.Shop/GetBook"), Optional.empty())
                .start()) {
            HttpResponse<String> response = call(
                    gw,
                    HttpRequest.newBuilder(gw.uri("/v1/lookup?lang=fr"))
                            .header("content-type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"shelf\":\"atlas\",\"id\":\"5\"}")));
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("{\"id\":\"5\",\"title\":\"atlas/fr\"}");
        }
    }

    /**
     * The route's timeout ends a stream the service holds open: the answer, begun with its first element,
     * is cut short, and the call is cancelled upstream (the service sees it).
     */
    @Test
    void theRoutesTimeoutCutsAHeldStreamAndCancelsTheCall() throws Exception {
        service.rearm(); // ListBooks holds the stream open after book 1 until firstSeen(), which never comes
        try (TestGateway gw = shopGateway(
                        TranscodeConfig.DEFAULT_MAX_MESSAGE, Optional.empty(), Optional.of(Duration.ofSeconds(1)))
                .start()) {
            HttpResponse<InputStream> response =
                    stream(gw, HttpRequest.newBuilder(gw.uri("/v1/shelves/held/books?limit=2")));
            assertThat(response.statusCode()).isEqualTo(200);
            try (InputStream body = response.body()) {
                String first = "[{\"id\":\"1\",\"title\":\"held\"}";
                assertThat(new String(body.readNBytes(first.length()), StandardCharsets.UTF_8))
                        .isEqualTo(first);
                assertThatThrownBy(body::readAllBytes)
                        .as("cut short at the route's timeout")
                        .isInstanceOf(IOException.class);
            }
            assertThat(service.awaitCancelled())
                    .as("the call ended upstream: reset, or the deadline the gateway sent")
                    .isTrue();
        } finally {
            service.firstSeen();
        }
    }

    /** The route's timeout goes to the service as the call's deadline ({@code grpc-timeout}); none without one. */
    @Test
    void theRoutesTimeoutIsTheCallsDeadlineUpstream() throws Exception {
        try (TestGateway gw = shopGateway(
                        TranscodeConfig.DEFAULT_MAX_MESSAGE, Optional.empty(), Optional.of(Duration.ofMillis(1500)))
                .start()) {
            HttpResponse<String> response = call(
                    gw, HttpRequest.newBuilder(gw.uri("/v1/shelves/s/books/1")).header("grpc-timeout", "1H"));
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(service.lastDeadline())
                    .as("the route's 1.5 s, not the client's own grpc-timeout")
                    .hasValueSatisfying(
                            left -> assertThat(left).isPositive().isLessThanOrEqualTo(Duration.ofMillis(1500)));
        }
        try (TestGateway gw = shopGateway().start()) {
            assertThat(call(gw, HttpRequest.newBuilder(gw.uri("/v1/shelves/s/books/1")))
                            .statusCode())
                    .isEqualTo(200);
            assertThat(service.lastDeadline()).as("no timeout, no deadline").isEmpty();
        }
    }

    @Test
    void badJsonIsRefusedWith400AndAJsonReasonWithoutCallingTheService() throws Exception {
        try (TestGateway gw = shopGateway().start()) {
            HttpResponse<String> response = call(
                    gw,
                    HttpRequest.newBuilder(gw.uri("/v1/shelves/s/books"))
                            .header("content-type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"id\": ")));
            assertThat(response.statusCode()).isEqualTo(400);
            assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
            assertThat(response.body()).startsWith("{\"code\":3,\"message\":\"");

            HttpResponse<String> wrongType = call(gw, HttpRequest.newBuilder(gw.uri("/v1/shelves/s/books/seven")));
            assertThat(wrongType.statusCode()).isEqualTo(400);
            assertThat(wrongType.body()).startsWith("{\"code\":3,");

            HttpResponse<String> unbound = call(
                    gw, HttpRequest.newBuilder(gw.uri("/v1/shelves/s/books/7")).DELETE());
            assertThat(unbound.statusCode()).isEqualTo(404);
            assertThat(unbound.body()).startsWith("{\"code\":5,");
        }
    }

    private List<Problem> check(String transcode) throws IOException {
        Path file = dir.resolve("sluice.yaml");
        Files.writeString(file, """
                server: { host: 127.0.0.1, port: 0, engine: %s }
                upstreams:
                  shop: { url: "%s", protocol: h2c }
                routes:
                  - id: shop
                    match: { path: "/v1/**" }
                    proxy:
                      upstream: shop
                      grpc-transcode: %s
                """.formatted(mode().key(), service.url(), transcode));
        return ConfigLoader.check(file);
    }

    @Test
    void checkAcceptsTheRouteAndRefusesABadDescriptorFileOrAnUnknownMethodByPath() throws IOException {
        ShopService.write(dir.resolve("shop.pb"));
        Files.write(dir.resolve("broken.pb"), new byte[] {0x0a, 0x7f, 0x01});

        assertThat(check("{ descriptors: shop.pb, services: [shop.Shop] }")).isEmpty();
        assertThat(check("{ descriptors: broken.pb, services: [shop.Shop] }"))
                .extracting(Problem::path)
                .containsExactly("routes[0].proxy.grpc-transcode.descriptors");
        assertThat(check("{ descriptors: missing.pb, services: [shop.Shop] }"))
                .extracting(Problem::path)
                .containsExactly("routes[0].proxy.grpc-transcode.descriptors");
        assertThat(check("{ descriptors: shop.pb, services: [shop.Shop], method: shop.Shop/Burn }"))
                .extracting(Problem::path)
                .containsExactly("routes[0].proxy.grpc-transcode.method");
        assertThat(check("{ descriptors: shop.pb, services: [shop.Depot] }"))
                .extracting(Problem::path)
                .containsExactly("routes[0].proxy.grpc-transcode.services");
    }
}
