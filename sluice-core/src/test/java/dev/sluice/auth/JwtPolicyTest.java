package dev.sluice.auth;

import static dev.sluice.auth.Tokens.NOW;
import static dev.sluice.auth.Tokens.bearer;
import static dev.sluice.auth.Tokens.claims;
import static dev.sluice.auth.Tokens.sign;
import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.util.Base64URL;
import dev.sluice.config.FilterConfig;
import dev.sluice.policy.Decision;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JWT policy against a real JWKS served over HTTP on loopback, with RSA and EC keys generated
 * here. Token times are checked against a fixed clock; the JWKS cache runs on nimbus' own clock.
 */
class JwtPolicyTest {

    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    // generated once: an RSA key takes seconds on a busy machine
    private static final RSAKey rsa = Tokens.rsa("r1");
    private static final ECKey ec = Tokens.ec("e1");
    private JwksServer idp;
    private ExecutorService fetches;

    @BeforeEach
    void start() {
        idp = JwksServer.start();
        idp.serve(rsa, ec);
        fetches = Executors.newVirtualThreadPerTaskExecutor();
    }

    @AfterEach
    void stop() {
        idp.close();
        fetches.close();
    }

    private static FilterConfig.Jwt config(FilterConfig.Jwt.Keys keys, List<FilterConfig.Jwt.ClaimRule> rules) {
        return new FilterConfig.Jwt(
                keys,
                Optional.of("https://idp.test/"),
                List.of("shop", "admin-ui"),
                rules,
                Duration.ofSeconds(60),
                FilterConfig.Jwt.ASYMMETRIC_DEFAULT,
                Map.of("sub", "x-user-id"));
    }

    private JwtPolicy remote(Duration cache, List<FilterConfig.Jwt.ClaimRule> rules) throws Exception {
        JwtKeys keys = new JwtKeys.Remote(idp.url().toURL(), cache, fetches, System::nanoTime);
        return new JwtPolicy(config(new FilterConfig.Jwt.JwksUrl(idp.url(), cache), rules), keys, CLOCK, fetches);
    }

    private JwtPolicy remote() throws Exception {
        return remote(Duration.ofMinutes(5), List.of());
    }

    private static Decision decided(Decision decision) throws Exception {
        if (decision instanceof Decision.Pending pending) {
            return pending.decision().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        return decision;
    }

    private static Decision.Reject refused(Decision decision, int status, String code) throws Exception {
        Decision d = decided(decision);
        assertThat(d).as("decision").isInstanceOf(Decision.Reject.class);
        Decision.Reject reject = (Decision.Reject) d;
        assertThat(reject.status()).isEqualTo(status);
        assertThat(reject.code()).isEqualTo(code);
        return reject;
    }

    private static void invalidToken(Decision decision, String description) throws Exception {
        Decision.Reject reject = refused(decision, 401, "invalid_token");
        assertThat(reject.message()).contains(description);
        assertThat(reject.headers().get("WWW-Authenticate"))
                .startsWith("Bearer error=\"invalid_token\", error_description=\"")
                .contains(description);
    }

    @Test
    void rsaAndEcTokensProceedWithTheirClaimsAsAttributesAndHeaders() throws Exception {
        JwtPolicy policy = remote();
        for (String token : List.of(
                sign(rsa, JWSAlgorithm.RS256, claims().build()), sign(ec, JWSAlgorithm.ES256, claims().build()))) {
            Decision d = decided(policy.admit(bearer(token)));
            assertThat(d).isInstanceOf(Decision.Proceed.class);
            Decision.Proceed p = (Decision.Proceed) d;
            assertThat(p.attributes())
                    .containsEntry("claim:sub", "alice")
                    .containsEntry("claim:iss", "https://idp.test/")
                    .containsEntry("claim:aud", "shop");
            assertThat(p.edits().set()).containsExactly(Map.entry("x-user-id", "alice"));
            assertThat(p.edits().removes("X-User-Id")).isTrue();
        }
        assertThat(idp.fetches()).as("one fetch of the key set").isEqualTo(1);
    }

    @Test
    void theFirstTokenWaitsForTheKeySetOffTheCallersThreadAndLaterOnesDoNot() throws Exception {
        JwtPolicy policy = remote();
        String token = sign(rsa, JWSAlgorithm.RS256, claims().build());
        Decision first = policy.admit(bearer(token));
        assertThat(first).as("nothing cached: the fetch is pending").isInstanceOf(Decision.Pending.class);
        assertThat(decided(first)).isInstanceOf(Decision.Proceed.class);
        Decision second = policy.admit(bearer(token));
        assertThat(second).as("cached: decided at once").isInstanceOf(Decision.Proceed.class);
        assertThat(idp.fetches()).isEqualTo(1);
    }

    @Test
    void aRotatedKeyIsAcceptedOnceTheUnknownKidMadeItFetchTheSetAgain() throws Exception {
        JwtPolicy policy = remote();
        assertThat(decided(policy.admit(bearer(sign(rsa, JWSAlgorithm.RS256, claims().build())))))
                .isInstanceOf(Decision.Proceed.class);
        RSAKey rotated = Tokens.rsa("r2");
        idp.serve(rotated, rsa);
        Decision d = policy.admit(bearer(sign(rotated, JWSAlgorithm.RS256, claims().build())));
        assertThat(d).as("an unknown kid is pending: a fetch").isInstanceOf(Decision.Pending.class);
        assertThat(decided(d)).isInstanceOf(Decision.Proceed.class);
        assertThat(idp.fetches()).isEqualTo(2);
        assertThat(policy.admit(bearer(sign(rotated, JWSAlgorithm.RS256, claims().build()))))
                .as("the new key is cached now")
                .isInstanceOf(Decision.Proceed.class);
    }

    @Test
    void aKidTheIdpDoesNotHaveIsRefusedAndTheRefetchesAreBounded() throws Exception {
        JwtPolicy policy = remote();
        RSAKey stranger = Tokens.rsa("nobody");
        for (int i = 0; i < 6; i++) {
            invalidToken(policy.admit(bearer(sign(stranger, JWSAlgorithm.RS256, claims().build()))), "no key");
        }
        assertThat(idp.fetches()).as("rate-limited: two fetches per interval").isLessThanOrEqualTo(2);
    }

    @Test
    void whileTheIdpIsDownTheCachedKeysAreStillAccepted() throws Exception {
        JwtPolicy policy = remote(Duration.ofSeconds(1), List.of());
        String token = sign(ec, JWSAlgorithm.ES256, claims().build());
        assertThat(decided(policy.admit(bearer(token)))).isInstanceOf(Decision.Proceed.class);
        idp.down(true);
        int before = idp.fetches();
        long end = System.nanoTime() + 10_000_000_000L;
        while (idp.fetches() == before) { // the cache expired and nimbus asked the IdP again
            // a new token each time (ECDSA signatures differ): a remembered one would not ask for keys
            assertThat(decided(policy.admit(bearer(sign(ec, JWSAlgorithm.ES256, claims().build())))))
                    .isInstanceOf(Decision.Proceed.class);
            assertThat(System.nanoTime() - end)
                    .as("the IdP was asked again within 10 s")
                    .isNegative();
            Thread.sleep(100);
        }
        assertThat(decided(policy.admit(bearer(sign(ec, JWSAlgorithm.ES256, claims().build())))))
                .as("the IdP fails: the cached keys are served")
                .isInstanceOf(Decision.Proceed.class);
    }

    @Test
    void whileTheIdpIsDownAndNothingIsCachedEveryTokenIs503UntilItIsBack() throws Exception {
        idp.down(true);
        JwtPolicy policy = remote(Duration.ofSeconds(1), List.of());
        for (int i = 0; i < 8; i++) { // past nimbus' two refetches per interval: rate limited, still 503
            String token = sign(ec, JWSAlgorithm.ES256, claims().build());
            Decision.Reject reject = refused(policy.admit(bearer(token)), 503, "keys_unavailable");
            assertThat(reject.headers()).containsEntry("Retry-After", "5");
        }
        int asked = idp.fetches();
        assertThat(asked)
                .as("fetches during the outage: bounded, not one per token")
                .isLessThan(8);
        idp.down(false);
        long end = System.nanoTime() + 10_000_000_000L;
        while (!(decided(policy.admit(bearer(sign(ec, JWSAlgorithm.ES256, claims().build()))))
                instanceof Decision.Proceed)) {
            assertThat(System.nanoTime() - end)
                    .as("admitted within 10 s of the IdP's return")
                    .isNegative();
            Thread.sleep(100);
        }
    }

    @Test
    void aRememberedTokenIsRefusedOnceItExpiresAndATamperedCopyIsNeverTakenForIt() throws Exception {
        java.util.concurrent.atomic.AtomicReference<java.time.Instant> now =
                new java.util.concurrent.atomic.AtomicReference<>(NOW);
        Clock moving = new Clock() {
            @Override
            public java.time.ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public java.time.Instant instant() {
                return now.get();
            }
        };
        JwtKeys keys = new JwtKeys.Remote(idp.url().toURL(), Duration.ofMinutes(5), fetches, System::nanoTime);
        JwtPolicy policy = new JwtPolicy(
                config(new FilterConfig.Jwt.JwksUrl(idp.url(), Duration.ofMinutes(5)), List.of()),
                keys,
                moving,
                fetches);
        String token = sign(
                rsa,
                JWSAlgorithm.RS256,
                claims().expirationTime(Date.from(NOW.plusSeconds(30))).build());
        assertThat(decided(policy.admit(bearer(token)))).isInstanceOf(Decision.Proceed.class);
        assertThat(decided(policy.admit(bearer(token)))).as("remembered").isInstanceOf(Decision.Proceed.class);
        String tampered = token.substring(0, token.length() - 2) + (token.endsWith("A") ? "BB" : "AA");
        invalidToken(policy.admit(bearer(tampered)), "signature");
        now.set(NOW.plusSeconds(30 + 61)); // past exp and the 60 s skew
        invalidToken(policy.admit(bearer(token)), "expired");
    }

    @Test
    void expiredNotYetValidWrongAudienceAndWrongIssuerAreRefused() throws Exception {
        JwtPolicy policy = remote();
        invalidToken(
                policy.admit(bearer(sign(
                        rsa,
                        JWSAlgorithm.RS256,
                        claims().expirationTime(Date.from(NOW.minusSeconds(61))).build()))),
                "expired");
        assertThat(decided(policy.admit(bearer(sign(
                        rsa,
                        JWSAlgorithm.RS256,
                        claims().expirationTime(Date.from(NOW.minusSeconds(59))).build())))))
                .as("within the clock skew")
                .isInstanceOf(Decision.Proceed.class);
        invalidToken(
                policy.admit(bearer(sign(
                        rsa,
                        JWSAlgorithm.RS256,
                        claims().notBeforeTime(Date.from(NOW.plusSeconds(120))).build()))),
                "not valid yet");
        invalidToken(
                policy.admit(bearer(sign(
                        rsa, JWSAlgorithm.RS256, claims().audience("billing").build()))),
                "audience");
        assertThat(decided(policy.admit(bearer(sign(
                        rsa,
                        JWSAlgorithm.RS256,
                        claims().audience(List.of("billing", "admin-ui")).build())))))
                .as("one of its audiences is accepted")
                .isInstanceOf(Decision.Proceed.class);
        invalidToken(
                policy.admit(bearer(sign(
                        rsa,
                        JWSAlgorithm.RS256,
                        claims().issuer("https://evil.test/").build()))),
                "issuer");
        invalidToken(
                policy.admit(bearer(sign(
                        rsa, JWSAlgorithm.RS256, claims().expirationTime(null).build()))),
                "no expiry");
    }

    @Test
    void aTamperedTokenAnUnsignedOneAndAnHmacOneSignedWithThePublicKeyAreRefused() throws Exception {
        JwtPolicy policy = remote();
        String token = sign(rsa, JWSAlgorithm.RS256, claims().build());
        String[] parts = token.split("\\.");
        String forged =
                Base64URL.encode(claims().subject("mallory").build().toString()).toString();
        invalidToken(policy.admit(bearer(parts[0] + "." + forged + "." + parts[2])), "signature");

        String none = Base64URL.encode("{\"alg\":\"none\"}") + "." + parts[1] + ".";
        invalidToken(policy.admit(bearer(none)), "not a signed JWT");

        byte[] publicKey = rsa.toPublicJWK().toJSONString().getBytes(StandardCharsets.UTF_8);
        String confused = Tokens.hmac(publicKey, JWSAlgorithm.HS256, claims().build());
        invalidToken(policy.admit(bearer(confused)), "algorithm is not accepted");

        invalidToken(policy.admit(bearer("not.a.jwt")), "not a signed JWT");
        assertThat(decided(policy.admit(bearer(token)))).isInstanceOf(Decision.Proceed.class);
    }

    @Test
    void withoutABearerTokenTheChallengeCarriesNoError() throws Exception {
        JwtPolicy policy = remote();
        for (Map<String, String> headers :
                List.of(Map.<String, String>of(), Map.of("Authorization", "Basic YWxpY2U6c2VjcmV0"))) {
            Decision.Reject reject = refused(policy.admit(Tokens.request(headers)), 401, "unauthorized");
            assertThat(reject.headers()).containsEntry("WWW-Authenticate", "Bearer");
        }
        String token = sign(rsa, JWSAlgorithm.RS256, claims().build());
        assertThat(decided(policy.admit(Tokens.request(Map.of("Authorization", "bEaReR " + token)))))
                .as("the scheme in any case")
                .isInstanceOf(Decision.Proceed.class);
        assertThat(idp.fetches()).as("no fetch for a request without a token").isEqualTo(1);
    }

    @Test
    void aTokenThatFailsAClaimRuleIsForbidden() throws Exception {
        JwtPolicy policy = remote(
                Duration.ofMinutes(5),
                List.of(
                        new FilterConfig.Jwt.ClaimRule("email", List.of()),
                        new FilterConfig.Jwt.ClaimRule("scope", List.of("orders:write"))));
        String readOnly = sign(
                rsa,
                JWSAlgorithm.RS256,
                claims().claim("email", "a@x.test")
                        .claim("scope", "orders:read")
                        .build());
        Decision.Reject reject = refused(policy.admit(bearer(readOnly)), 403, "insufficient_scope");
        assertThat(reject.headers().get("WWW-Authenticate"))
                .startsWith("Bearer error=\"insufficient_scope\"")
                .contains("orders:write");
        refused(
                policy.admit(bearer(sign(
                        rsa,
                        JWSAlgorithm.RS256,
                        claims().claim("scope", "orders:write").build()))),
                403,
                "insufficient_scope");
        String writer = sign(
                rsa,
                JWSAlgorithm.RS256,
                claims().claim("email", "a@x.test")
                        .claim("scope", "orders:read orders:write")
                        .build());
        assertThat(decided(policy.admit(bearer(writer)))).isInstanceOf(Decision.Proceed.class);
    }

    @Test
    void anHmacSecretAcceptsItsOwnTokensAndNoRsaOnes() throws Exception {
        byte[] secret = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);
        FilterConfig.Jwt config = new FilterConfig.Jwt(
                new FilterConfig.Jwt.Secret("S", secret),
                Optional.empty(),
                List.of(),
                List.of(),
                Duration.ofSeconds(60),
                FilterConfig.Jwt.HMAC_DEFAULT,
                Map.of());
        JwtPolicy policy = new JwtPolicy(config, JwtPolicy.keys(config.keys()), CLOCK, fetches);
        assertThat(policy.admit(bearer(Tokens.hmac(secret, JWSAlgorithm.HS256, claims().build()))))
                .isInstanceOf(Decision.Proceed.class);
        byte[] other = "another-secret-another-secret-xx".getBytes(StandardCharsets.UTF_8);
        invalidToken(policy.admit(bearer(Tokens.hmac(other, JWSAlgorithm.HS256, claims().build()))), "signature");
        invalidToken(
                policy.admit(bearer(sign(rsa, JWSAlgorithm.RS256, claims().build()))), "algorithm is not accepted");
    }

    @Test
    void aClaimWithControlCharactersNeverBecomesAHeader() throws Exception {
        JwtPolicy policy = remote();
        String token = sign(
                rsa, JWSAlgorithm.RS256, claims().subject("alice\r\nx-admin: 1").build());
        Decision.Proceed p = (Decision.Proceed) decided(policy.admit(bearer(token)));
        assertThat(p.edits().set()).isEmpty();
        assertThat(p.edits().removes("x-user-id"))
                .as("the client's copy is still removed")
                .isTrue();
    }

    @Test
    void aJwksFileVerifiesWithoutAnyFetch(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("jwks.json");
        Files.writeString(file, new JWKSet(List.of(ec, rsa)).toString(false)); // private parts are ignored
        FilterConfig.Jwt config = config(new FilterConfig.Jwt.JwksFile(file), List.of());
        JwtPolicy policy = new JwtPolicy(config, JwtPolicy.keys(config.keys()), CLOCK, fetches);
        assertThat(policy.admit(bearer(sign(ec, JWSAlgorithm.ES256, claims().build()))))
                .isInstanceOf(Decision.Proceed.class);
        assertThat(policy.admit(bearer(sign(rsa, JWSAlgorithm.RS256, claims().build()))))
                .isInstanceOf(Decision.Proceed.class);
        invalidToken(policy.admit(bearer(sign(Tokens.ec("e2"), JWSAlgorithm.ES256, claims().build()))), "no key");
        assertThat(idp.fetches()).isZero();
    }

    @Test
    void theKeySetIsRefreshedInTheBackgroundAheadOfItsExpiry() throws Exception {
        JwtPolicy policy = remote(Duration.ofSeconds(4), List.of()); // refreshed from 1 s before expiry
        String token = sign(rsa, JWSAlgorithm.RS256, claims().build());
        long start = System.nanoTime();
        assertThat(decided(policy.admit(bearer(token)))).isInstanceOf(Decision.Proceed.class);
        ECKey added = Tokens.ec("e-added");
        idp.serve(rsa, ec, added);
        Thread.sleep(3_300); // inside the refresh-ahead window, before expiry
        String another = sign(rsa, JWSAlgorithm.RS256, claims().jwtID("another").build()); // not remembered
        assertThat(decided(policy.admit(bearer(another)))).isInstanceOf(Decision.Proceed.class);
        Assumptions.assumeTrue(
                System.nanoTime() - start < 3_900_000_000L, "the machine was too slow to be inside the window");
        long end = System.nanoTime() + 5_000_000_000L;
        while (idp.fetches() < 2) {
            assertThat(System.nanoTime() - end).as("refreshed within 5 s").isNegative();
            Thread.sleep(20);
        }
        assertThat(decided(policy.admit(bearer(sign(added, JWSAlgorithm.ES256, claims().build())))))
                .isInstanceOf(Decision.Proceed.class);
        assertThat(idp.fetches())
                .as("the added key came with the background refresh, not a fetch of its own")
                .isEqualTo(2);
    }
}
