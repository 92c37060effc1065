package dev.sluice.tck;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test identity provider: an EC (P-256, ES256) key generated at start (an RSA one takes seconds to
 * generate on a busy machine), its public half served as a JWKS at
 * {@code /jwks.json} on 127.0.0.1 (port 0, bound until closed), and tokens signed with it.
 */
public final class JwksEndpoint implements AutoCloseable {

    /** The issuer of every token: {@code https://idp.test/}. */
    public static final String ISSUER = "https://idp.test/";

    private final HttpServer server;
    private final ECKey key;
    private final AtomicInteger fetches = new AtomicInteger();

    private JwksEndpoint(HttpServer server, ECKey key) {
        this.server = server;
        this.key = key;
    }

    public static JwksEndpoint start() {
        try {
            ECKey key = new ECKeyGenerator(Curve.P_256).keyID("k1").generate();
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            JwksEndpoint endpoint = new JwksEndpoint(server, key);
            byte[] body = new JWKSet(key.toPublicJWK()).toString(true).getBytes(StandardCharsets.UTF_8);
            server.createContext("/jwks.json", exchange -> {
                endpoint.fetches.incrementAndGet();
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            });
            server.start();
            return endpoint;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (JOSEException e) {
            throw new IllegalStateException("an EC key could not be generated", e);
        }
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/jwks.json");
    }

    /** How many times the JWKS was fetched. */
    public int fetches() {
        return fetches.get();
    }

    /**
     * A token for {@code subject}, audience {@code audience}, valid for five minutes, with {@code
     * claims} besides.
     */
    public String token(String subject, String audience, Map<String, Object> claims) {
        JWTClaimsSet.Builder set = new JWTClaimsSet.Builder()
                .issuer(ISSUER)
                .subject(subject)
                .audience(audience)
                .issueTime(new Date())
                .expirationTime(Date.from(Instant.now().plusSeconds(300)));
        claims.forEach(set::claim);
        try {
            SignedJWT jwt = new SignedJWT(
                    new JWSHeader.Builder(JWSAlgorithm.ES256)
                            .keyID(key.getKeyID())
                            .build(),
                    set.build());
            jwt.sign(new ECDSASigner(key));
            return jwt.serialize();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
