package dev.sluice.auth;

import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An identity provider's JWKS endpoint on 127.0.0.1, port 0: serves the public keys it is given at
 * {@code /jwks.json}, counts the fetches, and can fail (503) like an IdP that is down, its port
 * kept bound.
 */
final class JwksServer implements AutoCloseable {

    private final HttpServer server;
    private final AtomicReference<JWKSet> keys = new AtomicReference<>(new JWKSet());
    private final AtomicInteger fetches = new AtomicInteger();
    private final AtomicBoolean down = new AtomicBoolean();

    private JwksServer(HttpServer server) {
        this.server = server;
    }

    static JwksServer start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            JwksServer jwks = new JwksServer(server);
            server.createContext("/jwks.json", exchange -> {
                jwks.fetches.incrementAndGet();
                byte[] body;
                int status;
                if (jwks.down.get()) {
                    status = 503;
                    body = "{\"error\":\"down\"}".getBytes(StandardCharsets.UTF_8);
                } else {
                    status = 200;
                    body = jwks.keys.get().toString(true).getBytes(StandardCharsets.UTF_8);
                }
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(status, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            });
            server.start();
            return jwks;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/jwks.json");
    }

    /** Serves these keys' public parts from now on. */
    void serve(JWK... served) {
        keys.set(new JWKSet(List.of(served)).toPublicJWKSet());
    }

    void down(boolean isDown) {
        down.set(isDown);
    }

    int fetches() {
        return fetches.get();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
