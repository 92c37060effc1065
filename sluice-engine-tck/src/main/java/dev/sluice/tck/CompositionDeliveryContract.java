package dev.sluice.tck;

import static dev.sluice.tck.ChunkedWire.chunk;
import static dev.sluice.tck.ChunkedWire.line;
import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.config.ComposeTarget.Delivery;
import dev.sluice.config.FilterConfig;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Per-part delivery of a composition ({@code delivery:}): NDJSON lines, SSE events and GraphQL-style
 * multipart payloads, each part's frame whole as soon as the part is, a failed part with its reason,
 * {@code _meta} last, compression flushing per part, negotiation by Accept and 406.
 */
public abstract class CompositionDeliveryContract extends ContractFixture {

    private static final String BODY = "{\n  \"name\": \"lamp\",\n  \"tags\": [\"a\",\r\n \"b\"]\n}";

    /** Every format, negotiated on one route: each part one JSON value with its body, the failed one with its reason. */
    @Test
    void eachFormatFramesEveryPartAndMetaLast() {
        String ok = upstream.respond(200, "application/json", BODY);
        String broken = upstream.respond(500, "application/json", "{}");
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .delivery(Delivery.values())
                                .part("ok", APP, ok)
                                .part("broken", APP, broken))
                .start()) {
            for (Delivery format : List.of(Delivery.NDJSON, Delivery.SSE, Delivery.MULTIPART)) {
                WireResponse response = gw.wire().send(WireRequest.get("/page").header("Accept", format.mediaType()));
                assertThat(response.status()).as("%s", format).isEqualTo(200);
                assertThat(response.header("Content-Type")).contains(format.contentType());
                assertThat(response.header("Vary"))
                        .hasValueSatisfying(v -> assertThat(v).containsIgnoringCase("Accept"));
                List<Map<String, Object>> frames = frames(format, response.bodyText());
                assertThat(frames).as("%s: %s", format, response.bodyText()).hasSize(3);
                Map<String, Map<String, Object>> byPart = new HashMap<>();
                for (Map<String, Object> frame : frames.subList(0, 2)) {
                    byPart.put((String) frame.get("part"), frame);
                }
                assertThat(byPart.keySet()).containsExactlyInAnyOrder("ok", "broken");
                assertThat(Json.at(byPart.get("ok"), "body", "name")).isEqualTo("lamp");
                assertThat(((Number) byPart.get("ok").get("status")).intValue()).isEqualTo(200);
                assertThat(byPart.get("broken").get("body")).isEqualTo(Json.NULL);
                assertThat((String) byPart.get("broken").get("error")).contains("500");
                assertThat(Json.at(frames.get(2), "_meta", "failed")).isEqualTo(List.of("broken"));
            }
            WireResponse plain = gw.wire().get("/page");
            assertThat(plain.header("Content-Type")).contains("application/json");
            assertThat(Json.at(Json.object(plain.body()), "ok", "name")).isEqualTo("lamp");
        }
    }

    /** The frames of a body: NDJSON lines, SSE events' data (one line each), multipart payloads. */
    private static List<Map<String, Object>> frames(Delivery format, String body) {
        List<Map<String, Object>> frames = new ArrayList<>();
        switch (format) {
            case NDJSON -> {
                assertThat(body).endsWith("\n");
                for (String line : body.split("\n")) {
                    frames.add(Json.object(line.getBytes(StandardCharsets.UTF_8)));
                }
            }
            case SSE -> {
                assertThat(body).endsWith("\n\n");
                for (String event : body.split("\n\n")) {
                    String[] lines = event.split("\n");
                    assertThat(lines[0]).isIn("event: part", "event: meta");
                    String data = lines[lines.length - 1];
                    assertThat(data).startsWith("data: ");
                    assertThat(lines).as("one data line: %s", event).hasSize(lines[0].equals("event: part") ? 3 : 2);
                    frames.add(Json.object(data.substring(6).getBytes(StandardCharsets.UTF_8)));
                }
            }
            default -> {
                assertThat(body).startsWith("\r\n---\r\n").endsWith("\r\n-----\r\n");
                String inner = body.substring("\r\n---\r\n".length(), body.length() - "\r\n-----\r\n".length());
                for (String payload : inner.split("\r\n---\r\n")) {
                    assertThat(payload).startsWith("Content-Type: application/json; charset=utf-8\r\n\r\n");
                    frames.add(Json.object(
                            payload.substring(payload.indexOf("\r\n\r\n") + 4).getBytes(StandardCharsets.UTF_8)));
                }
            }
        }
        return frames;
    }

    /** SSE: the fast part's event is whole at the client before the slow part's upstream is let answer. */
    @Test
    void anEarlierPartsEventArrivesBeforeASlowPartAnswers() throws Exception {
        try (Held held = new Held()) {
            String fast = upstream.respond(200, "application/json", BODY);
            try (TestGateway gw = gateway()
                            .upstream("held", held.uri())
                            .route(
                                    "page",
                                    on("/page"),
                                    compose()
                                            .delivery(Delivery.SSE)
                                            .timeout(Duration.ofSeconds(40))
                                            .part("fast", APP, fast)
                                            .part("late", "held", "/held"))
                            .start();
                    Socket socket = new Socket(InetAddress.getLoopbackAddress(), gw.port())) {
                socket.setSoTimeout(15_000);
                socket.getOutputStream().write(bytes("GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
                InputStream in = new BufferedInputStream(socket.getInputStream());
                assertThat(ChunkedWire.head(in)).startsWith("HTTP/1.1 200 ").containsIgnoringCase("text/event-stream");
                StringBuilder text = new StringBuilder();
                while (!text.toString().contains("\n\n")) {
                    byte[] chunk = chunk(in);
                    assertThat(chunk)
                            .as("the fast part's event; so far: %s", text)
                            .isNotEmpty();
                    text.append(new String(chunk, StandardCharsets.UTF_8));
                }
                assertThat(text.toString()).startsWith("event: part\nid: fast\ndata: {\"part\":\"fast\"");
                held.release();
                for (byte[] chunk = chunk(in); chunk.length > 0; chunk = chunk(in)) {
                    text.append(new String(chunk, StandardCharsets.UTF_8));
                }
                List<Map<String, Object>> frames = frames(Delivery.SSE, text.toString());
                assertThat(frames).extracting(f -> f.get("part")).containsExactly("fast", "late", null);
                assertThat(Json.at(frames.get(1), "body", "late")).isEqualTo(true);
            }
        }
    }

    /** NDJSON through gzip: the fast part's line decodes at the client before the slow part answers. */
    @Test
    void aCompressedNdjsonLineDecodesBeforeTheNextPartAnswers() throws Exception {
        try (Held held = new Held()) {
            String fast =
                    upstream.respond(200, "application/json", BODY.repeat(1).replace("lamp", "x".repeat(2000)));
            try (TestGateway gw = gateway()
                            .upstream("held", held.uri())
                            .route(
                                    "page",
                                    on("/page"),
                                    compose()
                                            .delivery(Delivery.NDJSON)
                                            .timeout(Duration.ofSeconds(40))
                                            .part("fast", APP, fast)
                                            .part("late", "held", "/held"),
                                    new FilterConfig.Compression(List.of("application/x-ndjson"), 64, 6))
                            .start();
                    Socket socket = new Socket(InetAddress.getLoopbackAddress(), gw.port())) {
                socket.setSoTimeout(15_000);
                socket.getOutputStream()
                        .write(bytes("GET /page HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\n\r\n"));
                InputStream in = new BufferedInputStream(socket.getInputStream());
                assertThat(ChunkedWire.head(in))
                        .startsWith("HTTP/1.1 200 ")
                        .containsIgnoringCase("content-encoding: gzip");
                GunzipAsItComes gunzip = new GunzipAsItComes();
                while (!gunzip.decoded().contains("\n")) {
                    byte[] chunk = chunk(in);
                    assertThat(chunk)
                            .as("the fast part's line; so far: %s", gunzip.decoded())
                            .isNotEmpty();
                    gunzip.feed(chunk);
                }
                assertThat(gunzip.decoded()).startsWith("{\"part\":\"fast\"");
                held.release();
                for (byte[] chunk = chunk(in); chunk.length > 0; chunk = chunk(in)) {
                    gunzip.feed(chunk);
                }
                List<Map<String, Object>> frames = frames(Delivery.NDJSON, gunzip.decoded());
                assertThat(frames).extracting(f -> f.get("part")).containsExactly("fast", "late", null);
            }
        }
    }

    /** A route restricting its formats: 406 with a JSON reason when Accept allows none, before any part is asked. */
    @Test
    void anAcceptAllowingNoneOfARestrictedRoutesFormatsIs406() {
        String ok = upstream.respond(200, "application/json", BODY);
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose().delivery(Delivery.SSE, Delivery.NDJSON).part("ok", APP, ok))
                .start()) {
            int before = upstream.exchanges();
            WireResponse refused = gw.wire().send(WireRequest.get("/page").header("Accept", "application/json"));
            assertThat(refused.status()).isEqualTo(406);
            assertThat(refused.header("Vary")) // the refusal too depends on Accept: a cache must not reuse it
                    .hasValueSatisfying(v -> assertThat(v).containsIgnoringCase("Accept"));
            assertThat(Json.object(refused.body()).get("error")).isEqualTo("not_acceptable");
            assertThat(upstream.exchanges()).isEqualTo(before);
            WireResponse any = gw.wire().send(WireRequest.get("/page").header("Accept", "*/*"));
            assertThat(any.status()).isEqualTo(200);
            assertThat(any.header("Content-Type")).contains("text/event-stream");
            WireResponse ndjson = gw.wire()
                    .send(WireRequest.get("/page").header("Accept", "text/event-stream;q=0.5, application/x-ndjson"));
            assertThat(ndjson.header("Content-Type")).contains("application/x-ndjson");
            assertThat(ndjson.header("Vary"))
                    .hasValueSatisfying(v -> assertThat(v).containsIgnoringCase("Accept"));
        }
    }

    /** An upstream that answers {@code /held} only once released. */
    private static final class Held implements AutoCloseable {
        private final CountDownLatch released = new CountDownLatch(1);
        private final HttpServer server;

        Held() throws IOException {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
            server.createContext("/held", exchange -> {
                try {
                    released.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                byte[] body = bytes("{\"late\":true}");
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            });
            server.start();
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
        }

        void release() {
            released.countDown();
        }

        @Override
        public void close() {
            released.countDown();
            server.stop(0);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
