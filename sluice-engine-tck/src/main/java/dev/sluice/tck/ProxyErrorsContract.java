package dev.sluice.tck;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static dev.sluice.tck.Routes.responseHeaders;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.http.UpstreamFailure;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Proxy failures: before the status line is committed the client gets a JSON error; after it, the
 * response is aborted so that a truncated body is never taken for a whole one.
 */
public abstract class ProxyErrorsContract extends ContractFixture {

    private static final long BODY = 200_000;
    private static final String KEPT_ALIVE_ANSWER = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

    @Test
    void refusedConnectionIsBadGateway() {
        try (TestGateway gw = gateway()
                .upstream("down", refusedUrl())
                .route(
                        "down",
                        on("/down/**"),
                        proxy("down").stripPrefix("/down"),
                        responseHeaders(Map.of("x-filtered", "yes"), List.of()))
                .start()) {
            HttpResponse<byte[]> response = get(gw, "/down/anything");
            Map<String, Object> error = assertError(response, 502, UpstreamFailure.REFUSED.code());
            assertThat(error.get("message")).asString().startsWith(UpstreamFailure.REFUSED.reason() + ": ");
            assertThat(response.headers().firstValue("x-filtered"))
                    .as("response-headers do not apply to the gateway's own errors")
                    .isEmpty();
        }
    }

    /**
     * Upstream trouble is logged once per change of state, not per request: a burst of requests to an
     * endpoint that refuses connections logs one WARN line, naming the upstream and the endpoint.
     */
    @Test
    void aBurstOfRequestsToARefusingEndpointLogsOneWarnLine() {
        try (LogCapture log = LogCapture.start();
                TestGateway gw = gateway()
                        .upstream("refusing-burst", refusedUrl())
                        .route("down", on("/down/**"), proxy("refusing-burst").stripPrefix("/down"))
                        .start()) {
            for (int i = 0; i < 8; i++) {
                assertError(get(gw, "/down/" + i), 502, UpstreamFailure.REFUSED.code());
            }
            assertThat(log.eventsContaining("refusing-burst"))
                    .as("events naming the upstream among %s", log.events())
                    .singleElement()
                    .satisfies(e -> {
                        assertThat(e.getLevel()).isEqualTo(ch.qos.logback.classic.Level.WARN);
                        assertThat(e.getFormattedMessage())
                                .contains(refusedUrl().getPort() + "");
                    });
        }
    }

    /** A name that does not resolve ({@code .invalid}, RFC 6761: never) is its own error, not {@code refused}. */
    @Test
    void aNameThatDoesNotResolveIsBadGatewayUnresolved() {
        try (TestGateway gw = gateway()
                .upstream("nameless", URI.create("http://sluice-contract.invalid:8080"))
                .route("nameless", on("/nameless/**"), proxy("nameless").stripPrefix("/nameless"))
                .start()) {
            for (int i = 0; i < 2; i++) { // the second: a failed lookup is never taken for an address
                Map<String, Object> error = assertError(get(gw, "/nameless/x"), 502, UpstreamFailure.UNRESOLVED.code());
                assertThat(error.get("error")).isEqualTo("unresolved");
                assertThat(error.get("message")).asString().startsWith(UpstreamFailure.UNRESOLVED.reason() + ": ");
            }
        }
    }

    @Test
    void noResponseWithinReadTimeoutIsGatewayTimeout() {
        try (TestGateway gw = gateway()
                .upstream(Routes.upstream("slow", upstream.url()).readTimeout(Duration.ofMillis(300)))
                .route("slow", on("/slow/**"), proxy("slow").stripPrefix("/slow"))
                .start()) {
            Map<String, Object> error =
                    assertError(get(gw, "/slow/bytes/10?delay=600000"), 504, UpstreamFailure.READ_TIMEOUT.code());
            assertThat(error.get("message")).asString().startsWith(UpstreamFailure.READ_TIMEOUT.reason() + ": ");
        }
    }

    @Test
    void routeTimeoutBeforeTheResponseIsGatewayTimeout() {
        try (TestGateway gw = gateway()
                .route("bounded", on("/b/**"), proxy(APP).stripPrefix("/b").timeout(Duration.ofMillis(300)))
                .start()) {
            Map<String, Object> error =
                    assertError(get(gw, "/b/bytes/10?delay=600000"), 504, UpstreamFailure.TIMEOUT.code());
            assertThat(error.get("message")).asString().startsWith(UpstreamFailure.TIMEOUT.reason() + ": ");
        }
    }

    @Test
    void upstreamBreakingMidBodyAbortsAFixedLengthResponse() {
        try (TestGateway gw = gateway()
                .route("pass", on("/p/**"), proxy(APP).stripPrefix("/p"))
                .start()) {
            WireResponse response = gw.wire().get("/p/bytes/" + BODY + "?breakAt=" + (BODY / 2));
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.complete())
                    .as("aborted, not a clean end: %s", response)
                    .isFalse();
            assertThat(response.length()).isLessThan(BODY);
            if (response.framing().equals("length")) {
                assertThat(response.header("content-length")).hasValue(Long.toString(BODY));
            }
        }
    }

    @Test
    void upstreamBreakingMidBodyAbortsAChunkedResponse() {
        try (TestGateway gw = gateway()
                .route("pass", on("/p/**"), proxy(APP).stripPrefix("/p"))
                .start()) {
            WireResponse response = gw.wire().get("/p/bytes/" + BODY + "?chunked=1&breakAt=" + (BODY / 2));
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.framing()).isEqualTo("chunked");
            assertThat(response.complete()).as("no final chunk: %s", response).isFalse();
            assertThat(response.length()).isLessThan(BODY);
        }
    }

    @Test
    void readStallingMidBodyPastReadTimeoutAbortsTheResponse() {
        try (TestGateway gw = gateway()
                .upstream(Routes.upstream("slow", upstream.url()).readTimeout(Duration.ofMillis(300)))
                .route("slow", on("/slow/**"), proxy("slow").stripPrefix("/slow"))
                .start()) {
            WireResponse response =
                    gw.wire().get("/slow/bytes/" + BODY + "?chunked=1&stallAt=" + (BODY / 2) + "&stall=5000");
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.complete())
                    .as("aborted, not a clean end: %s", response)
                    .isFalse();
            assertThat(response.length()).isLessThan(BODY);
        }
    }

    @Test
    void routeTimeoutMidBodyAbortsTheResponse() {
        try (TestGateway gw = gateway()
                .route("bounded", on("/b/**"), proxy(APP).stripPrefix("/b").timeout(Duration.ofMillis(800)))
                .start()) {
            WireResponse response = gw.wire().get("/b/bytes/" + BODY + "?stallAt=" + (BODY / 2) + "&stall=5000");
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.complete())
                    .as("aborted, not a clean end: %s", response)
                    .isFalse();
            assertThat(response.length()).isLessThan(BODY);
        }
    }

    @Test
    void resetBeforeTheResponseIsBadGateway() {
        try (RawUpstream resetting = RawUpstream.resetting();
                TestGateway gw = gateway()
                        .upstream("resetting", resetting.url())
                        .route("r", on("/r/**"), proxy("resetting").stripPrefix("/r"))
                        .start()) {
            assertError(get(gw, "/r/x"), 502, UpstreamFailure.RESET.code());
        }
    }

    @Test
    void anUpstreamClosingItsKeptAliveConnectionsFailsNoRequest() throws Exception {
        // answers as if the connection stayed open, then closes it (an upstream's keep-alive timeout
        // firing): the next request may find that connection in the pool, or its close on the way
        try (RawUpstream closing = RawUpstream.answering("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
                TestGateway gw = gateway()
                        .upstream("closing", closing.url())
                        .route("c", on("/c/**"), proxy("closing").stripPrefix("/c"))
                        .start()) {
            for (int i = 0; i < 30; i++) {
                HttpResponse<byte[]> response = get(gw, "/c/x" + i);
                assertThat(response.statusCode())
                        .as("request %d: %s", i, new String(response.body()))
                        .isEqualTo(200);
                assertThat(new String(response.body())).isEqualTo("ok");
                if (i % 3 == 2) {
                    Thread.sleep(50); // now and then the close has surely arrived before the next request
                }
            }
        }
    }

    @Test
    void malformedResponseIsBadGateway() {
        try (RawUpstream malformed = RawUpstream.answering("HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n");
                TestGateway gw = gateway()
                        .upstream("malformed", malformed.url())
                        .route("m", on("/m/**"), proxy("malformed").stripPrefix("/m"))
                        .start()) {
            assertError(get(gw, "/m/x"), 502, UpstreamFailure.BAD_RESPONSE.code());
        }
    }

    /** A gateway in front of {@code dropping}, with one pooled connection: the second request reuses it. */
    private TestGateway droppingGateway(RawUpstream dropping) {
        return gateway()
                .upstream(Routes.upstream("dropping", dropping.url()).pool(1, Duration.ofSeconds(5), 10))
                .route("d", on("/d/**"), proxy("dropping").stripPrefix("/d"))
                .start();
    }

    @Test
    void aGetWhoseKeptAliveConnectionClosesBeforeTheAnswerIsSentOnceMore() {
        try (RawUpstream dropping = RawUpstream.answeringOnceThenClosingOnTheNextRequest(KEPT_ALIVE_ANSWER);
                TestGateway gw = droppingGateway(dropping)) {
            assertThat(gw.wire().get("/d/first").bodyText()).isEqualTo("ok");
            WireResponse second = gw.wire().get("/d/second"); // on the pooled connection, which the upstream closes
            assertThat(second.status()).as("%s", second).isEqualTo(200);
            assertThat(second.bodyText()).isEqualTo("ok");
            assertThat(dropping.heads())
                    .as("first, second (dropped), second again")
                    .isEqualTo(3);
        }
    }

    @Test
    void aPostWhoseKeptAliveConnectionClosesBeforeTheAnswerIsNeverSentTwice() {
        try (RawUpstream dropping = RawUpstream.answeringOnceThenClosingOnTheNextRequest(KEPT_ALIVE_ANSWER);
                TestGateway gw = droppingGateway(dropping)) {
            assertThat(gw.wire().get("/d/first").bodyText()).isEqualTo("ok");
            WireResponse post =
                    gw.wire().send(WireRequest.of("POST", "/d/order").body("{}".getBytes(StandardCharsets.UTF_8)));
            assertError(post, 502, UpstreamFailure.RESET.code());
            assertThat(dropping.heads())
                    .as("the POST reached the upstream once")
                    .isEqualTo(2);
        }
    }

    @Test
    void noPooledConnectionWithinAcquireTimeoutIsServiceUnavailable() throws Exception {
        String tag = UUID.randomUUID().toString();
        try (TestGateway gw = gateway()
                .upstream(Routes.upstream("single", upstream.url()).pool(1, Duration.ofMillis(300), 10))
                .route("s", on("/s/**"), proxy("single").stripPrefix("/s"))
                .start()) {
            var busy = CompletableFuture.supplyAsync(
                    () -> gw.wire().get("/s/json/10?delay=2000&tag=" + tag),
                    r -> Thread.ofVirtual().start(r));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!upstream.started(tag) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(upstream.started(tag))
                    .as("the first request holds the only connection")
                    .isTrue();
            assertError(get(gw, "/s/json/10"), 503, UpstreamFailure.POOL_EXHAUSTED.code());
            assertThat(busy.get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
        }
    }
}
