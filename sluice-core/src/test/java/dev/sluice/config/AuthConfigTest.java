package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code jwt:} and {@code api-key:} filters as the YAML binds them (the refusals: broken/auth.yaml). */
class AuthConfigTest {

    private static final String HASH = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    @Test
    void jwtAndApiKeyFiltersBindWithTheirFilesBesideTheConfiguration(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("keys"));
        Files.writeString(
                dir.resolve("keys/idp.json"),
                new JWKSet(new ECKeyGenerator(Curve.P_256).keyID("e1").generate()).toString(false));
        Files.writeString(dir.resolve("keys/api.txt"), "ci: " + HASH + "\nweb: " + HASH.replace('9', '8') + "\n");
        Files.writeString(dir.resolve("gateway.yaml"), """
                upstreams:
                  catalog: { url: "http://127.0.0.1:19081" }
                routes:
                  - id: orders
                    match: { path: "/orders/**" }
                    proxy: { upstream: catalog }
                    filters:
                      - jwt:
                          jwks: "https://idp.example/.well-known/jwks.json"
                          issuer: "https://idp.example/"
                          audience: shop
                          claims-to-headers: { sub: X-User-Id }
                  - id: files
                    match: { path: "/files/**" }
                    proxy: { upstream: catalog }
                    filters:
                      - jwt:
                          jwks-file: keys/idp.json
                          audience: [shop, admin]
                          algorithms: [ES256]
                          clock-skew: 0s
                          required-claims: [email, { scope: "orders:read" }, { roles: [a, b] }]
                      - api-key: { query: api_key, keys-file: keys/api.txt }
                """);
        GatewayConfig config = ConfigLoader.load(dir.resolve("gateway.yaml"));

        FilterConfig.Jwt orders =
                (FilterConfig.Jwt) config.routes().get(0).filters().get(0);
        assertThat(orders.keys())
                .isEqualTo(new FilterConfig.Jwt.JwksUrl(
                        java.net.URI.create("https://idp.example/.well-known/jwks.json"), Duration.ofMinutes(5)));
        assertThat(orders.issuer()).hasValue("https://idp.example/");
        assertThat(orders.audience()).containsExactly("shop");
        assertThat(orders.clockSkew()).isEqualTo(Duration.ofSeconds(60));
        assertThat(orders.algorithms())
                .isEqualTo(FilterConfig.Jwt.ASYMMETRIC_DEFAULT)
                .doesNotContain("HS256");
        assertThat(orders.claimsToHeaders()).containsExactly(Map.entry("sub", "x-user-id"));

        FilterConfig.Jwt files =
                (FilterConfig.Jwt) config.routes().get(1).filters().get(0);
        assertThat(files.keys()).isEqualTo(new FilterConfig.Jwt.JwksFile(dir.resolve("keys/idp.json")));
        assertThat(files.audience()).containsExactly("shop", "admin");
        assertThat(files.algorithms()).containsExactly("ES256");
        assertThat(files.clockSkew()).isZero();
        assertThat(files.requiredClaims())
                .containsExactly(
                        new FilterConfig.Jwt.ClaimRule("email", List.of()),
                        new FilterConfig.Jwt.ClaimRule("scope", List.of("orders:read")),
                        new FilterConfig.Jwt.ClaimRule("roles", List.of("a", "b")));

        FilterConfig.ApiKey apiKey =
                (FilterConfig.ApiKey) config.routes().get(1).filters().get(1);
        assertThat(apiKey.header()).isEmpty();
        assertThat(apiKey.query()).hasValue("api_key");
        assertThat(apiKey.keys()).containsEntry("ci", HASH).hasSize(2);
    }

    @Test
    void secretsAndKeysComeFromTheEnvironment() {
        List<Problem> problems = new ArrayList<>();
        Map<String, String> env = Map.of(
                "JWT_SECRET", "0123456789abcdef0123456789abcdef",
                "SHORT", "too-short",
                "API_KEYS", "{ci: " + HASH.toUpperCase() + "}");
        AuthBinder binder = new AuthBinder(Path.of("."), problems, env::get);

        Optional<FilterConfig> hmac = binder.jwt(Map.of("secret-env", "JWT_SECRET"), "f");
        assertThat(problems).isEmpty();
        FilterConfig.Jwt jwt = (FilterConfig.Jwt) hmac.orElseThrow();
        assertThat(jwt.algorithms()).isEqualTo(FilterConfig.Jwt.HMAC_DEFAULT);
        assertThat(jwt.keys().toString()).doesNotContain("0123456789");

        assertThat(binder.jwt(Map.of("secret-env", "SHORT"), "g")).isEmpty();
        assertThat(binder.jwt(Map.of("secret-env", "JWT_SECRET", "algorithms", List.of("HS256", "RS256")), "h"))
                .isEmpty();
        assertThat(problems)
                .extracting(Problem::toString)
                .containsExactly(
                        "g.secret-env: 'SHORT' holds 9 bytes (expected: a secret of at least 32 bytes)",
                        "h.algorithms[1]: 'RS256' needs an RSA or EC key set (expected: HS256, HS384 or HS512 with"
                                + " secret-env)");
        problems.clear();

        FilterConfig.ApiKey apiKey = (FilterConfig.ApiKey)
                binder.apiKey(Map.of("keys-env", "API_KEYS"), "k").orElseThrow();
        assertThat(problems).isEmpty();
        assertThat(apiKey.header()).hasValue("x-api-key");
        assertThat(apiKey.keys()).containsExactly(Map.entry("ci", HASH));
    }
}
