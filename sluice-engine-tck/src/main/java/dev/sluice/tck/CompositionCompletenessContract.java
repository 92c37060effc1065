package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code status-from}, {@code require} and {@code X-Sluice-Completed} (core {@code
 * dev.sluice.compose.Completeness}): the status follows a named part's failure, a required part's
 * failure is an error before the head and an abort after it, and the client learns whether every
 * part made it, in a header when the head knows, else in a trailer to a client that sent {@code TE:
 * trailers}.
 */
public abstract class CompositionCompletenessContract extends ContractFixture {

    private static final String COMPLETED = "X-Sluice-Completed";

    @Test
    void theStatusFollowsTheNamedPartsUpstreamStatusWhenItFails() {
        String missing = upstream.respond(404, "application/json", "{\"e\":\"no such product\"}");
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .statusFrom("product")
                                .part("product", APP, missing)
                                .part("reviews", APP, "/json/10"))
                .start()) {
            WireResponse response = gw.wire().get("/page");
            assertThat(response.status()).as("%s", response).isEqualTo(404);
            assertThat(response.complete()).as("%s", response).isTrue();
            Map<String, Object> body = Json.object(response.body());
            assertThat(body.get("product")).isEqualTo(Json.NULL);
            assertThat(body.get("reviews")).isNotEqualTo(Json.NULL);
            assertThat(Json.at(body, "_meta", "parts", "product", "status")).hasToString("404");
            assertThat(response.header(COMPLETED))
                    .as("known at the head: a part failed")
                    .contains("false");
        }
    }

    @Test
    void theStatusIs502WhenTheNamedPartCannotBeReachedAnd200WhenItSucceeds() {
        try (TestGateway gw = gateway()
                .upstream("down", refusedUrl())
                .route(
                        "down",
                        on("/down"),
                        compose()
                                .statusFrom("product")
                                .part("product", "down", "/p")
                                .part("reviews", APP, "/json/10"))
                .route(
                        "up",
                        on("/up"),
                        compose()
                                .statusFrom("product")
                                .part("product", APP, "/json/10")
                                .part("reviews", APP, "/json/10"))
                .start()) {
            WireResponse down = gw.wire().get("/down");
            assertThat(down.status()).as("%s", down).isEqualTo(502);
            assertThat(Json.object(down.body()).get("product")).isEqualTo(Json.NULL);
            Composed up = Composed.of(gw.wire().get("/up"));
            assertThat(up.part("product")).isNotEqualTo(Json.NULL);
        }
    }

    @Test
    void aRequiredPartFailingBeforeTheHeadIsAnErrorWithItsStatus() {
        String unavailable = upstream.respond(503, "application/json", "{\"e\":1}");
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .require("product")
                                .part("product", APP, unavailable)
                                .part("reviews", APP, "/json/10"))
                .start()) {
            var error = assertError(gw.wire().get("/page"), 503, "part_failed");
            assertThat(error.get("message")).asString().startsWith("part 'product': ");
        }
    }

    @Test
    void aRequiredPartFailingAfterTheHeadAbortsTheResponse() {
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .require("product")
                                // its head comes at once, its body never: its deadline passes after the head
                                .part(
                                        "product",
                                        APP,
                                        "/json/1000?chunked=1&stallAt=0&stall=600000",
                                        Duration.ofMillis(500))
                                .part("reviews", APP, "/json/10"))
                .start()) {
            WireResponse response = gw.wire().get("/page");
            assertThat(response.status()).as("%s", response).isEqualTo(200);
            assertThat(response.complete())
                    .as("no final chunk: a body without its required part never looks whole: %s", response)
                    .isFalse();
        }
    }

    @Test
    void completenessIsATrailerWhenTheHeadLeavesBeforeEveryPartSettled() {
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .part("fast", APP, "/json/10")
                                .part("late", APP, "/json/10?delay=600000", Duration.ofMillis(500)))
                .start()) {
            WireResponse response = gw.wire().send(WireRequest.get("/page").header("TE", "gzip, Trailers"));
            Composed composed = Composed.of(response);
            assertThat(composed.part("late")).isEqualTo(Json.NULL);
            assertThat(response.header(COMPLETED)).as("%s", response).isEmpty();
            assertThat(response.header("trailer")).as("%s", response).contains(COMPLETED);
            assertThat(response.trailer(COMPLETED)).as("%s", response).contains("false");
        }
    }

    @Test
    void aClientThatDoesNotSayItTakesTrailersGetsNoneAndReadsCompletenessInMeta() {
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .part("fast", APP, "/json/10")
                                .part("late", APP, "/json/10?delay=600000", Duration.ofMillis(500)))
                .start()) {
            for (WireRequest request : new WireRequest[] {
                WireRequest.get("/page"), WireRequest.get("/page").header("TE", "gzip")
            }) {
                WireResponse response = gw.wire().send(request);
                Composed composed = Composed.of(response);
                assertThat(response.complete()).as("%s", response).isTrue();
                assertThat(composed.part("late")).isEqualTo(Json.NULL);
                assertThat(response.header(COMPLETED)).as("%s", response).isEmpty();
                assertThat(response.header("trailer"))
                        .as("no trailer announced: %s", response)
                        .isEmpty();
                assertThat(response.trailer(COMPLETED)).as("%s", response).isEmpty();
                assertThat(Json.at(Json.object(response.body()), "_meta", "parts", "late", "error"))
                        .as("the part's fate is in _meta: %s", response)
                        .hasToString("timeout");
            }
        }
    }

    @Test
    void onHttp2TheTrailerIsAHeadersFrameThatEndsTheStream() throws Exception {
        try (TestGateway gw = gateway()
                        .route(
                                "page",
                                on("/page"),
                                compose()
                                        .part("fast", APP, "/json/10")
                                        .part("late", APP, "/json/10?delay=600000", Duration.ofMillis(500)))
                        .start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            wire.headers(
                    1,
                    true,
                    ":method",
                    "GET",
                    ":scheme",
                    "http",
                    ":authority",
                    gw.authority(),
                    ":path",
                    "/page",
                    "te",
                    "trailers");
            wire.flush();
            H2Wire.Frame head = wire.readUntil(H2Wire.HEADERS).orElseThrow();
            assertThat(head.stream()).isEqualTo(1);
            assertThat(head.status()).isEqualTo(200);
            assertThat(head.header("trailer")).isEqualToIgnoringCase(COMPLETED);
            H2Wire.Frame frame = head;
            H2Wire.Frame trailer = null;
            while (!frame.endsStream()) {
                frame = wire.read().orElseThrow(() -> new AssertionError("closed before the stream's end"));
                assertThat(frame.type()).as("no reset of stream 1").isNotEqualTo(H2Wire.RST_STREAM);
                if (frame.type() == H2Wire.HEADERS && frame.stream() == 1) {
                    trailer = frame;
                }
            }
            assertThat(trailer).as("a trailer HEADERS frame").isNotNull();
            assertThat(trailer.endsStream()).isTrue();
            assertThat(trailer.header(COMPLETED)).isEqualTo("false");
        }
    }

    @Test
    void aCompressedCompositionKeepsItsTrailer() throws Exception {
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .part("fast", APP, "/json/4000")
                                .part("late", APP, "/json/10?delay=600000", Duration.ofMillis(500)),
                        new dev.sluice.config.FilterConfig.Compression(java.util.List.of("application/json"), 1024, 6))
                .start()) {
            WireResponse response = gw.wire()
                    .send(WireRequest.get("/page")
                            .header("Accept-Encoding", "gzip")
                            .header("TE", "trailers"));
            assertThat(response.header("content-encoding")).as("%s", response).contains("gzip");
            assertThat(response.complete()).as("%s", response).isTrue();
            assertThat(response.trailer(COMPLETED)).as("%s", response).contains("false");
            byte[] json =
                    new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(response.body())).readAllBytes();
            assertThat(Json.object(json).get("late")).isEqualTo(Json.NULL);
        }
    }

    @Test
    void aWholeCompositionSaysTrueInItsTrailerOrItsHeader() {
        try (TestGateway gw = gateway()
                .route("some", on("/some"), compose().part("a", APP, "/json/10").part("b", APP, "/json/20"))
                .route(
                        "all",
                        on("/all"),
                        compose().require("a", "b").part("a", APP, "/json/10").part("b", APP, "/json/20"))
                .start()) {
            WireResponse some = gw.wire().send(WireRequest.get("/some").header("TE", "trailers"));
            Composed.of(some);
            assertThat(some.header(COMPLETED).or(() -> some.trailer(COMPLETED)))
                    .as("a header when both parts ended before the head left, else a trailer: %s", some)
                    .contains("true");
            WireResponse all = gw.wire().get("/all");
            Composed.of(all);
            assertThat(all.header(COMPLETED))
                    .as("every part required: whole or aborted, known at the head: %s", all)
                    .contains("true");
        }
    }
}
