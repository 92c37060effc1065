package dev.sluice.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.FilterConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The {@code cors} filter's decisions: preflights answered or refused, actual requests marked. */
class CorsTest {

    private static final FilterConfig.Cors SHOP = new FilterConfig.Cors(
            List.of("https://shop.example", "https://*.example.com", "http://localhost:3000"),
            List.of("GET", "PUT"),
            List.of("content-type", "x-trace"),
            List.of("x-request-id", "ratelimit-remaining"),
            true,
            Optional.of(Duration.ofMinutes(10)));

    private static GivenRequest request(String method, Map<String, String> headers) {
        return new GivenRequest(method, "/orders", "r", null, "10.0.0.1", headers, Map.of());
    }

    private static GivenRequest preflight(String origin, String method, String headers) {
        return headers == null
                ? request("OPTIONS", Map.of("Origin", origin, "Access-Control-Request-Method", method))
                : request(
                        "OPTIONS",
                        Map.of(
                                "Origin",
                                origin,
                                "Access-Control-Request-Method",
                                method,
                                "Access-Control-Request-Headers",
                                headers));
    }

    @Test
    void anAllowedPreflightIsAnswered204WithTheAllowFields() {
        Decision d = new Cors(SHOP).admit(preflight("https://shop.example", "PUT", "Content-Type, X-Trace"));
        assertThat(d).isInstanceOfSatisfying(Decision.Answer.class, a -> {
            assertThat(a.status()).isEqualTo(204);
            assertThat(a.headers())
                    .containsEntry("Access-Control-Allow-Origin", "https://shop.example")
                    .containsEntry("Access-Control-Allow-Methods", "GET, PUT")
                    .containsEntry("Access-Control-Allow-Headers", "content-type, x-trace")
                    .containsEntry("Access-Control-Allow-Credentials", "true")
                    .containsEntry("Access-Control-Max-Age", "600")
                    .containsEntry("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers");
        });
    }

    @Test
    void aPreflightWithAnOriginMethodOrHeaderNotAllowedIs403() {
        Cors cors = new Cors(SHOP);
        for (GivenRequest refused : List.of(
                preflight("https://evil.example", "GET", null),
                preflight("http://shop.example", "GET", null), // another scheme
                preflight("https://shop.example:8443", "GET", null), // another port
                preflight("https://shop.example", "DELETE", null),
                preflight("https://shop.example", "GET", "content-type, authorization"),
                preflight("null", "GET", null))) {
            assertThat(cors.admit(refused))
                    .as(refused.headers().toString())
                    .isInstanceOfSatisfying(Decision.Reject.class, r -> {
                        assertThat(r.status()).isEqualTo(403);
                        assertThat(r.code()).isEqualTo("cors_rejected");
                        assertThat(r.headers()).doesNotContainKey("Access-Control-Allow-Origin");
                    });
        }
    }

    @Test
    void originsAreComparedBySchemeHostAndPortWhateverTheirSpelling() {
        Cors cors = new Cors(SHOP);
        assertThat(cors.admit(preflight("HTTPS://Shop.Example:443", "GET", null)))
                .isInstanceOf(Decision.Answer.class);
        assertThat(cors.admit(preflight("http://localhost:3000", "GET", null))).isInstanceOf(Decision.Answer.class);
        assertThat(cors.admit(preflight("https://a.example.com", "GET", null))).isInstanceOf(Decision.Answer.class);
        assertThat(cors.admit(preflight("https://a.b.example.com", "GET", null)))
                .isInstanceOf(Decision.Answer.class);
        assertThat(cors.admit(preflight("https://example.com", "GET", null)))
                .as("a pattern's *. needs a label")
                .isInstanceOf(Decision.Reject.class);
        assertThat(cors.admit(preflight("https://evilexample.com", "GET", null)))
                .isInstanceOf(Decision.Reject.class);
        assertThat(cors.admit(preflight("https://a.example.com.evil.io", "GET", null)))
                .isInstanceOf(Decision.Reject.class);
        assertThat(cors.admit(preflight("http://a.example.com", "GET", null))).isInstanceOf(Decision.Reject.class);
        assertThat(cors.admit(preflight("https://shop.example/", "GET", null)))
                .as("not an origin")
                .isInstanceOf(Decision.Reject.class);
    }

    @Test
    void anActualRequestFromAnAllowedOriginProceedsWithTheResponseFields() {
        Decision d = new Cors(SHOP).admit(request("POST", Map.of("Origin", "https://a.example.com")));
        assertThat(d).isInstanceOfSatisfying(Decision.Proceed.class, p -> {
            assertThat(p.response().set())
                    .containsEntry("Access-Control-Allow-Origin", "https://a.example.com")
                    .containsEntry("Access-Control-Allow-Credentials", "true")
                    .containsEntry("Access-Control-Expose-Headers", "x-request-id, ratelimit-remaining");
            assertThat(p.response().vary()).containsExactly("Origin");
        });
    }

    @Test
    void anotherOriginOrNoneProceedsWithVaryOnly() {
        Cors cors = new Cors(SHOP);
        for (GivenRequest r :
                List.of(request("GET", Map.of("Origin", "https://evil.example")), request("GET", Map.of()))) {
            assertThat(cors.admit(r)).isInstanceOfSatisfying(Decision.Proceed.class, p -> {
                assertThat(p.response().set()).isEmpty();
                assertThat(p.response().vary()).containsExactly("Origin");
            });
        }
        assertThat(cors.admit(request("OPTIONS", Map.of("Origin", "https://shop.example"))))
                .as("no Access-Control-Request-Method: an actual OPTIONS, not a preflight")
                .isInstanceOfSatisfying(
                        Decision.Proceed.class,
                        p -> assertThat(p.response().set())
                                .containsEntry("Access-Control-Allow-Origin", "https://shop.example"));
    }

    @Test
    void anyOriginWithoutCredentialsIsAStarAndAnyMethodOrHeaderIsEchoed() {
        Cors cors = new Cors(
                new FilterConfig.Cors(List.of("*"), List.of("*"), List.of("*"), List.of(), false, Optional.empty()));
        assertThat(cors.admit(preflight("https://anyone.example", "PATCH", "X-Custom")))
                .isInstanceOfSatisfying(
                        Decision.Answer.class,
                        a -> assertThat(a.headers())
                                .containsEntry("Access-Control-Allow-Origin", "*")
                                .containsEntry("Access-Control-Allow-Methods", "PATCH")
                                .containsEntry("Access-Control-Allow-Headers", "x-custom")
                                .doesNotContainKeys("Access-Control-Allow-Credentials", "Access-Control-Max-Age"));
        assertThat(cors.admit(preflight("https://anyone.example", "GET PUT", null)))
                .as("not a method")
                .isInstanceOf(Decision.Reject.class);
        assertThat(cors.admit(request("GET", Map.of("Origin", "https://anyone.example"))))
                .isInstanceOfSatisfying(
                        Decision.Proceed.class,
                        p -> assertThat(p.response().set())
                                .containsExactly(Map.entry("Access-Control-Allow-Origin", "*")));
    }

    @Test
    void aStarOriginWithCredentialsCannotBeBuilt() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new FilterConfig.Cors(
                        List.of("*"), List.of("GET"), List.of(), List.of(), true, Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void configuredOriginsAreNormalisedOrRefused() {
        assertThat(CorsOrigins.normalise("HTTPS://Shop.Example:443")).hasValue("https://shop.example");
        assertThat(CorsOrigins.normalise("http://localhost:80")).hasValue("http://localhost");
        assertThat(CorsOrigins.normalise("http://127.0.0.1:8080")).hasValue("http://127.0.0.1:8080");
        assertThat(CorsOrigins.normalise("https://*.Example.com")).hasValue("https://*.example.com");
        assertThat(CorsOrigins.normalise("*")).hasValue("*");
        for (String bad : List.of(
                "shop.example",
                "https://shop.example/",
                "https://user@shop.example",
                "https://shop.example:0",
                "https://shop.example:99999",
                "https://*.com",
                "https://*.10.0.0.1",
                "https://a.*.example.com",
                "null")) {
            assertThat(CorsOrigins.normalise(bad)).as(bad).isEmpty();
        }
    }
}
