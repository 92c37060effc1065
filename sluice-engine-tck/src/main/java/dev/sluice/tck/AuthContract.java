package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.sluice.config.FilterConfig;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Authentication at the edge, carried out by every mode alike: the {@code jwt:} filter against a
 * JWKS served over HTTP (so the first request waits for a fetch, off any event loop), and the
 * {@code api-key:} filter. A refused request never reaches the upstream; an admitted one reaches it
 * with the identity headers the gateway set, never ones the client forged, and without the key.
 */
public abstract class AuthContract extends ContractFixture {

    private static final String KEY = "k-7f1c-test-key";
    private JwksEndpoint idp;

    @BeforeAll
    void startIdp() {
        idp = JwksEndpoint.start();
    }

    @AfterAll
    void stopIdp() {
        idp.close();
    }

    private FilterConfig.Jwt jwt(List<FilterConfig.Jwt.ClaimRule> rules) {
        return new FilterConfig.Jwt(
                new FilterConfig.Jwt.JwksUrl(idp.url(), Duration.ofMinutes(5)),
                Optional.of(JwksEndpoint.ISSUER),
                List.of("shop"),
                rules,
                Duration.ofSeconds(60),
                FilterConfig.Jwt.ASYMMETRIC_DEFAULT,
                Map.of("sub", "x-user-id"));
    }

    private TestGateway.Builder guarded() {
        return gateway()
                .route("orders", on("/orders/**"), proxy(APP).stripPrefix("/orders"), jwt(List.of()))
                .route(
                        "admin",
                        on("/admin/**"),
                        proxy(APP).stripPrefix("/admin"),
                        jwt(List.of(new FilterConfig.Jwt.ClaimRule("scope", List.of("admin")))))
                .route(
                        "page",
                        on("/page"),
                        compose().part("a", APP, "/inspect/a").part("b", APP, "/inspect/b"),
                        jwt(List.of()));
    }

    private static Map<String, Object> seen(WireResponse response) {
        assertThat(response.status()).as("%s", response).isEqualTo(200);
        return Json.object(response.body());
    }

    /**
     * While the JWKS cannot be fetched, a valid token whose key is not cached is answered {@code 503
     * keys_unavailable} every time, never {@code 401 invalid_token} once the refetches are rate
     * limited; the outage is logged once at WARN (the URL, never the token), not per request.
     */
    @Test
    void whileTheJwksCannotBeFetchedEveryTokenIs503AndTheOutageIsLoggedOnce() {
        FilterConfig.Jwt unreachable = new FilterConfig.Jwt(
                new FilterConfig.Jwt.JwksUrl(refusedUrl().resolve("/jwks.json"), Duration.ofMinutes(5)),
                Optional.of(JwksEndpoint.ISSUER),
                List.of("shop"),
                List.of(),
                Duration.ofSeconds(60),
                FilterConfig.Jwt.ASYMMETRIC_DEFAULT,
                Map.of());
        String token = idp.token("alice", "shop", Map.of());
        try (LogCapture log = LogCapture.start();
                TestGateway gw = gateway()
                        .route("orders", on("/orders/**"), proxy(APP).stripPrefix("/orders"), unreachable)
                        .start()) {
            for (int i = 0; i < 6; i++) {
                WireResponse response =
                        gw.wire().send(WireRequest.get("/orders/json/1").header("Authorization", "Bearer " + token));
                assertError(response, 503, "keys_unavailable");
                assertThat(response.header("Retry-After")).as("request %s", i).hasValue("5");
            }
            List<ILoggingEvent> warned = log.events().stream()
                    .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                    .toList();
            assertThat(warned)
                    .as("WARN events")
                    .singleElement()
                    .satisfies(e ->
                            assertThat(e.getFormattedMessage()).contains("JWKS").contains("/jwks.json"));
            assertThat(log.events())
                    .as("nothing logged names the token")
                    .noneSatisfy(e -> assertThat(e.getFormattedMessage()).contains(token.substring(0, 20)));
        }
    }

    @Test
    void withoutAValidTokenTheAnswerIs401AndTheUpstreamSeesNothing() {
        String run = Long.toString(System.nanoTime());
        try (TestGateway gw = guarded().start()) {
            WireResponse none = gw.wire().get("/orders/json/1?tag=none" + run);
            assertError(none, 401, "unauthorized");
            assertThat(none.header("WWW-Authenticate")).hasValue("Bearer");

            WireResponse forged = gw.wire()
                    .send(WireRequest.get("/orders/json/1?tag=forged" + run)
                            .header("Authorization", "Bearer " + idp.token("alice", "billing", Map.of())));
            assertError(forged, 401, "invalid_token");
            assertThat(forged.header("WWW-Authenticate").orElseThrow())
                    .startsWith("Bearer error=\"invalid_token\", error_description=\"");

            assertThat(upstream.started("none" + run)).isFalse();
            assertThat(upstream.started("forged" + run)).isFalse();
        }
    }

    @Test
    void aValidTokenReachesTheUpstreamWithTheSubjectInXUserIdAndNeverAForgedOne() {
        try (TestGateway gw = guarded().start()) {
            String token = idp.token("alice", "shop", Map.of());
            for (int i = 0; i < 3; i++) { // the first waits for the JWKS, the others use the cached keys
                Map<String, Object> seen = seen(gw.wire()
                        .send(WireRequest.get("/orders/inspect/o?page=" + i)
                                .header("authorization", "bearer " + token)
                                .header("X-User-Id", "mallory")
                                .header("x-user-id", "root")));
                assertThat(headerValues(seen, "x-user-id")).containsExactly("alice");
                assertThat(seen.get("query")).isEqualTo("page=" + i);
            }
        }
    }

    @Test
    void aTokenThatFailsAClaimRuleIs403() {
        String run = Long.toString(System.nanoTime());
        try (TestGateway gw = guarded().start()) {
            WireResponse reader = gw.wire()
                    .send(WireRequest.get("/admin/json/1?tag=reader" + run)
                            .header("Authorization", "Bearer " + idp.token("bob", "shop", Map.of("scope", "read"))));
            assertError(reader, 403, "insufficient_scope");
            assertThat(reader.header("WWW-Authenticate").orElseThrow()).contains("error=\"insufficient_scope\"");
            assertThat(upstream.started("reader" + run)).isFalse();

            Map<String, Object> seen = seen(gw.wire()
                    .send(WireRequest.get("/admin/inspect/x")
                            .header(
                                    "Authorization",
                                    "Bearer " + idp.token("carol", "shop", Map.of("scope", "read admin")))));
            assertThat(headerValues(seen, "x-user-id")).containsExactly("carol");
        }
    }

    @Test
    void everyCompositionPartGetsTheClaimHeaders() {
        try (TestGateway gw = guarded().start()) {
            Composed composed = Composed.of(gw.wire()
                    .send(WireRequest.get("/page")
                            .header("Authorization", "Bearer " + idp.token("dave", "shop", Map.of()))
                            .header("X-User-Id", "mallory")));
            for (String part : List.of("a", "b")) {
                @SuppressWarnings("unchecked")
                Map<String, Object> seen = (Map<String, Object>) composed.part(part);
                assertThat(headerValues(seen, "x-user-id")).as(part).containsExactly("dave");
            }
            assertError(gw.wire().get("/page"), 401, "unauthorized");
        }
    }

    @Test
    void anApiKeyInAHeaderOrTheQueryIsCheckedAndNeverForwarded() throws Exception {
        String run = Long.toString(System.nanoTime());
        Map<String, String> keys = Map.of("ci", sha256(KEY));
        try (TestGateway gw = gateway()
                .route(
                        "by-header",
                        on("/h/**"),
                        proxy(APP).stripPrefix("/h"),
                        new FilterConfig.ApiKey(Optional.of("x-api-key"), Optional.empty(), keys))
                .route(
                        "by-query",
                        on("/q/**"),
                        proxy(APP).stripPrefix("/q"),
                        new FilterConfig.ApiKey(Optional.empty(), Optional.of("api_key"), keys))
                .start()) {
            Map<String, Object> seen =
                    seen(gw.wire().send(WireRequest.get("/h/inspect/x").header("X-Api-Key", KEY)));
            assertThat(headerValues(seen, "x-api-key")).isEmpty();

            seen = seen(gw.wire().get("/q/inspect/x?a=1&api_key=" + KEY + "&b=2"));
            assertThat(seen.get("query")).isEqualTo("a=1&b=2");
            seen = seen(gw.wire().get("/q/inspect/x?api_key=" + KEY));
            assertThat(seen.get("query")).isEqualTo(Json.NULL);

            WireResponse wrong =
                    gw.wire().send(WireRequest.get("/h/json/1?tag=wrong" + run).header("X-Api-Key", KEY + "x"));
            assertError(wrong, 401, "invalid_api_key");
            assertError(gw.wire().get("/h/json/1?tag=missing" + run), 401, "unauthorized");
            assertError(gw.wire().get("/q/json/1?tag=q" + run + "&api_key=nope"), 401, "invalid_api_key");
            assertThat(upstream.started("wrong" + run)).isFalse();
            assertThat(upstream.started("missing" + run)).isFalse();
            assertThat(upstream.started("q" + run)).isFalse();
        }
    }

    private static String sha256(String key) throws Exception {
        return HexFormat.of()
                .formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
    }
}
