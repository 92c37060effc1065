package dev.sluice.auth;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.sluice.policy.GivenRequest;
import dev.sluice.policy.InboundPolicy;
import java.time.Instant;
import java.util.Date;
import java.util.Map;

/** Keys generated for a test, and the tokens an identity provider would sign with them. */
final class Tokens {

    static final Instant NOW = Instant.parse("2026-01-01T10:00:00Z");

    private Tokens() {}

    static RSAKey rsa(String kid) {
        try {
            return new RSAKeyGenerator(2048).keyID(kid).generate();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    static ECKey ec(String kid) {
        try {
            return new ECKeyGenerator(Curve.P_256).keyID(kid).generate();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Claims valid at {@link #NOW}: issuer {@code https://idp.test/}, audience {@code shop}, subject {@code alice}. */
    static JWTClaimsSet.Builder claims() {
        return new JWTClaimsSet.Builder()
                .issuer("https://idp.test/")
                .audience("shop")
                .subject("alice")
                .issueTime(Date.from(NOW.minusSeconds(10)))
                .expirationTime(Date.from(NOW.plusSeconds(300)));
    }

    static String sign(JWK key, JWSAlgorithm alg, JWTClaimsSet claims) {
        try {
            JWSSigner signer = switch (key) {
                case RSAKey r -> new RSASSASigner(r);
                case ECKey e -> new ECDSASigner(e);
                default -> throw new IllegalArgumentException(key.getKeyType().toString());
            };
            SignedJWT jwt = new SignedJWT(
                    new JWSHeader.Builder(alg).keyID(key.getKeyID()).build(), claims);
            jwt.sign(signer);
            return jwt.serialize();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    static String hmac(byte[] secret, JWSAlgorithm alg, JWTClaimsSet claims) {
        try {
            SignedJWT jwt = new SignedJWT(new JWSHeader(alg), claims);
            jwt.sign(new MACSigner(secret));
            return jwt.serialize();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A request with these headers (and no query) on route {@code r}. */
    static InboundPolicy.Inbound request(Map<String, String> headers) {
        return request(headers, null);
    }

    static InboundPolicy.Inbound request(Map<String, String> headers, String query) {
        return new GivenRequest("GET", "/orders", "r", query, "127.0.0.1", headers, Map.of());
    }

    static InboundPolicy.Inbound bearer(String token) {
        return request(Map.of("Authorization", "Bearer " + token));
    }
}
