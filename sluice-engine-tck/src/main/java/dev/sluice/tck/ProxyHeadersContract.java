package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static dev.sluice.tck.Routes.requestHeaders;
import static dev.sluice.tck.Routes.responseHeaders;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.FilterConfig;
import dev.sluice.http.RequestId;
import dev.sluice.http.TraceContext;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Headers through a proxy route: hop-by-hop, forwarding, Host, and the header filters. */
public abstract class ProxyHeadersContract extends ContractFixture {

    private TestGateway passThrough() {
        return gateway()
                .route("pass", on("/p/**"), proxy(APP).stripPrefix("/p"))
                .start();
    }

    private static Map<String, Object> inspected(WireResponse response) {
        assertThat(response.status()).as("%s", response).isEqualTo(200);
        return Json.object(response.body());
    }

    @Test
    void hopByHopRequestHeadersAreNotForwarded() {
        try (TestGateway gw = passThrough()) {
            Map<String, Object> seen = inspected(gw.wire()
                    .send(WireRequest.get("/p/inspect/h")
                            .header("Connection", "keep-alive, X-Secret")
                            .header("X-Secret", "do not forward")
                            .header("Keep-Alive", "timeout=5")
                            .header("TE", "trailers")
                            .header("Proxy-Authorization", "Basic c2VjcmV0")
                            .header("Trailer", "X-Checksum")
                            .header("X-Kept", "yes")));
            assertThat(headerValues(seen, "x-secret")).isEmpty();
            assertThat(headerValues(seen, "keep-alive")).isEmpty();
            assertThat(headerValues(seen, "te")).isEmpty();
            assertThat(headerValues(seen, "proxy-authorization")).isEmpty();
            assertThat(headerValues(seen, "trailer")).isEmpty();
            assertThat(String.join(",", headerValues(seen, "connection"))).doesNotContainIgnoringCase("x-secret");
            assertThat(headerValues(seen, "x-kept")).containsExactly("yes");
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyUpstreamRequestOfAnExchangeCarriesItsOneRequestId() {
        try (TestGateway gw = gateway()
                .route("pass", on("/p/**"), proxy(APP).stripPrefix("/p"))
                .route(
                        "page",
                        on("/page"),
                        compose().part("a", APP, "/inspect/a").part("b", APP, "/inspect/b"))
                .start()) {
            Map<String, Object> seen =
                    inspected(gw.wire().send(WireRequest.get("/p/inspect/h").header("X-Request-Id", "client-id-7")));
            assertThat(headerValues(seen, "x-request-id"))
                    .as("a client's sane id, once")
                    .containsExactly("client-id-7");

            List<String> made = headerValues(inspected(gw.wire().get("/p/inspect/h")), "x-request-id");
            assertThat(made).as("none sent: the gateway makes one").hasSize(1);
            assertThat(RequestId.isSane(made.getFirst())).isTrue();
            assertThat(headerValues(inspected(gw.wire().get("/p/inspect/h")), "x-request-id"))
                    .as("another request, another id")
                    .hasSize(1)
                    .doesNotContain(made.getFirst());

            String tooLong = "x".repeat(RequestId.MAX_LENGTH + 1);
            List<String> replaced = headerValues(
                    inspected(gw.wire().send(WireRequest.get("/p/inspect/h").header("X-Request-Id", tooLong))),
                    "x-request-id");
            assertThat(replaced)
                    .as("an id that is not sane is replaced")
                    .hasSize(1)
                    .doesNotContain(tooLong);

            for (String sent : new String[] {null, "client-id-8"}) {
                WireRequest page = WireRequest.get("/page");
                Composed composed =
                        Composed.of(gw.wire().send(sent == null ? page : page.header("X-Request-Id", sent)));
                List<String> a = headerValues((Map<String, Object>) composed.part("a"), "x-request-id");
                List<String> b = headerValues((Map<String, Object>) composed.part("b"), "x-request-id");
                assertThat(a).as("part a").hasSize(1);
                assertThat(b).as("every part: the same id").isEqualTo(a);
                if (sent != null) {
                    assertThat(a).containsExactly(sent);
                }
            }
        }
    }

    /**
     * Every answer carries the exchange's {@code X-Request-Id} ({@code RequestId.onAnswer}): a proxied
     * one, a composed one, the gateway's own 404; the client's when sane, else the gateway's, the one
     * its upstream requests carried; an upstream's own is not relayed beside it. With {@code
     * server.request-id.response: false} only a failure inside the gateway carries one.
     */
    @Test
    @SuppressWarnings("unchecked")
    void everyAnswerCarriesTheExchangesRequestIdUnlessSwitchedOff() throws Exception {
        com.sun.net.httpserver.HttpServer own =
                com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 16);
        own.createContext("/", exchange -> {
            exchange.getResponseHeaders().set("X-Request-Id", "upstream-own");
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        own.start();
        try (TestGateway gw = gateway()
                .upstream(
                        "own",
                        java.net.URI.create(
                                "http://127.0.0.1:" + own.getAddress().getPort()))
                .route("pass", on("/p/**"), proxy(APP).stripPrefix("/p"))
                .route("own", on("/own"), proxy("own"))
                .route("page", on("/page"), compose().part("a", APP, "/inspect/a"))
                .start()) {
            WireResponse kept = gw.wire().send(WireRequest.get("/p/inspect/h").header("X-Request-Id", "client-id-9"));
            assertThat(kept.headers().get("x-request-id"))
                    .as("a client's sane id")
                    .containsExactly("client-id-9");

            WireResponse made = gw.wire().get("/p/inspect/h");
            List<String> ids = made.headers().get("x-request-id");
            assertThat(ids)
                    .as("none sent: the gateway's, the one the upstream got")
                    .hasSize(1);
            assertThat(headerValues(inspected(made), "x-request-id")).isEqualTo(ids);

            String tooLong = "x".repeat(RequestId.MAX_LENGTH + 1);
            WireResponse replaced =
                    gw.wire().send(WireRequest.get("/p/inspect/h").header("X-Request-Id", tooLong));
            assertThat(replaced.headers().get("x-request-id")).hasSize(1).doesNotContain(tooLong);
            assertThat(RequestId.isSane(replaced.header("X-Request-Id").orElseThrow()))
                    .isTrue();

            WireResponse notFound = gw.wire().get("/nowhere");
            assertThat(notFound.status()).isEqualTo(404);
            assertThat(notFound.header("X-Request-Id").map(RequestId::isSane))
                    .as("the gateway's own answer")
                    .hasValue(true);

            WireResponse composed = gw.wire().send(WireRequest.get("/page").header("X-Request-Id", "client-id-10"));
            assertThat(composed.headers().get("x-request-id")).containsExactly("client-id-10");
            assertThat(headerValues((Map<String, Object>) Composed.of(composed).part("a"), "x-request-id"))
                    .containsExactly("client-id-10");

            WireResponse echoed = gw.wire().send(WireRequest.get("/own").header("X-Request-Id", "client-id-11"));
            assertThat(echoed.status()).isEqualTo(204);
            assertThat(echoed.headers().get("x-request-id"))
                    .as("the exchange's, once; the upstream's own is not relayed")
                    .containsExactly("client-id-11");
        }
        try (TestGateway gw = gateway()
                .requestIdOnAnswers(false)
                .upstream(
                        "own",
                        java.net.URI.create(
                                "http://127.0.0.1:" + own.getAddress().getPort()))
                .route("pass", on("/p/**"), proxy(APP).stripPrefix("/p"))
                .route("own", on("/own"), proxy("own"))
                .start()) {
            WireResponse off = gw.wire().send(WireRequest.get("/p/inspect/h").header("X-Request-Id", "client-id-12"));
            assertThat(off.header("X-Request-Id")).as("switched off").isEmpty();
            assertThat(headerValues(inspected(off), "x-request-id"))
                    .as("the upstream still gets it")
                    .containsExactly("client-id-12");
            assertThat(gw.wire().get("/nowhere").header("X-Request-Id")).isEmpty();
            assertThat(gw.wire().get("/own").header("X-Request-Id")).isEmpty();
        } finally {
            own.stop(0);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyUpstreamRequestCarriesTheClientsTraceAsANewSpan() {
        String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        String parent = "00-" + traceId + "-00f067aa0ba902b7-01";
        try (TestGateway gw = gateway()
                .route("pass", on("/p/**"), proxy(APP).stripPrefix("/p"))
                .route(
                        "page",
                        on("/page"),
                        compose().part("a", APP, "/inspect/a").part("b", APP, "/inspect/b"))
                .start()) {
            Map<String, Object> seen = inspected(gw.wire()
                    .send(WireRequest.get("/p/inspect/h")
                            .header("traceparent", parent)
                            .header("tracestate", "vendor=abc")));
            List<String> proxied = headerValues(seen, "traceparent");
            assertThat(proxied).hasSize(1);
            assertThat(TraceContext.isValid(proxied.getFirst())).isTrue();
            assertThat(proxied.getFirst())
                    .as("same trace and flags, the gateway's own span")
                    .startsWith("00-" + traceId + "-")
                    .endsWith("-01")
                    .isNotEqualTo(parent);
            assertThat(headerValues(seen, "tracestate")).containsExactly("vendor=abc");

            Composed composed =
                    Composed.of(gw.wire().send(WireRequest.get("/page").header("traceparent", parent)));
            List<String> a = headerValues((Map<String, Object>) composed.part("a"), "traceparent");
            List<String> b = headerValues((Map<String, Object>) composed.part("b"), "traceparent");
            assertThat(a).hasSize(1).first().asString().startsWith("00-" + traceId + "-");
            assertThat(b).as("every part: the gateway's one span").isEqualTo(a);

            for (String invalid : new String[] {
                null,
                "01-" + traceId + "-00f067aa0ba902b7-01", // another version
                "00-" + traceId.toUpperCase(java.util.Locale.ROOT) + "-00f067aa0ba902b7-01",
                "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                "00-" + traceId + "-0000000000000000-01",
                "00-" + traceId + "-00f067aa0ba902b-01", // short
                "00-" + traceId + "-00f067aa0ba902bz-01"
            }) {
                WireRequest request = WireRequest.get("/p/inspect/h").header("tracestate", "vendor=abc");
                Map<String, Object> replaced =
                        inspected(gw.wire().send(invalid == null ? request : request.header("traceparent", invalid)));
                List<String> made = headerValues(replaced, "traceparent");
                assertThat(made).as("for %s", invalid).hasSize(1);
                assertThat(TraceContext.isValid(made.getFirst()))
                        .as("%s is replaced by a valid one", invalid)
                        .isTrue();
                assertThat(made.getFirst()).doesNotContain(traceId).isNotEqualTo(invalid);
                assertThat(headerValues(replaced, "tracestate"))
                        .as("a state without its trace is dropped")
                        .isEmpty();
            }
        }
    }

    @Test
    void framingHeadersSpelledWithAnUnderscoreAreNotForwarded() {
        try (TestGateway gw = passThrough()) {
            Map<String, Object> seen = inspected(gw.wire()
                    .send(WireRequest.get("/p/inspect/h")
                            .header("Transfer_Encoding", "chunked")
                            .header("Content_Length", "5")
                            .header("X_Forwarded_For", "10.0.0.1")
                            .header("X_Kept", "yes")));
            assertThat(headerValues(seen, "transfer_encoding")).isEmpty();
            assertThat(headerValues(seen, "content_length")).isEmpty();
            assertThat(headerValues(seen, "x_forwarded_for")).isEmpty();
            assertThat(headerValues(seen, "x_kept"))
                    .as("other underscored names pass")
                    .containsExactly("yes");
        }
    }

    @Test
    void hopByHopResponseHeadersAreNotReturned() {
        String path = upstream.respond(
                200,
                "application/json",
                "{}".getBytes(StandardCharsets.UTF_8),
                Map.of(
                        "Connection", "X-Upstream-Private",
                        "X-Upstream-Private", "internal",
                        "Keep-Alive", "timeout=3",
                        "Proxy-Authenticate", "Basic realm=up",
                        "X-Upstream-Public", "visible"));
        try (TestGateway gw = passThrough()) {
            WireResponse response = gw.wire().get("/p" + path);
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.bodyText()).isEqualTo("{}");
            assertThat(response.header("x-upstream-public")).hasValue("visible");
            assertThat(response.header("x-upstream-private")).isEmpty();
            assertThat(response.header("keep-alive")).isEmpty();
            assertThat(response.header("proxy-authenticate")).isEmpty();
            assertThat(response.header("connection").orElse("")).doesNotContainIgnoringCase("x-upstream-private");
        }
    }

    @Test
    void forwardedHeadersAreAddedAndHostIsRewritten() {
        try (TestGateway gw = passThrough()) {
            Map<String, Object> seen = inspected(get(gw, "/p/inspect/fwd"));
            assertThat(headerValues(seen, "x-forwarded-for")).containsExactly("127.0.0.1");
            assertThat(headerValues(seen, "x-forwarded-proto")).containsExactly("http");
            assertThat(headerValues(seen, "x-forwarded-host")).containsExactly(gw.authority());
            assertThat(headerValues(seen, "host")).containsExactly(upstream.authority());
        }
    }

    @Test
    void forwardedForIsAppendedAndClientForwardedHeadersAreKept() {
        try (TestGateway gw = passThrough()) {
            Map<String, Object> seen = inspected(send(
                    gw,
                    HttpRequest.newBuilder(gw.uri("/p/inspect/fwd"))
                            .header("X-Forwarded-For", "203.0.113.7")
                            .header("X-Forwarded-Proto", "https")
                            .header("X-Forwarded-Host", "shop.example")));
            assertThat(String.join(", ", headerValues(seen, "x-forwarded-for"))).isEqualTo("203.0.113.7, 127.0.0.1");
            assertThat(headerValues(seen, "x-forwarded-proto")).containsExactly("https");
            assertThat(headerValues(seen, "x-forwarded-host")).containsExactly("shop.example");
        }
    }

    @Test
    void clientHostIsForwardedAsXForwardedHost() {
        try (TestGateway gw = passThrough()) {
            Map<String, Object> seen =
                    inspected(gw.wire().send(WireRequest.get("/p/inspect/host").header("Host", "shop.example:8443")));
            assertThat(headerValues(seen, "host")).containsExactly(upstream.authority());
            assertThat(headerValues(seen, "x-forwarded-host")).containsExactly("shop.example:8443");
        }
    }

    @Test
    void endToEndHeadersAreForwardedBothWays() {
        try (TestGateway gw = passThrough()) {
            HttpResponse<byte[]> response = send(
                    gw,
                    HttpRequest.newBuilder(gw.uri("/p/echo/e"))
                            .header("X-Request-Id", "r-1")
                            .header("Accept", "text/plain")
                            .header("Content-Type", "application/x-test")
                            .POST(HttpRequest.BodyPublishers.ofString("body")));
            assertThat(response.headers().firstValue("content-type")).hasValue("application/x-test");
            assertThat(response.headers().firstValue("x-echo-method")).hasValue("POST");
            Map<String, Object> seen = inspected(send(
                    gw,
                    HttpRequest.newBuilder(gw.uri("/p/inspect/e"))
                            .header("X-Request-Id", "r-1")
                            .header("Accept", "text/plain")));
            assertThat(headerValues(seen, "x-request-id")).containsExactly("r-1");
            assertThat(headerValues(seen, "accept")).containsExactly("text/plain");
        }
    }

    @Test
    void requestHeadersFilterSetsAndRemoves() {
        try (TestGateway gw = gateway()
                .route(
                        "pass",
                        on("/p/**"),
                        proxy(APP).stripPrefix("/p"),
                        requestHeaders(Map.of("x-added", "1", "x-replaced", "new"), List.of("x-drop")))
                .start()) {
            Map<String, Object> seen = inspected(send(
                    gw,
                    HttpRequest.newBuilder(gw.uri("/p/inspect/f"))
                            .header("X-Replaced", "old")
                            .header("X-Drop", "d")
                            .header("X-Kept", "k")));
            assertThat(headerValues(seen, "x-added")).containsExactly("1");
            assertThat(headerValues(seen, "x-replaced")).containsExactly("new");
            assertThat(headerValues(seen, "x-drop")).isEmpty();
            assertThat(headerValues(seen, "x-kept")).containsExactly("k");
        }
    }

    @Test
    void responseHeadersFilterSetsAndRemoves() {
        String path = upstream.respond(
                200,
                "text/plain",
                "ok".getBytes(StandardCharsets.UTF_8),
                Map.of("X-Remove-Me", "1", "X-Replace", "old", "X-Kept", "k"));
        try (TestGateway gw = gateway()
                .route(
                        "pass",
                        on("/p/**"),
                        proxy(APP).stripPrefix("/p"),
                        responseHeaders(Map.of("x-replace", "new", "x-set", "s"), List.of("x-remove-me")))
                .start()) {
            HttpResponse<byte[]> response = get(gw, "/p" + path);
            assertThat(text(response)).isEqualTo("ok");
            assertThat(response.headers().allValues("x-replace")).containsExactly("new");
            assertThat(response.headers().allValues("x-set")).containsExactly("s");
            assertThat(response.headers().allValues("x-remove-me")).isEmpty();
            assertThat(response.headers().allValues("x-kept")).containsExactly("k");
        }
    }

    /**
     * A header name the route's {@code request-headers} sets and a policy sets too (the {@code jwt}
     * filter's {@code claims-to-headers}) reaches the upstream once, with the policy's value: the
     * route's set is the same for every request, the policy's is decided for this one, after the route
     * was chosen, so it is the later, more specific word (the policies' sets are applied after the
     * route's). Before one core builder decided the head, the blocking engine sent both values.
     */
    @Test
    @SuppressWarnings("unchecked")
    void aNameSetByTheRouteAndByAPolicyReachesTheUpstreamOnceWithThePolicysValue() {
        try (JwksEndpoint idp = JwksEndpoint.start()) {
            FilterConfig.Jwt jwt = new FilterConfig.Jwt(
                    new FilterConfig.Jwt.JwksUrl(idp.url(), Duration.ofMinutes(5)),
                    Optional.of(JwksEndpoint.ISSUER),
                    List.of("shop"),
                    List.of(),
                    Duration.ofSeconds(60),
                    FilterConfig.Jwt.ASYMMETRIC_DEFAULT,
                    Map.of("sub", "x-user-id"));
            FilterConfig.RequestHeaders routeSets = requestHeaders(Map.of("X-User-Id", "anonymous"), List.of());
            try (TestGateway gw = gateway()
                    .route("pass", on("/p/**"), proxy(APP).stripPrefix("/p"), routeSets, jwt)
                    .route(
                            "page",
                            on("/page"),
                            compose().part("a", APP, "/inspect/a").part("b", APP, "/inspect/b"),
                            routeSets,
                            jwt)
                    .start()) {
                String token = idp.token("alice", "shop", Map.of());
                Map<String, Object> seen = inspected(gw.wire()
                        .send(WireRequest.get("/p/inspect/twice")
                                .header("Authorization", "Bearer " + token)
                                .header("X-User-Id", "mallory")));
                assertThat(headerValues(seen, "x-user-id")).containsExactly("alice");
                Composed composed = Composed.of(gw.wire()
                        .send(WireRequest.get("/page")
                                .header("Authorization", "Bearer " + token)
                                .header("X-User-Id", "mallory")));
                for (String part : List.of("a", "b")) {
                    Map<String, Object> partSeen = (Map<String, Object>) composed.part(part);
                    assertThat(headerValues(partSeen, "x-user-id")).as(part).containsExactly("alice");
                }
            }
        }
    }
}
