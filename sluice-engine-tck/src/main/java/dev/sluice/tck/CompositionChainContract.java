package dev.sluice.tck;

import static dev.sluice.tck.ChunkedWire.chunk;
import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Chained parts ({@code path: "/reviews?ids={product:/reviewIds}", after: product}): the later part
 * starts as soon as the value has streamed past in the earlier part, not when the earlier part ends,
 * with the value encoded in its path; a missing value or a failed earlier part makes it {@code null}
 * with the reason in {@code _meta}.
 */
public abstract class CompositionChainContract extends ContractFixture {

    /**
     * The product part sends its review ids, then holds the rest of its body until the reviews part
     * has been asked for (so it ends only if the chain started before it ended); the reviews part is
     * held until the test has read the whole product part at the client.
     */
    @Test
    void aChainedPartStartsAsItsValueStreamsPastAndTheEarlierPartReachesTheClientFirst() throws Exception {
        try (Chain chain = new Chain()) {
            try (TestGateway gw = gateway()
                            .upstream("chain", chain.uri())
                            .route(
                                    "page",
                                    on("/page"),
                                    compose()
                                            .timeout(Duration.ofSeconds(40))
                                            .part("product", "chain", "/product")
                                            .chainedPart(
                                                    "reviews",
                                                    "chain",
                                                    "/reviews/{product:/name}?ids={product:/reviewIds}",
                                                    null))
                            .start();
                    Socket socket = new Socket(InetAddress.getLoopbackAddress(), gw.port())) {
                socket.setSoTimeout(15_000);
                socket.getOutputStream()
                        .write("GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.UTF_8));
                InputStream in = new BufferedInputStream(socket.getInputStream());
                assertThat(ChunkedWire.head(in)).startsWith("HTTP/1.1 200 ");
                StringBuilder text = new StringBuilder();
                while (!text.toString().contains("\"tail\":true}")) {
                    byte[] chunk = chunk(in);
                    assertThat(chunk).as("the product part; so far: %s", text).isNotEmpty();
                    text.append(new String(chunk, StandardCharsets.UTF_8));
                }
                assertThat(chain.asked.getCount())
                        .as("reviews asked for before product ended")
                        .isZero();
                assertThat(chain.reviewsTarget.get()).isEqualTo("/reviews/lamp%20%22L%22?ids=3%2Ca%20b");
                assertThat(chain.released.getCount())
                        .as("the reviews part is still held")
                        .isOne();
                chain.released.countDown();
                for (byte[] chunk = chunk(in); chunk.length > 0; chunk = chunk(in)) {
                    text.append(new String(chunk, StandardCharsets.UTF_8));
                }
                Map<String, Object> all = Json.object(text.toString().getBytes(StandardCharsets.UTF_8));
                assertThat(Json.at(all, "product", "tail")).isEqualTo(true);
                assertThat(Json.at(all, "reviews", "n")).hasToString("2");
                assertThat(Json.at(all, "_meta", "failed")).isEqualTo(java.util.List.of());
            }
        }
    }

    @Test
    void aMissingValueOrAFailedEarlierPartMakesTheChainedPartNullWithItsReason() {
        String product = upstream.respond(200, "application/json", "{\"id\": 1, \"reviewIds\": {\"a\": 1}}");
        String broken = upstream.respond(500, "application/json", "{}");
        String reviews = upstream.respond(200, "application/json", "{\"n\": 2}");
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .part("product", APP, product)
                                .part("broken", APP, broken)
                                .chainedPart("missing", APP, reviews + "?x={product:/nothing}", null)
                                .chainedPart("object", APP, reviews + "?x={product:/reviewIds}", null)
                                .chainedPart("afterBroken", APP, reviews + "?x={broken:/id}", "broken")
                                .chainedPart("afterEnd", APP, reviews, "product"))
                .start()) {
            int before = upstream.exchanges();
            Composed composed = Composed.of(gw.wire().get("/page"));
            assertThat(composed.part("missing")).isEqualTo(Json.NULL);
            assertThat(composed.error("missing")).contains("no value at 'product:/nothing'");
            assertThat(composed.part("object")).isEqualTo(Json.NULL);
            assertThat(composed.error("object"))
                    .hasValueSatisfying(e -> assertThat(e).contains("'product:/reviewIds' is an object"));
            assertThat(composed.part("afterBroken")).isEqualTo(Json.NULL);
            assertThat(composed.error("afterBroken")).contains("part 'broken' failed: upstream status 500");
            assertThat(Json.at(composed.part("afterEnd"), "n")).hasToString("2");
            assertThat(upstream.exchanges() - before)
                    .as("product, broken and afterEnd: no chained part without its value")
                    .isEqualTo(3);
        }
    }

    /** An upstream whose product part waits, mid-body, for its reviews part to be asked for. */
    private static final class Chain implements AutoCloseable {
        final CountDownLatch asked = new CountDownLatch(1);
        final CountDownLatch released = new CountDownLatch(1);
        final AtomicReference<String> reviewsTarget = new AtomicReference<>();
        private final HttpServer server;

        Chain() throws IOException {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
            server.createContext("/product", exchange -> {
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, 0); // chunked
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes("{\"name\": \"lamp \\\"L\\\"\", \"reviewIds\": [3, \"a b\"], \"pad\": \""));
                    out.write(bytes("x".repeat(100) + "\","));
                    out.flush();
                    boolean chained = await(asked);
                    out.write(bytes("\"chained\": " + chained + ", \"tail\":true}"));
                }
            });
            server.createContext("/reviews", exchange -> {
                reviewsTarget.set(exchange.getRequestURI().getRawPath() + "?"
                        + exchange.getRequestURI().getRawQuery());
                asked.countDown();
                await(released);
                respond(exchange, "{\"n\": 2}");
            });
            server.start();
        }

        private static boolean await(CountDownLatch latch) {
            try {
                return latch.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        private static void respond(HttpExchange exchange, String json) throws IOException {
            byte[] body = bytes(json);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
        }

        @Override
        public void close() {
            asked.countDown();
            released.countDown();
            server.stop(0);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
