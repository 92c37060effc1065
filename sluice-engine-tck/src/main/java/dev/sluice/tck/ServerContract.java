package dev.sluice.tck;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The listening side: keep-alive, and what close() waits for. */
public abstract class ServerContract extends ContractFixture {

    @Test
    void keepAliveServesSeveralRequestsOnOneConnection() {
        try (TestGateway gw = gateway()
                .route("pass", on("/p/**"), proxy(APP).stripPrefix("/p"))
                .start()) {
            List<WireResponse> responses = gw.wire()
                    .sendAll(List.of(
                            WireRequest.get("/p/json/10"),
                            WireRequest.of("POST", "/p/echo/x").body("abc".getBytes()),
                            WireRequest.get("/p/bytes/70000?chunked=1"),
                            WireRequest.get("/nowhere")));
            assertThat(responses.get(0).body())
                    .containsExactly(GeneratedBody.json(10).bytes());
            assertThat(responses.get(1).bodyText()).isEqualTo("abc");
            assertThat(responses.get(2).sha256())
                    .isEqualTo(GeneratedBody.binary(70000).sha256());
            assertError(responses.get(3), 404, "not_found");
        }
    }

    @Test
    void closeLetsAnInFlightRequestFinishThenStopsAccepting() throws Exception {
        String tag = UUID.randomUUID().toString();
        TestGateway gw = gateway()
                .shutdownGrace(Duration.ofSeconds(10))
                .route("pass", on("/p/**"), proxy(APP).stripPrefix("/p"))
                .start();
        try {
            int port = gw.port();
            CompletableFuture<WireResponse> inFlight = CompletableFuture.supplyAsync(
                    () -> gw.wire().get("/p/json/1000?delay=800&tag=" + tag),
                    r -> Thread.ofVirtual().start(r));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!upstream.started(tag) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(upstream.started(tag))
                    .as("the request reached the upstream")
                    .isTrue();
            gw.close();
            WireResponse response = inFlight.get(20, TimeUnit.SECONDS);
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.complete()).as("%s", response).isTrue();
            assertThat(response.body()).containsExactly(GeneratedBody.json(1000).bytes());
            assertThat(ListeningSockets.awaitNotListening(port, Duration.ofSeconds(10)))
                    .as("a closed gateway no longer listens on %d", port)
                    .isTrue();
        } finally {
            gw.close();
        }
    }

    @Test
    void closeDoesNotWaitTheGraceForIdleConnections() throws Exception {
        TestGateway gw = gateway()
                .shutdownGrace(Duration.ofSeconds(20))
                .route("pass", on("/p/**"), proxy(APP).stripPrefix("/p"))
                .start();
        try (Socket idle = new Socket(InetAddress.getLoopbackAddress(), gw.port())) {
            idle.setSoTimeout(10_000);
            idle.getOutputStream()
                    .write(("GET /p/bytes/0 HTTP/1.1\r\nHost: " + gw.authority() + "\r\n\r\n")
                            .getBytes(StandardCharsets.ISO_8859_1));
            String head = readHead(idle.getInputStream());
            assertThat(head).startsWith("HTTP/1.1 200").doesNotContainIgnoringCase("connection: close");
            // the connection is now idle and kept alive
            long start = System.nanoTime();
            gw.close();
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(millis)
                    .as("close() with only an idle connection open, grace 20 s")
                    .isLessThan(10_000);
        } finally {
            gw.close();
        }
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                break;
            }
            head.append((char) c);
        }
        return head.toString();
    }
}
