package dev.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigLoader;
import dev.sluice.http.FailureAnswer;
import dev.sluice.policy.Decision;
import dev.sluice.routing.RouteTable;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FrontDoorTest {

    private final GatewaySnapshot<String> snapshot =
            GatewaySnapshot.compile(config(), route -> "handler-" + route.id());

    private static dev.sluice.config.GatewayConfig config() {
        try {
            return ConfigLoader.parse("""
                    upstreams:
                      up: { url: "http://127.0.0.1:1" }
                    routes:
                      - id: small
                        match: { path: "/small/**", methods: [POST, GET] }
                        proxy: { upstream: up }
                        filters:
                          - max-body: 10
                      - id: page
                        match: { path: "/page" }
                        compose:
                          parts:
                            a: { upstream: up, path: /a }
                    """, "test.yaml");
        } catch (dev.sluice.config.ConfigException e) {
            throw new AssertionError(e);
        }
    }

    private static FrontDoor.Head head(String method, String path, Map<String, List<String>> headers) {
        return new FrontDoor.Head(
                method,
                "HTTP/1.1",
                path,
                name -> headers.getOrDefault(name, List.of()).stream()
                        .findFirst()
                        .orElse(null),
                name -> headers.getOrDefault(name, List.of()));
    }

    @Test
    void theRouteTablesAnswersAreAnswers() {
        var notFound = (FrontDoor.Answer<String>) FrontDoor.admit(snapshot, head("GET", "/nowhere", Map.of()));
        assertThat(notFound.status()).isEqualTo(404);
        assertThat(notFound.route()).isEmpty();
        assertThat(notFound.contentType()).isEqualTo("application/json");

        var notAllowed = (FrontDoor.Answer<String>) FrontDoor.admit(snapshot, head("DELETE", "/small/x", Map.of()));
        assertThat(notAllowed.status()).isEqualTo(405);
        assertThat(notAllowed.headers()).containsEntry("Allow", "GET, HEAD, POST");
        assertThat(notAllowed.closes()).isFalse();
    }

    @Test
    void aDeclaredBodyOverTheLimitIs413AndClosesThenAWebSocketRefusalIs400() {
        var tooLarge = (FrontDoor.Answer<String>)
                FrontDoor.admit(snapshot, head("POST", "/small/x", Map.of("Content-Length", List.of("11"))));
        assertThat(tooLarge.status()).isEqualTo(413);
        assertThat(tooLarge.closes()).isTrue();
        assertThat(tooLarge.route()).isEqualTo("small");

        var within = FrontDoor.admit(snapshot, head("POST", "/small/x", Map.of("Content-Length", List.of(" 10 "))));
        assertThat(within).isInstanceOfSatisfying(FrontDoor.Enter.class, enter -> {
            assertThat(enter.compiled().handler()).isEqualTo("handler-small");
            assertThat(enter.websocket()).isFalse();
        });

        Map<String, List<String>> upgrade = Map.of(
                "Connection", List.of("Upgrade"),
                "Upgrade", List.of("websocket"),
                "Sec-WebSocket-Key", List.of("k"),
                "Sec-WebSocket-Version", List.of("13"));
        var tunnel = (FrontDoor.Enter<String>) FrontDoor.admit(snapshot, head("GET", "/small/ws", upgrade));
        assertThat(tunnel.websocket()).isTrue();
        var refused = (FrontDoor.Answer<String>) FrontDoor.admit(snapshot, head("GET", "/page", upgrade));
        assertThat(refused.status()).isEqualTo(400);
        assertThat(new String(refused.body(), StandardCharsets.UTF_8)).contains("proxy routes only");
    }

    @Test
    void aPolicysRejectionAndAnswerAreAnswersAndItsProceedIsNone() {
        var matched = (RouteTable.Result.Matched) snapshot.match("GET", "h", "/small/x", name -> null);
        var rejected = FrontDoor.<String>decided(
                new Decision.Reject(429, "rate_limited", "slow down", Map.of("Retry-After", "1"), "rate-limit"),
                matched);
        assertThat(rejected.status()).isEqualTo(429);
        assertThat(rejected.refusedBy()).isEqualTo("rate-limit");
        assertThat(rejected.headers()).containsEntry("Retry-After", "1");
        var preflight = FrontDoor.<String>decided(
                new Decision.Answer(204, Map.of("Access-Control-Allow-Origin", "*")), matched);
        assertThat(preflight.body()).isEmpty();
        assertThat(preflight.contentType()).isNull();
        assertThat(FrontDoor.<String>decided(Decision.Proceed.FREELY, matched)).isNull();
    }

    @Test
    void onlyAFailureInsideTheGatewayIsInternal() {
        assertThat(FailureAnswer.of(new NullPointerException()).internal()).isTrue();
        assertThat(FailureAnswer.of(new dev.sluice.http.BodyLimit.Exceeded(10)))
                .isEqualTo(new FailureAnswer(
                        413,
                        "content_too_large",
                        "the request body is larger than this route takes (10 bytes)",
                        false));
        assertThat(FailureAnswer.of(new java.io.IOException("gone")).status()).isEqualTo(400);
        FailureAnswer upstream = FailureAnswer.upstream(dev.sluice.http.UpstreamFailure.REFUSED, "app");
        assertThat(upstream.internal()).isFalse();
        assertThat(upstream.body(null))
                .isEqualTo(dev.sluice.http.ErrorBody.of(dev.sluice.http.UpstreamFailure.REFUSED, "app"));
    }

    @Test
    void routesSeeTheQueryAndEveryCookieFieldOfTheHead() throws dev.sluice.config.ConfigException {
        GatewaySnapshot<String> values =
                GatewaySnapshot.compile(ConfigLoader.parse("""
                        upstreams:
                          up: { url: "http://127.0.0.1:1" }
                        routes:
                          - id: beta
                            match: { path: /v, query: { version: { prefix: "2" } }, cookies: { group: beta } }
                            proxy: { upstream: up }
                          - id: rest
                            match: { path: /v }
                            proxy: { upstream: up }
                        """, "test.yaml"), route -> route.id());
        assertThat(values.readsCookies()).isTrue();
        assertThat(snapshot.readsCookies()).isFalse();
        // HTTP/2 lets a client send its cookies as several fields
        Map<String, List<String>> split = Map.of("cookie", List.of("a=1", "group=beta"));
        FrontDoor.Head head = new FrontDoor.Head(
                "GET",
                "HTTP/2.0",
                "/v",
                "version=2.1",
                name -> split.getOrDefault(name, List.of()).stream().findFirst().orElse(null),
                name -> split.getOrDefault(name, List.of()));
        assertThat(FrontDoor.admit(values, head).route()).isEqualTo("beta");
        FrontDoor.Head noQuery = new FrontDoor.Head("GET", "HTTP/2.0", "/v", head.header(), head.headers());
        assertThat(FrontDoor.admit(values, noQuery).route()).isEqualTo("rest");
    }

    @Test
    void aCompositionWhoseAcceptAllowsNoneOfItsFormatsIsA406ThatVariesOnAccept()
            throws dev.sluice.config.ConfigException {
        dev.sluice.config.GatewayConfig restricted = ConfigLoader.parse("""
                upstreams:
                  up: { url: "http://127.0.0.1:1" }
                routes:
                  - id: page
                    match: { path: "/page" }
                    compose:
                      delivery: [sse, ndjson]
                      parts:
                        a: { upstream: up, path: /a }
                """, "test.yaml");
        var target =
                (dev.sluice.config.ComposeTarget) restricted.routes().getFirst().target();
        assertThat(dev.sluice.compose.DeliveryNegotiation.choose(target, "application/json"))
                .isEmpty();
        FrontDoor.Answer<String> refused = FrontDoor.notAcceptable(target, "page");
        assertThat(refused.status()).isEqualTo(406);
        assertThat(refused.headers()).containsEntry("Vary", "Accept");
        assertThat(refused.contentType()).isEqualTo("application/json");
        assertThat(new String(refused.body(), StandardCharsets.UTF_8)).contains("not_acceptable", "text/event-stream");
        assertThat(refused.route()).isEqualTo("page");
        assertThat(refused.closes()).isFalse();
    }

    @Test
    void onlyAProxyRouteReadsTheRequestBody() {
        var proxied = (FrontDoor.Enter<String>) FrontDoor.admit(snapshot, head("GET", "/small/x", Map.of()));
        assertThat(proxied.readsBody()).isTrue();
        var composed = (FrontDoor.Enter<String>) FrontDoor.admit(snapshot, head("GET", "/page", Map.of()));
        assertThat(composed.readsBody()).isFalse();
    }
}
