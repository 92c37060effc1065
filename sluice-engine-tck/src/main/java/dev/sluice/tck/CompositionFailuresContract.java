package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ComposeTarget.OnError;
import dev.sluice.config.ComposeTarget.Order;
import dev.sluice.http.UpstreamFailure;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.AbstractMap.SimpleEntry;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Compositions with failing parts: partial and fail modes, validation, timeouts, aborts. */
public abstract class CompositionFailuresContract extends ContractFixture {

    private static final String NEVER = "?delay=600000";

    private static byte[] json(int length) {
        return GeneratedBody.json(length).bytes();
    }

    private static Map.Entry<String, byte[]> failed(String name) {
        return new SimpleEntry<>(name, null);
    }

    private TestGateway.Builder withBadUpstreams() {
        return gateway()
                .upstream("down", refusedUrl())
                .upstream(Routes.upstream("stalling", upstream.url()).readTimeout(Duration.ofMillis(300)));
    }

    @Test
    void partialModeAnswersEveryFailedPartAsNull() {
        String serverError = upstream.respond(500, "application/json", "{\"e\":1}");
        String notJson = upstream.respond(200, "text/plain", "hello");
        String empty = upstream.respond(200, "application/json", "");
        try (TestGateway gw = withBadUpstreams()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .order(Order.DECLARED)
                                .onError(OnError.PARTIAL)
                                .part("ok", APP, "/json/10")
                                .part("status500", APP, serverError)
                                .part("text", APP, notJson)
                                .part("empty", APP, empty)
                                .part("refused", "down", "/json/10")
                                .part("late", APP, "/json/10" + NEVER, Duration.ofMillis(300))
                                .part("stalled", "stalling", "/json/10" + NEVER))
                .start()) {
            List<String> declared = List.of("ok", "status500", "text", "empty", "refused", "late", "stalled");
            Composed composed = Composed.of(gw.wire().get("/page"))
                    .assertSpliced(
                            List.of(
                                    Map.entry("ok", json(10)),
                                    failed("status500"),
                                    failed("text"),
                                    failed("empty"),
                                    failed("refused"),
                                    failed("late"),
                                    failed("stalled")),
                            declared);
            assertThat(composed.meta("parts", "status500", "status")).hasToString("500");
            assertThat(composed.meta("parts", "text", "status")).hasToString("200");
        }
    }

    @Test
    void aPartWhoseKeptAliveConnectionClosesBeforeTheAnswerIsFetchedOnceMore() {
        try (RawUpstream dropping = RawUpstream.answeringOnceThenClosingOnTheNextRequest(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\":1}");
                TestGateway gw = gateway()
                        .upstream(Routes.upstream("dropping", dropping.url()).pool(1, Duration.ofSeconds(5), 10))
                        .route(
                                "page",
                                on("/page"),
                                compose().onError(OnError.FAIL).part("d", "dropping", "/d"))
                        .start()) {
            for (int i = 1; i <= 2; i++) { // the second finds the pooled connection, which the upstream closes
                WireResponse response = gw.wire().get("/page");
                assertThat(response.status())
                        .as("composition %d: %s", i, response)
                        .isEqualTo(200);
                assertThat(Composed.of(response).part("d")).hasToString("{a=1}");
            }
            assertThat(dropping.heads())
                    .as("first, second (dropped), second again")
                    .isEqualTo(3);
        }
    }

    @Test
    void failModeAnswersBadGatewayWhenAPartFails() {
        String serverError = upstream.respond(500, "application/json", "{\"e\":1}");
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .onError(OnError.FAIL)
                                .part("ok", APP, "/json/10")
                                .part("broken", APP, serverError))
                .start()) {
            var error = assertError(gw.wire().get("/page"), 502, "part_failed");
            assertThat(error.get("message")).asString().startsWith("part 'broken': ");
        }
    }

    @Test
    void failModeAnswersBadGatewayWhenAPartIsRefused() {
        try (TestGateway gw = withBadUpstreams()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .onError(OnError.FAIL)
                                .part("ok", APP, "/json/10")
                                .part("gone", "down", "/json/10"))
                .start()) {
            var error = assertError(gw.wire().get("/page"), 502, "part_failed");
            assertThat(error.get("message")).asString().startsWith("part 'gone': ");
        }
    }

    @Test
    void failModeAnswersGatewayTimeoutWhenAPartTimesOut() {
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .onError(OnError.FAIL)
                                .part("ok", APP, "/json/10")
                                .part("late", APP, "/json/10" + NEVER, Duration.ofMillis(300)))
                .start()) {
            var error = assertError(gw.wire().get("/page"), 504, "part_timeout");
            assertThat(error.get("message")).asString().startsWith("part 'late': ");
        }
    }

    @Test
    void failModeLetsAnOptionalPartBeNull() {
        try (TestGateway gw = withBadUpstreams()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .onError(OnError.FAIL)
                                .order(Order.DECLARED)
                                .part("ok", APP, "/json/10")
                                .optionalPart("extra", "down", "/json/10"))
                .start()) {
            Composed.of(gw.wire().get("/page"))
                    .assertSpliced(List.of(Map.entry("ok", json(10)), failed("extra")), List.of("ok", "extra"));
        }
    }

    @Test
    void validateJsonTurnsInvalidSmallBodiesIntoNull() {
        String invalid = upstream.respond(200, "application/json", "{\"price\": 12,");
        String valid = upstream.respond(200, "application/json", "{\"price\": 12}");
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .validateJson()
                                .order(Order.DECLARED)
                                .part("bad", APP, invalid)
                                .part("good", APP, valid))
                .start()) {
            Composed.of(gw.wire().get("/page"))
                    .assertSpliced(
                            List.of(
                                    failed("bad"),
                                    Map.entry("good", "{\"price\": 12}".getBytes(StandardCharsets.UTF_8))),
                            List.of("bad", "good"));
        }
    }

    @Test
    void validateJsonRelaysALargeValidBodyWhole() {
        try (TestGateway gw = gateway()
                .readAhead(16384)
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .validateJson()
                                .order(Order.DECLARED)
                                .part("big", APP, "/json/100000?chunked=1")
                                .part("small", APP, "/json/10"))
                .start()) {
            Composed.of(gw.wire().get("/page"))
                    .assertSpliced(
                            List.of(Map.entry("big", json(100000)), Map.entry("small", json(10))),
                            List.of("big", "small"));
        }
    }

    @Test
    void validateJsonFindingInvalidJsonPastTheReadAheadAbortsTheResponse() {
        byte[] unterminated = Arrays.copyOf(json(100000), 99999); // the closing quote is missing
        String invalid = upstream.respond(200, "application/json", unterminated, Map.of());
        try (TestGateway gw = gateway()
                .readAhead(16384)
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .validateJson()
                                .order(Order.DECLARED)
                                .part("invalid", APP, invalid)
                                .part("small", APP, "/json/10"))
                .start()) {
            WireResponse response = gw.wire().get("/page");
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.complete()).as("no final chunk: %s", response).isFalse();
        }
    }

    @Test
    void partBreakingAfterItsBytesWereRelayedAbortsTheResponse() {
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .order(Order.DECLARED)
                                .part("breaking", APP, "/json/400000?chunked=1&breakAt=200000")
                                .part("ok", APP, "/json/10"))
                .start()) {
            WireResponse response = gw.wire().get("/page");
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.framing()).isEqualTo("chunked");
            assertThat(response.complete()).as("no final chunk: %s", response).isFalse();
        }
    }

    @Test
    void routeTimeoutWhileAPartIsRelayedAbortsTheResponse() {
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .order(Order.DECLARED)
                                .timeout(Duration.ofMillis(800))
                                .part("stalling", APP, "/json/400000?stallAt=200000&stall=5000"))
                .start()) {
            WireResponse response = gw.wire().get("/page");
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.complete()).as("no final chunk: %s", response).isFalse();
            assertThat(response.length()).isLessThan(400000);
        }
    }

    @Test
    void aPartWhoseBodyStallsPastReadTimeoutBeforeAByteIsRelayedIsNull() {
        try (TestGateway gw = withBadUpstreams()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .order(Order.DECLARED)
                                .onError(OnError.PARTIAL)
                                .part("ok", APP, "/json/10")
                                .part("stalled", "stalling", "/json/1000?chunked=1&stallAt=0&stall=5000"))
                .start()) {
            long start = System.nanoTime();
            Composed composed = Composed.of(gw.wire().get("/page"))
                    .assertSpliced(List.of(Map.entry("ok", json(10)), failed("stalled")), List.of("ok", "stalled"));
            assertThat(composed.error("stalled")).hasValue(UpstreamFailure.READ_TIMEOUT.reason());
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("the read timeout, not the stall, ended it")
                    .isLessThan(Duration.ofMillis(4500));
        }
    }

    @Test
    void aPartWhoseBodyStallsPastReadTimeoutWhileRelayedAbortsTheResponse() {
        try (TestGateway gw = withBadUpstreams()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .order(Order.DECLARED)
                                .part("stalled", "stalling", "/json/400000?stallAt=200000&stall=5000"))
                .start()) {
            WireResponse response = gw.wire().get("/page");
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.complete()).as("no final chunk: %s", response).isFalse();
            assertThat(response.length()).isLessThan(400000);
        }
    }

    @Test
    void routeTimeoutMakesLatePartsNull() {
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .order(Order.ARRIVAL)
                                .timeout(Duration.ofMillis(700))
                                .part("late", APP, "/json/10" + NEVER)
                                .part("fast", APP, "/json/12"))
                .start()) {
            WireResponse response = gw.wire().get("/page");
            Composed composed = Composed.of(response)
                    .assertSpliced(List.of(Map.entry("fast", json(12)), failed("late")), List.of("late", "fast"));
            assertThat(composed.error("late")).hasValue("timeout");
            assertThat(response.totalMillis())
                    .as("the response ends at the route timeout")
                    .isLessThan(10_000);
        }
    }

    @Test
    void aPartWhoseBodyArrivedBeforeItsDeadlineIsRelayedEvenWhenItsTurnComesLater() {
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .order(Order.DECLARED)
                                .timeout(Duration.ofSeconds(10))
                                .part("slow", APP, "/json/10?delay=600")
                                .part("quick", APP, "/json/12", Duration.ofMillis(200)))
                .start()) {
            WireResponse response = gw.wire().get("/page");
            Composed composed = Composed.of(response)
                    .assertSpliced(
                            List.of(Map.entry("slow", json(10)), Map.entry("quick", json(12))),
                            List.of("slow", "quick"));
            assertThat(composed.error("quick"))
                    .as("its upstream answered in time; only its turn came after its deadline")
                    .isEmpty();
        }
    }
}
