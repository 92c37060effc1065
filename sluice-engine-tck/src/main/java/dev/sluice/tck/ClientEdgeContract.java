package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static dev.sluice.tck.Routes.responseHeaders;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ComposeTarget;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * How the engines meet clients at the edges of HTTP/1.x, where they once answered differently: an
 * HTTP/1.0 client, a client that half-closes after its request, a filter that removes a header the
 * gateway itself would set.
 */
public abstract class ClientEdgeContract extends ContractFixture {

    private TestGateway.Builder routes() {
        return gateway()
                .route(
                        "c",
                        on("/c"),
                        compose().part("a", APP, "/json/10").part("b", APP, "/json/20"),
                        responseHeaders(Map.of(), List.of("content-type")))
                .route(
                        "json",
                        on("/json"),
                        compose()
                                .order(ComposeTarget.Order.DECLARED) // the wire order the test expects
                                .part("a", APP, "/json/10")
                                .part("b", APP, "/json/20"))
                .route("p", on("/p/**"), proxy(APP).stripPrefix("/p"));
    }

    @Test
    void anHttp10ClientGetsAComposedResponseEndedByTheClose() {
        try (TestGateway gw = routes().start()) {
            WireClient.RawExchange exchange =
                    gw.wire().sendRaw("GET /json HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), 1);
            WireResponse response = exchange.responses().getFirst();
            assertThat(response.status()).as("%s", response).isEqualTo(200);
            assertThat(response.header("transfer-encoding"))
                    .as("HTTP/1.0 has no chunked coding (RFC 9112 section 6.1)")
                    .isEmpty();
            assertThat(response.complete()).isTrue();
            Composed.closeDelimited(response)
                    .assertSpliced(
                            List.of(
                                    Map.entry("a", GeneratedBody.json(10).bytes()),
                                    Map.entry("b", GeneratedBody.json(20).bytes())),
                            List.of("a", "b"));
            assertThat(exchange.closed()).as("the close ends the body").isTrue();
        }
    }

    /**
     * A pipelined request that asks to close is answered in its turn, after the response under way
     * (Reactor Netty closed once that one ended, leaving it unanswered), with {@code Connection:
     * close}; then the connection closes and what followed it is not served (RFC 9112 section 9.6).
     */
    @Test
    void aPipelinedRequestThatAsksToCloseIsAnsweredThenTheConnectionCloses() {
        try (TestGateway gw = routes().start()) {
            String requests = "GET /p/json/31 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    + "GET /p/json/32 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                    + "GET /p/json/33 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
            WireClient.RawExchange exchange = gw.wire().sendRaw(requests.getBytes(StandardCharsets.ISO_8859_1), 2);
            assertThat(exchange.responses()).extracting(WireResponse::status).containsExactly(200, 200);
            assertThat(exchange.responses().get(0).body())
                    .isEqualTo(GeneratedBody.json(31).bytes());
            WireResponse last = exchange.responses().get(1);
            assertThat(last.body()).isEqualTo(GeneratedBody.json(32).bytes());
            assertThat(last.header("connection"))
                    .hasValueSatisfying(v -> assertThat(v).containsIgnoringCase("close"));
            assertThat(exchange.closed())
                    .as("closed after the request that asked, the third unread")
                    .isTrue();
        }
    }

    @Test
    void anHttp10ClientGetsAChunkedUpstreamBodyEndedByTheClose() {
        try (TestGateway gw = routes().start()) {
            WireClient.RawExchange exchange = gw.wire()
                    .sendRaw("GET /p/json/5000?chunked=1 HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), 1);
            WireResponse response = exchange.responses().getFirst();
            assertThat(response.status()).as("%s", response).isEqualTo(200);
            assertThat(response.header("transfer-encoding")).isEmpty();
            assertThat(response.framing()).isEqualTo("close");
            assertThat(response.body()).isEqualTo(GeneratedBody.json(5000).bytes());
            assertThat(exchange.closed()).isTrue();
        }
    }

    @Test
    void aResponseHeadersFilterRemovesTheContentTypeOfAComposition() {
        try (TestGateway gw = routes().start()) {
            WireResponse response = gw.wire().get("/c");
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.header("content-type"))
                    .as("removed by the route's filter")
                    .isEmpty();
        }
    }

    @Test
    void aClientThatHalfClosesAfterItsRequestIsAnswered() throws Exception {
        try (TestGateway gw = routes().start();
                Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), gw.port()), 10_000);
            socket.setSoTimeout(20_000);
            socket.getOutputStream()
                    .write(("GET /p/json/10 HTTP/1.1\r\nHost: " + gw.authority() + "\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.ISO_8859_1));
            socket.shutdownOutput(); // FIN after the request: it still wants its answer
            String answer = readAll(socket.getInputStream());
            assertThat(answer).startsWith("HTTP/1.1 200 ");
            assertThat(answer).endsWith(new String(GeneratedBody.json(10).bytes(), StandardCharsets.ISO_8859_1));
        }
    }

    /**
     * Fetched one after another with {@code on-error: fail}, a first part larger than {@code
     * read-ahead} can only end by being relayed, so the next part's status line cannot be awaited
     * before the response commits: it commits when the first part's read-ahead fills, at once, rather
     * than waiting out the route's timeout; a part that fails after that is {@code null}.
     */
    @Test
    void aSequentialFailFastCompositionCommitsWhenTheFirstPartFillsItsReadAhead() {
        try (TestGateway gw = gateway()
                .readAhead(16 * 1024)
                .route(
                        "seq",
                        on("/seq"),
                        compose()
                                .fanout(ComposeTarget.Fanout.SEQUENTIAL)
                                .onError(ComposeTarget.OnError.FAIL)
                                .timeout(Duration.ofSeconds(20))
                                .part("a", APP, "/json/200000")
                                .part("b", APP, "/json/10"))
                .route(
                        "seqFailing",
                        on("/seq-failing"),
                        compose()
                                .fanout(ComposeTarget.Fanout.SEQUENTIAL)
                                .onError(ComposeTarget.OnError.FAIL)
                                .timeout(Duration.ofSeconds(20))
                                .part("a", APP, "/json/200000")
                                .part("b", APP, "/json/10?status=500"))
                .start()) {
            WireResponse whole = gw.wire().get("/seq");
            Composed.of(whole)
                    .assertSpliced(
                            List.of(
                                    Map.entry("a", GeneratedBody.json(200000).bytes()),
                                    Map.entry("b", GeneratedBody.json(10).bytes())),
                            List.of("a", "b"));
            assertThat(whole.totalMillis()).as("not the route's 20 s timeout").isLessThan(10_000);

            // committed with the first part, the status can no longer say a later part failed: that
            // part is null and _meta names its failure, as with on-error: partial
            WireResponse failing = gw.wire().get("/seq-failing");
            Composed failed = Composed.of(failing);
            assertThat(failed.part("b")).isEqualTo(Json.NULL);
            assertThat(failed.error("b")).isPresent();
            assertThat(failing.totalMillis()).isLessThan(10_000);
        }
    }

    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        in.transferTo(bytes);
        return bytes.toString(StandardCharsets.ISO_8859_1);
    }
}
