package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.FilterConfig;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The {@code cors} filter in every mode: a preflight is answered at the gateway (a {@code 204} with
 * the allow fields, or {@code 403 cors_rejected}) even on a route whose methods lack {@code
 * OPTIONS}, and never reaches an upstream; an allowed origin's responses (proxied, composed, the
 * gateway's own {@code 502}, a later policy's {@code 401}) carry {@code Access-Control-Allow-Origin}
 * through the policies' response edits, replacing the upstream's; every response has {@code Vary:
 * Origin}.
 */
public abstract class CorsContract extends ContractFixture {

    private static final String SHOP = "https://shop.example";

    private static final FilterConfig.Cors CORS = new FilterConfig.Cors(
            List.of(SHOP, "https://*.example.com"),
            List.of("GET", "PUT"),
            List.of("content-type", "x-trace"),
            List.of("x-request-id"),
            true,
            Optional.of(Duration.ofMinutes(10)));

    private static WireRequest preflight(String target, String origin, String method, String headers) {
        WireRequest request = WireRequest.of("OPTIONS", target)
                .header("Origin", origin)
                .header("Access-Control-Request-Method", method);
        return headers == null ? request : request.header("Access-Control-Request-Headers", headers);
    }

    @Test
    void aPreflightIsAnsweredAtTheGatewayEvenOnARouteWithoutOptions() {
        String run = Long.toString(System.nanoTime(), 36);
        try (TestGateway gw = gateway()
                .route("shop", on("/shop/**").methods("GET", "PUT"), proxy(APP).stripPrefix("/shop"), CORS)
                .start()) {
            WireResponse allowed =
                    gw.wire().send(preflight("/shop/json/2?tag=ok" + run, SHOP, "PUT", "Content-Type, X-Trace"));
            assertThat(allowed.status()).as("%s", allowed).isEqualTo(204);
            assertThat(allowed.complete()).isTrue();
            assertThat(allowed.length()).isZero();
            assertThat(allowed.header("content-length"))
                    .as("no Content-Length on a 204 (RFC 9110 section 8.6)")
                    .isEmpty();
            assertThat(allowed.header("transfer-encoding")).isEmpty();
            assertThat(allowed.header("access-control-allow-origin")).hasValue(SHOP);
            assertThat(allowed.header("access-control-allow-methods")).hasValue("GET, PUT");
            assertThat(allowed.header("access-control-allow-headers")).hasValue("content-type, x-trace");
            assertThat(allowed.header("access-control-allow-credentials")).hasValue("true");
            assertThat(allowed.header("access-control-max-age")).hasValue("600");
            assertThat(allowed.header("vary"))
                    .hasValue("Origin, Access-Control-Request-Method, Access-Control-Request-Headers");

            for (WireRequest refused : List.of(
                    preflight("/shop/json/2?tag=origin" + run, "https://evil.example", "GET", null),
                    preflight("/shop/json/2?tag=method" + run, SHOP, "DELETE", null),
                    preflight("/shop/json/2?tag=header" + run, SHOP, "GET", "authorization"))) {
                WireResponse answer = gw.wire().send(refused);
                assertError(answer, 403, "cors_rejected");
                assertThat(answer.header("access-control-allow-origin")).isEmpty();
            }
            for (String tag : List.of("ok", "origin", "method", "header")) {
                assertThat(upstream.started(tag + run))
                        .as("a preflight never reaches the upstream (" + tag + ")")
                        .isFalse();
            }
            assertThat(gw.wire().send(WireRequest.of("OPTIONS", "/shop/json/2")).status())
                    .as("an OPTIONS that is no preflight is routed as it is: 405 here")
                    .isEqualTo(405);
        }
    }

    @Test
    void anAllowedOriginsResponsesCarryTheCorsFieldsWhateverAnswersThem() throws Exception {
        String upstreams = upstream.respond(
                200,
                "application/json",
                "{}".getBytes(StandardCharsets.UTF_8),
                Map.of("Access-Control-Allow-Origin", "*", "Vary", "Accept-Encoding"));
        String key = "k-" + System.nanoTime();
        try (TestGateway gw = gateway()
                .upstream("down", refusedUrl())
                .route("shop", on("/shop/**"), proxy(APP).stripPrefix("/shop"), CORS)
                .route("page", on("/page"), compose().part("a", APP, "/json/20").part("b", APP, "/json/30"), CORS)
                .route("down", on("/down/**"), proxy("down"), CORS)
                .route(
                        "keyed",
                        on("/keyed/**"),
                        proxy(APP).stripPrefix("/keyed"),
                        new FilterConfig.ApiKey(Optional.of("x-api-key"), Optional.empty(), Map.of("ci", sha256(key))),
                        CORS) // listed after the key check, asked first
                .start()) {
            WireResponse proxied =
                    gw.wire().send(WireRequest.get("/shop" + upstreams).header("Origin", SHOP));
            assertThat(proxied.status()).isEqualTo(200);
            assertThat(proxied.header("access-control-allow-origin"))
                    .as("the upstream's '*' is replaced")
                    .hasValue(SHOP);
            assertThat(proxied.headers().get("access-control-allow-origin")).hasSize(1);
            assertThat(proxied.header("access-control-allow-credentials")).hasValue("true");
            assertThat(proxied.header("access-control-expose-headers")).hasValue("x-request-id");
            assertThat(proxied.headers().get("vary")).containsExactly("Accept-Encoding, Origin");

            WireResponse composed = gw.wire().send(WireRequest.get("/page").header("Origin", "https://a.example.com"));
            assertThat(composed.status()).isEqualTo(200);
            assertThat(composed.complete()).isTrue();
            assertThat(composed.header("access-control-allow-origin")).hasValue("https://a.example.com");
            assertThat(composed.header("vary")).hasValue("Origin");

            WireResponse failed = gw.wire().send(WireRequest.get("/down/x").header("Origin", SHOP));
            assertError(failed, 502, "refused");
            assertThat(failed.header("access-control-allow-origin"))
                    .as("the gateway's own error after admission, readable by the page")
                    .hasValue(SHOP);

            WireResponse unauthorized =
                    gw.wire().send(WireRequest.get("/keyed/json/2").header("Origin", SHOP));
            assertThat(unauthorized.status()).isEqualTo(401);
            assertThat(unauthorized.header("access-control-allow-origin"))
                    .as("a later policy's refusal")
                    .hasValue(SHOP);
            WireResponse keyedPreflight = gw.wire().send(preflight("/keyed/json/2", SHOP, "GET", null));
            assertThat(keyedPreflight.status())
                    .as("a preflight carries no credentials: cors answers before the key check")
                    .isEqualTo(204);
            assertThat(gw.wire()
                            .send(WireRequest.get("/keyed/json/2")
                                    .header("Origin", SHOP)
                                    .header("x-api-key", key))
                            .header("access-control-allow-origin"))
                    .hasValue(SHOP);

            WireResponse other =
                    gw.wire().send(WireRequest.get("/shop/json/2").header("Origin", "https://evil.example"));
            assertThat(other.status())
                    .as("another origin's request goes on, unmarked")
                    .isEqualTo(200);
            assertThat(other.header("access-control-allow-origin")).isEmpty();
            assertThat(other.header("vary")).hasValue("Origin");
            WireResponse none = gw.wire().get("/shop/json/2");
            assertThat(none.header("access-control-allow-origin")).isEmpty();
            assertThat(none.header("vary")).hasValue("Origin");
        }
    }

    private static String sha256(String key) throws Exception {
        return HexFormat.of()
                .formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
    }
}
