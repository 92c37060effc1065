package dev.sluice.tck;

import static dev.sluice.tck.ChunkedWire.chunk;
import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.compose.JsonValidator;
import dev.sluice.config.ComposeTarget.Order;
import dev.sluice.config.PartConfig.Shaping;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.AbstractMap.SimpleEntry;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/**
 * Parts shaped as they stream ({@code select}, {@code exclude}, {@code rename}, {@code take}): the
 * relayed bytes, {@code _meta}'s reasons for a part that cannot be shaped, and memory bounded
 * whatever a shaped part's size.
 */
public abstract class CompositionShapingContract extends ContractFixture {

    private static final String PRODUCT = "{ \"id\": 7, \"name\": \"lamp \\\"L\\\" caf\u00e9\", \"price\": 9.5,"
            + " \"stock\": {\"n\": 3, \"where\": [\"a\", \"b\"]},"
            + " \"images\": [ {\"url\": \"/1.png\", \"w\": 10}, {\"w\": 20, \"url\": \"/2.png\"} ] }";

    static Shaping shaping(List<String> select, List<String> exclude, Map<String, String> rename, String take) {
        return new Shaping(select, exclude, rename, Optional.ofNullable(take), Shaping.DEFAULT_MAX_KEY_BYTES);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void eachPartIsShapedAsConfigured() {
        String product = upstream.respond(200, "application/json", PRODUCT);
        String wrapped =
                upstream.respond(200, "application/json", "{\"data\": {\"items\": [1, {\"x\": null}]}, \"n\": 2}");
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .order(Order.DECLARED)
                                .part(
                                        "selected",
                                        APP,
                                        product,
                                        shaping(List.of("name", "price", "images[*].url"), List.of(), Map.of(), null))
                                .part(
                                        "excluded",
                                        APP,
                                        product,
                                        shaping(
                                                List.of(),
                                                List.of("images", "stock.where"),
                                                Map.of("price", "cost"),
                                                null))
                                .part("taken", APP, wrapped, shaping(List.of(), List.of(), Map.of(), "/data/items"))
                                .part("plain", APP, wrapped))
                .start()) {
            Composed.of(gw.wire().get("/page"))
                    .assertSpliced(
                            List.of(
                                    Map.entry(
                                            "selected",
                                            utf8("{\"name\":\"lamp \\\"L\\\" caf\u00e9\",\"price\":9.5,"
                                                    + "\"images\":[{\"url\":\"/1.png\"},{\"url\":\"/2.png\"}]}")),
                                    Map.entry(
                                            "excluded",
                                            utf8("{\"id\":7,\"name\":\"lamp \\\"L\\\" caf\u00e9\",\"cost\":9.5,"
                                                    + "\"stock\":{\"n\":3}}")),
                                    Map.entry("taken", utf8("[1, {\"x\": null}]")),
                                    Map.entry("plain", utf8("{\"data\": {\"items\": [1, {\"x\": null}]}, \"n\": 2}"))),
                            List.of("selected", "excluded", "taken", "plain"));
        }
    }

    @Test
    void aLargeChunkedPartIsShapedAcrossReads() {
        int n = 5000;
        StringBuilder body = new StringBuilder("[");
        StringBuilder expected = new StringBuilder("[");
        for (int i = 0; i < n; i++) {
            String sep = i == 0 ? "" : ",";
            body.append(sep)
                    .append("{\"pad\":\"")
                    .append("x\\\"y".repeat(20))
                    .append("\",\"id\":")
                    .append(i)
                    .append(",\"tags\":[{\"k\":")
                    .append(i % 7)
                    .append(",\"v\":true}]}");
            expected.append(sep)
                    .append("{\"id\":")
                    .append(i)
                    .append(",\"tags\":[{\"k\":")
                    .append(i % 7)
                    .append("}]}");
        }
        body.append("]");
        expected.append("]");
        String big = upstream.respond(200, "application/json", body.toString());
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .part(
                                        "items",
                                        APP,
                                        big,
                                        shaping(List.of("id", "tags[*].k"), List.of(), Map.of(), null)))
                .start()) {
            Composed.of(gw.wire().get("/page"))
                    .assertSpliced(List.of(Map.entry("items", utf8(expected.toString()))), List.of("items"));
        }
    }

    @Test
    void anAbsentTakePointerIsNullWithItsReasonInMeta() {
        String wrapped = upstream.respond(200, "application/json", "{\"data\": {\"items\": []}}");
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .order(Order.DECLARED)
                                .part("missing", APP, wrapped, shaping(List.of(), List.of(), Map.of(), "/data/other"))
                                .part("ok", APP, wrapped, shaping(List.of(), List.of(), Map.of(), "/data")))
                .start()) {
            Composed composed = Composed.of(gw.wire().get("/page"))
                    .assertSpliced(
                            List.of(new SimpleEntry<>("missing", null), Map.entry("ok", utf8("{\"items\": []}"))),
                            List.of("missing", "ok"));
            assertThat(composed.error("missing")).contains("take: no value at '/data/other'");
        }
    }

    @Test
    void invalidJsonInAShapedPartIsNullAsValidateJsonReportsIt() {
        String bad = "{\"a\": [1, }";
        JsonValidator validator = new JsonValidator();
        validator.feed(utf8(bad), 0, bad.length());
        validator.finish();
        String broken = upstream.respond(200, "application/json", bad);
        String longKey = upstream.respond(200, "application/json", "{\"a\": 1, \"" + "k".repeat(100) + "\": 2}");
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .order(Order.DECLARED)
                                .part("broken", APP, broken, shaping(List.of("a"), List.of(), Map.of(), null))
                                .part(
                                        "long",
                                        APP,
                                        longKey,
                                        new Shaping(List.of("a"), List.of(), Map.of(), Optional.empty(), 64)))
                .start()) {
            Composed composed = Composed.of(gw.wire().get("/page"))
                    .assertSpliced(
                            List.of(new SimpleEntry<>("broken", null), new SimpleEntry<>("long", null)),
                            List.of("broken", "long"));
            assertThat(composed.error("broken")).contains("invalid JSON: " + validator.error());
            assertThat(composed.error("long"))
                    .hasValueSatisfying(e -> assertThat(e).startsWith("a member name longer than 64 bytes"));
        }
    }

    /**
     * A compressed composition still flushes per part when a part is shaped: the shaped first part
     * decodes at the client while the second part's upstream has not answered (it answers only then).
     */
    @Test
    void aShapedPartOfACompressedCompositionDecodesBeforeTheNextPartAnswers() throws Exception {
        StringBuilder items = new StringBuilder("{\"items\":[");
        StringBuilder kept = new StringBuilder("[");
        for (int i = 0; i < 400; i++) {
            items.append(i == 0 ? "" : ",").append("{\"id\":").append(i).append(",\"pad\":\"abcdefghij\"}");
            kept.append(i == 0 ? "" : ",").append("{\"id\":").append(i).append('}');
        }
        items.append("]}");
        kept.append("]");
        String fast = upstream.respond(200, "application/json", items.toString());
        java.util.concurrent.CountDownLatch asked = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch released = new java.util.concurrent.CountDownLatch(1);
        HttpServer held = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        held.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        held.createContext("/held", exchange -> {
            asked.countDown();
            try {
                released.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] body = utf8("{\"late\":true}");
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        held.start();
        try (TestGateway gw = gateway()
                        .upstream(
                                "held",
                                java.net.URI.create(
                                        "http://127.0.0.1:" + held.getAddress().getPort()))
                        .route(
                                "page",
                                on("/page"),
                                compose()
                                        .order(Order.DECLARED)
                                        .timeout(Duration.ofSeconds(40))
                                        .part("fast", APP, fast, shaping(List.of("id"), List.of(), Map.of(), "/items"))
                                        .part("late", "held", "/held"),
                                new dev.sluice.config.FilterConfig.Compression(List.of("application/json"), 64, 6))
                        .start();
                java.net.Socket socket = new java.net.Socket(InetAddress.getLoopbackAddress(), gw.port())) {
            socket.setSoTimeout(15_000);
            socket.getOutputStream()
                    .write(utf8("GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\n\r\n"));
            java.io.InputStream in = new java.io.BufferedInputStream(socket.getInputStream());
            String head = ChunkedWire.head(in);
            assertThat(head).startsWith("HTTP/1.1 200 ").containsIgnoringCase("content-encoding: gzip");
            GunzipAsItComes gunzip = new GunzipAsItComes();
            String first = "{\"fast\":" + kept;
            while (!gunzip.decoded().startsWith(first)) {
                byte[] chunk = chunk(in);
                assertThat(chunk)
                        .as("the shaped part before the held one; decoded so far: %s", gunzip.decoded())
                        .isNotEmpty();
                gunzip.feed(chunk);
            }
            assertThat(asked.await(10, java.util.concurrent.TimeUnit.SECONDS))
                    .as("the held part was asked for")
                    .isTrue();
            released.countDown();
            for (byte[] chunk = chunk(in); chunk.length > 0; chunk = chunk(in)) {
                gunzip.feed(chunk);
            }
            assertThat(gunzip.decoded()).startsWith(first + ",\"late\":{\"late\":true},\"_meta\":");
        } finally {
            released.countDown();
            held.stop(0);
        }
    }

    /**
     * 200 MB parts shaped through a gateway with a 64 MB heap: the value after a 200 MB array
     * ({@code take}), and one member of each of its objects ({@code select}).
     */
    @Test
    void partsFarLargerThanTheHeapAreShapedInBoundedMemory() throws Exception {
        int objects = 200_000; // ~1 KB each
        HttpServer big = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        big.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        big.createContext("/big", exchange -> {
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                writeBig(out, objects);
            } catch (IOException e) {
                // the gateway went away: nothing more to send
            }
        });
        big.start();
        Path config = Files.createTempFile("sluice-shaping-", ".yaml");
        Files.writeString(config, """
                server: { host: 127.0.0.1, port: 0, engine: %s, transport: %s }
                upstreams:
                  big: { url: "http://127.0.0.1:%d" }
                routes:
                  - id: shaped
                    match: { path: /shaped }
                    compose:
                      order: declared
                      timeout: 300s
                      parts:
                        total: { upstream: big, path: /big, take: /total }
                        ids: { upstream: big, path: /big, select: ["items[*].id"] }
                logging: { level: warn }
                """.formatted(
                        mode().key(), transport().key(), big.getAddress().getPort()));
        try (ChildGateway child = ChildGateway.start(config)) {
            WireResponse response =
                    WireClient.to(child.port()).timeout(Duration.ofSeconds(300)).get("/shaped");
            assertThat(child.isAlive())
                    .as("the 64 MB gateway survived; stderr:%n%s", child.stderr())
                    .isTrue();
            StringBuilder ids = new StringBuilder("{\"items\":[");
            for (int i = 0; i < objects; i++) {
                ids.append(i == 0 ? "" : ",").append("{\"id\":").append(i).append('}');
            }
            ids.append("]}");
            Composed.of(response)
                    .assertSpliced(
                            List.of(
                                    Map.entry("total", utf8(Integer.toString(objects))),
                                    Map.entry("ids", utf8(ids.toString()))),
                            List.of("total", "ids"));
            for (String output : List.of(child.stderr(), child.stdout())) {
                assertThat(output).doesNotContain("OutOfMemoryError", "OutOfDirectMemoryError", "Exception in thread");
            }
        } finally {
            big.stop(0);
            Files.deleteIfExists(config);
        }
    }

    /** {@code {"items":[{"id":0,"name":"...","pad":"..."},...],"total":n}}, about 1 KB an object, written as generated. */
    private static void writeBig(OutputStream out, int objects) throws IOException {
        byte[] pad = ("\"" + "abcdefghij".repeat(98) + "\"").getBytes(StandardCharsets.US_ASCII);
        ByteArrayOutputStream batch = new ByteArrayOutputStream(70_000);
        batch.writeBytes(utf8("{\"items\":["));
        for (int i = 0; i < objects; i++) {
            batch.writeBytes(utf8((i == 0 ? "" : ",") + "{\"name\":\"n" + i + "\",\"pad\":"));
            batch.writeBytes(pad);
            batch.writeBytes(utf8(",\"id\":" + i + ",\"more\":[1,{\"id\":-1}]}"));
            if (batch.size() > 64_000) {
                batch.writeTo(out);
                batch.reset();
            }
        }
        batch.writeBytes(utf8("],\"total\":" + objects + "}"));
        batch.writeTo(out);
    }
}
