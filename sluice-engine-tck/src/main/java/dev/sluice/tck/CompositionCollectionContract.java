package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Collection parts ({@code path: /item/{each}, each: "list:/ids", max, concurrency}): a call per
 * element of an array in an earlier part, relayed as one JSON array in the array's order, an
 * element's failure {@code null} with its reason in {@code _meta.<part>.elements[i]}, and no more
 * element calls in flight than {@code concurrency}, as the upstream sees them.
 */
public abstract class CompositionCollectionContract extends ContractFixture {

    private static final int ELEMENTS = 20;
    private static final int CONCURRENCY = 5;

    @Test
    void twentyElementsWithOneFailingAreOneArrayInOrderWithinTheConcurrencyBound() throws Exception {
        try (Items items = new Items(ELEMENTS, CONCURRENCY, 7)) {
            try (TestGateway gw = gateway()
                    .upstream("items", items.uri())
                    .route(
                            "page",
                            on("/page"),
                            compose()
                                    .timeout(Duration.ofSeconds(60))
                                    .part("list", "items", "/list")
                                    .collectionPart(
                                            "related",
                                            "items",
                                            "/item/{each}",
                                            "list:/ids",
                                            ELEMENTS,
                                            CONCURRENCY,
                                            false))
                    .start()) {
                Composed composed = Composed.of(gw.wire().get("/page"));
                List<?> related = (List<?>) composed.part("related");
                assertThat(related).hasSize(ELEMENTS);
                for (int i = 0; i < ELEMENTS; i++) {
                    if (i == 7) {
                        assertThat(related.get(i)).isEqualTo(Json.NULL);
                    } else {
                        assertThat(Json.at(related.get(i), "n"))
                                .as("element %s", i)
                                .hasToString("id " + i);
                    }
                }
                List<?> elements = (List<?>) composed.meta("parts", "related", "elements");
                assertThat(Json.at(elements.get(7), "error")).isEqualTo("upstream status 500");
                assertThat(Json.at(elements.get(8), "status")).hasToString("200");
                assertThat(composed.meta("failed")).isEqualTo(List.of());
                assertThat(items.maxInFlight())
                        .as("element calls in flight at once")
                        .isEqualTo(CONCURRENCY);
                assertThat(items.asked()).isEqualTo(ELEMENTS);
            }
        }
    }

    @Test
    void elementsPastMaxAreLeftOutAndCountedAMissingArrayIsNullAndQueryValuesFanOut() throws Exception {
        try (Items items = new Items(5, 1, 0)) {
            try (TestGateway gw = gateway()
                    .upstream("items", items.uri())
                    .route(
                            "page",
                            on("/page"),
                            compose()
                                    .part("list", "items", "/list")
                                    .collectionPart("first", "items", "/item/{each}", "list:/ids", 3, 2, true)
                                    .collectionPart("second", "items", "/item/{each}", "list:/ids", 2, 2, false)
                                    .collectionPart("none", "items", "/item/{each}", "list:/nothing", 3, 2, false)
                                    .collectionPart("asked", "items", "/item/{each}", "query:id", 3, 2, false))
                    .start()) {
                Composed composed = Composed.of(gw.wire().get("/page?id=id+3&x=1&id=id%204"));
                List<?> first = (List<?>) composed.part("first");
                assertThat(first).hasSize(3);
                assertThat(first)
                        .extracting(
                                e -> e == Json.NULL ? "null" : Json.at(e, "n").toString())
                        .containsExactlyInAnyOrder("null", "id 1", "id 2"); // as they answered
                List<?> second = (List<?>) composed.part("second");
                assertThat(second.get(0)).as("a failed first element").isEqualTo(Json.NULL);
                assertThat(Json.at(second.get(1), "n")).hasToString("id 1");
                assertThat(composed.meta("parts", "first", "skipped")).hasToString("2");
                assertThat(composed.part("none")).isEqualTo(Json.NULL);
                assertThat(composed.error("none")).contains("no value at 'list:/nothing'");
                assertThat(composed.part("asked"))
                        .asList()
                        .extracting(e -> Json.at(e, "n").toString())
                        .containsExactly("id 3", "id 4"); // a repeated query parameter's values, in order
                assertThat(items.asked()).isEqualTo(7);
            }
        }
    }

    /**
     * {@code /list}: {@code {"ids": ["id 0", ...]}}; {@code /item/<id>}: {@code {"n": "<id>"}}, or a
     * 500 for the failing one. An item call waits until {@code bound} calls are in flight (or every
     * element has been asked for), so a gateway that keeps its bound reaches it and one that does not
     * exceeds it.
     */
    private static final class Items implements AutoCloseable {
        private final HttpServer server;
        private final int total;
        private final int bound;
        private int inFlight; // guarded by this
        private int max; // guarded by this
        private int asked; // guarded by this

        Items(int total, int bound, int failing) throws IOException {
            this.total = total;
            this.bound = bound;
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
            server.createContext("/list", exchange -> {
                StringBuilder ids = new StringBuilder("{\"ids\": [");
                for (int i = 0; i < total; i++) {
                    ids.append(i == 0 ? "" : ", ").append("\"id ").append(i).append('"');
                }
                respond(exchange, 200, ids.append("]}").toString());
            });
            server.createContext("/item/", exchange -> {
                String id = exchange.getRequestURI().getPath().substring("/item/".length());
                arrive();
                leave(); // before the answer: once it is sent, the gateway may start the next call at once
                respond(exchange, id.equals("id " + failing) ? 500 : 200, "{\"n\": \"" + id + "\"}");
            });
            server.start();
        }

        private synchronized void arrive() {
            inFlight++;
            asked++;
            max = Math.max(max, inFlight);
            notifyAll();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (inFlight < bound && asked < total) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return; // the bound was never reached: maxInFlight says so
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }

        private synchronized void leave() {
            inFlight--;
        }

        synchronized int maxInFlight() {
            return max;
        }

        synchronized int asked() {
            return asked;
        }

        private static void respond(HttpExchange exchange, int status, String json) throws IOException {
            byte[] body = json.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }
}
