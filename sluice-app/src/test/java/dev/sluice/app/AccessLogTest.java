package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.observe.ExchangeEvent;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code logging.access}: one JSON line per request in every engine, with the id the upstream saw,
 * the path without its query, the route, status and duration; written off the request path, and
 * dropped (counted) rather than waited for when the writer falls behind.
 */
class AccessLogTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"virtual", "platform", "reactive"})
    void everyRequestIsOneJsonLineWithTheIdItsUpstreamSaw(String engine) throws Exception {
        String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        List<String> upstreamIds = new CopyOnWriteArrayList<>();
        List<String> upstreamTraces = new CopyOnWriteArrayList<>();
        CountDownLatch hang = new CountDownLatch(1);
        HttpServer upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        upstream.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
        upstream.createContext("/", exchange -> {
            upstreamIds.add(exchange.getRequestHeaders().getFirst("X-Request-Id"));
            upstreamTraces.add(exchange.getRequestHeaders().getFirst("traceparent"));
            exchange.getRequestBody().readAllBytes();
            byte[] body = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        upstream.createContext("/broken", exchange -> {
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(500, 2);
            exchange.getResponseBody().write("{}".getBytes(StandardCharsets.UTF_8));
            exchange.close();
        });
        upstream.createContext("/hanging", exchange -> {
            try {
                hang.await(30, TimeUnit.SECONDS); // never answers while the test runs
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
        });
        upstream.start();
        Path log = dir.resolve("access.log");
        byte[] posted = "x".repeat(777).getBytes(StandardCharsets.UTF_8);
        int[] composedLength = new int[1];
        try {
            Path file = Files.writeString(dir.resolve("gateway.yaml"), """
                    server: { host: 127.0.0.1, port: 0 }
                    logging: { access: { to: "%s" } }
                    upstreams:
                      up: { url: "http://127.0.0.1:%d" }
                    routes:
                      - { id: products, match: { path: "/products/**" }, proxy: { upstream: up } }
                      - id: page
                        match: { path: "/page" }
                        compose:
                          timeout: 5s
                          parts:
                            product: { upstream: up, path: /product }
                            reviews: { upstream: up, path: /broken }
                            stock: { upstream: up, path: /hanging, timeout: 200ms }
                      - id: closed
                        match: { path: "/closed/**" }
                        proxy: { upstream: up }
                        filters: [ { ip-filter: { deny: [127.0.0.1] } } ]
                    """.formatted(
                    log.toString().replace("\\", "\\\\"), upstream.getAddress().getPort()));
            CliRunner.Result result = CliRunner.run(
                    session -> {
                        URI gateway = session.gatewayUrl().orElseThrow();
                        // HTTP/1.1, as the raw requests below: ObserverContract checks h2c's byte counts
                        HttpClient client = HttpClient.newBuilder()
                                .version(HttpClient.Version.HTTP_1_1)
                                .build();
                        HttpResponse<String> ok = client.send(
                                HttpRequest.newBuilder(URI.create(gateway + "/products/1001?api_key=s3cret"))
                                        .header("X-Request-Id", "client-id-1")
                                        .header("traceparent", "00-" + traceId + "-00f067aa0ba902b7-01")
                                        .timeout(Duration.ofSeconds(10))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                        assertThat(ok.statusCode()).isEqualTo(200);
                        assertThat(Http.get(gateway, "/products/2002").statusCode())
                                .isEqualTo(200);
                        assertThat(Http.get(gateway, "/nowhere").statusCode()).isEqualTo(404);
                        HttpResponse<String> post = client.send(
                                HttpRequest.newBuilder(URI.create(gateway + "/products/new"))
                                        .POST(HttpRequest.BodyPublishers.ofByteArray(posted))
                                        .timeout(Duration.ofSeconds(10))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                        assertThat(post.statusCode()).isEqualTo(200);
                        HttpResponse<byte[]> page = client.send(
                                HttpRequest.newBuilder(URI.create(gateway + "/page"))
                                        .timeout(Duration.ofSeconds(10))
                                        .build(),
                                HttpResponse.BodyHandlers.ofByteArray());
                        assertThat(page.statusCode()).isEqualTo(200);
                        composedLength[0] = page.body().length;
                        assertThat(Http.get(gateway, "/closed/1").statusCode()).isEqualTo(403);
                        assertThat(Http.raw(gateway, "GET /products/1?k=s3cret HTTP/1.1\r\nX-Request-Id: mine\r\n\r\n"))
                                .as("no Host: refused before routing")
                                .startsWith("HTTP/1.1 400 ");
                        assertThat(Http.raw(gateway, "GET /" + "a".repeat(10 * 1024) + " HTTP/1.1\r\nHost: h\r\n\r\n"))
                                .as("a request line over max-request-line (8 KiB)")
                                .startsWith("HTTP/1.1 414 ");
                    },
                    "run",
                    "-c",
                    file.toString(),
                    "--engine",
                    engine);
            assertThat(result.exitCode()).as(result.err()).isZero();
        } finally {
            hang.countDown();
            upstream.stop(0);
        }
        List<String> lines = Files.readAllLines(log);
        assertThat(lines).as("one line per answer, refused heads included").hasSize(8);
        Map<String, Object> first = Http.json(lines.get(0));
        assertThat(first)
                .containsEntry("request_id", "client-id-1")
                .containsEntry("client", "127.0.0.1")
                .containsEntry("method", "GET")
                .containsEntry("path", "/products/1001")
                .containsEntry("route", "products")
                .containsEntry("status", 200)
                .containsEntry("outcome", "answered")
                .containsEntry("bytes_in", 0)
                .containsEntry("bytes_out", 11)
                .containsEntry("trace_id", traceId)
                .containsEntry("refused_by", null)
                .containsKeys("time", "duration_ms")
                .doesNotContainKey("parts");
        assertThat(((Number) first.get("upstream_ms")).doubleValue())
                .isPositive()
                .isLessThanOrEqualTo(((Number) first.get("duration_ms")).doubleValue());
        assertThat(lines.get(0))
                .as("the query (an API key, perhaps) is not logged")
                .doesNotContain("s3cret");
        assertThat(upstreamTraces.getFirst())
                .as("the upstream saw the logged trace")
                .startsWith("00-" + traceId + "-");
        Map<String, Object> second = Http.json(lines.get(1));
        assertThat(upstreamIds.subList(0, 2)).containsExactly("client-id-1", (String) second.get("request_id"));
        assertThat(upstreamTraces.get(1)).contains("-" + second.get("trace_id") + "-");
        Map<String, Object> third = Http.json(lines.get(2));
        assertThat(third)
                .containsEntry("status", 404)
                .containsEntry("route", null)
                .containsEntry("path", "/nowhere")
                .containsEntry("upstream_ms", null);
        Map<String, Object> fourth = Http.json(lines.get(3));
        assertThat(fourth)
                .containsEntry("method", "POST")
                .containsEntry("bytes_in", posted.length)
                .containsEntry("bytes_out", 11);
        Map<String, Object> fifth = Http.json(lines.get(4));
        assertThat(fifth)
                .containsEntry("route", "page")
                .containsEntry("bytes_out", composedLength[0])
                .containsEntry("upstream_ms", null)
                .containsEntry("parts", Map.of("product", 200, "reviews", "status", "stock", "timeout"));
        Map<String, Object> sixth = Http.json(lines.get(5));
        assertThat(sixth)
                .containsEntry("route", "closed")
                .containsEntry("status", 403)
                .containsEntry("refused_by", "ip-filter");
        Map<String, Object> noHost = Http.json(lines.get(6));
        assertThat(noHost)
                .containsEntry("client", "127.0.0.1")
                .containsEntry("method", "GET")
                .containsEntry("path", "/products/1")
                .containsEntry("route", null)
                .containsEntry("status", 400)
                .containsEntry("outcome", "answered")
                .containsEntry("bytes_in", 0)
                .containsEntry("upstream_ms", null)
                .containsEntry("refused_by", "request-framing");
        assertThat((String) noHost.get("request_id")).isNotEqualTo("mine").isNotBlank();
        assertThat((Integer) noHost.get("bytes_out")).isPositive();
        assertThat(lines.get(6)).doesNotContain("s3cret");
        Map<String, Object> longLine = Http.json(lines.get(7));
        assertThat(longLine)
                .containsEntry("method", "-")
                .containsEntry("path", "-")
                .containsEntry("route", null)
                .containsEntry("status", 414)
                .containsEntry("refused_by", "server-limits");
    }

    @Test
    void aRelativeFileIsBesideTheConfigurationFileNotInTheWorkingDirectory() throws Exception {
        Path conf = Files.createDirectories(dir.resolve("conf"));
        String name = "access-" + System.nanoTime() + ".log";
        Path file = Files.writeString(conf.resolve("gateway.yaml"), """
                server: { host: 127.0.0.1, port: 0 }
                logging: { access: { to: %s } }
                upstreams: { up: { url: "http://127.0.0.1:1" } }
                routes:
                  - { id: all, match: { path: "/all/**" }, proxy: { upstream: up } }
                """.formatted(name));
        CliRunner.Result result = CliRunner.run(
                session -> assertThat(Http.get(session.gatewayUrl().orElseThrow(), "/nowhere")
                                .statusCode())
                        .isEqualTo(404),
                "run",
                "-c",
                file.toString(),
                "--engine",
                "reactive");
        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(Path.of(name)).as("not in the working directory").doesNotExist();
        assertThat(Files.readAllLines(conf.resolve(name))).hasSize(1);
    }

    private static String written(String format, ExchangeEvent... events) {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        AccessLog log = AccessLog.to(sink, 16, format);
        for (ExchangeEvent event : events) {
            log.exchange(event);
        }
        log.close();
        return sink.toString(StandardCharsets.UTF_8);
    }

    private static ExchangeEvent event(String path, int status, long bytesOut, String refusedBy) {
        return new ExchangeEvent(
                status == 404 ? "" : "catalog",
                "GET",
                status,
                false,
                1_734_000,
                path,
                "q7k2m9xa-1f",
                "10.0.0.7",
                0,
                bytesOut,
                status == 404 ? -1 : 1_212_000,
                "4bf92f3577b34da6a3ce929d0e0e4736",
                "00f067aa0ba902b7",
                "",
                true,
                refusedBy,
                List.of());
    }

    @Test
    void combinedIsApachesFormatWithoutHeaderValues() {
        String[] lines = written(
                        "combined", event("/products/1001", 200, 5120, ""), event("/a \"quoted\"\u0001", 404, 0, ""))
                .split("\n");
        assertThat(lines[0])
                .matches("10\\.0\\.0\\.7 - - \\[\\d\\d/[A-Z][a-z]{2}/\\d{4}:\\d\\d:\\d\\d:\\d\\d \\+0000] "
                        + "\"GET /products/1001\" 200 5120 \"-\" \"-\"");
        assertThat(lines[1]).endsWith("\"GET /a \\\"quoted\\\"\\x01\" 404 - \"-\" \"-\"");
    }

    @Test
    void aTemplateWritesTheJsonFieldsItNames() {
        String line = written(
                "{status} {method} {path} {route} {duration_ms}ms up={upstream_ms} id={request_id} by={refused_by} {{x}}",
                event("/products/1001", 200, 5120, ""),
                event("/nowhere", 404, 0, ""));
        assertThat(line)
                .isEqualTo("200 GET /products/1001 catalog 1.734ms up=1.212 id=q7k2m9xa-1f by=- {x}\n"
                        + "404 GET /nowhere - 1.734ms up=- id=q7k2m9xa-1f by=- {x}\n");
        assertThat(written("{time}", event("/", 200, 0, ""))).matches("\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z\n");
    }

    @Test
    void stringsAreUtf8WithTheCoresJsonEscapes() {
        for (String text : List.of(
                "",
                "q7k2m9xa-1f",
                "caf\u00e9 \u00fc",
                "\u65e5\u672c",
                "a pair \ud83d\ude00 here",
                "lone high \ud800 and low \udc00, high at the end \ud83d",
                "\"q\" \\ \n\r\t \u0001 \u001f \u007f")) {
            String expected = new String(
                    dev.sluice.compose.JsonSplice.quote(text).getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
            assertThat(new AccessLog.Bytes().quoted(text)).as(text).hasToString(expected);
            assertThat(new AccessLog.Bytes().text(text))
                    .as(text)
                    .hasToString(new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8));
        }
    }

    @Test
    void numbersAndMillisAreWrittenInDecimal() {
        for (long n : new long[] {0, 7, 10, 99, 1_234_567_890_123L, -5, Long.MAX_VALUE, Long.MIN_VALUE}) {
            assertThat(new AccessLog.Bytes().number(n)).hasToString(Long.toString(n));
        }
        assertThat(new AccessLog.Bytes().millis(1_734_000)).hasToString("1.734");
        assertThat(new AccessLog.Bytes().millis(1_234_567)).hasToString("1.235");
        assertThat(new AccessLog.Bytes().millis(500)).hasToString("0.001");
        assertThat(new AccessLog.Bytes().millis(0)).hasToString("0.000");
        assertThat(new AccessLog.Bytes().millis(12_050_000_000L)).hasToString("12050.000");
    }

    @Test
    void timesAreWrittenAsInstantWritesThem() {
        AccessLog.Timestamps times = new AccessLog.Timestamps();
        long base = java.time.Instant.parse("2026-11-26T20:36:07Z").toEpochMilli();
        for (long at : new long[] {base, base + 5, base + 50, base + 120, base + 999, base + 1000, base + 61_007, -1}) {
            AccessLog.Bytes out = new AccessLog.Bytes().ascii("t=");
            times.append(out, at);
            assertThat(out).as("%d", at).hasToString("t=" + java.time.Instant.ofEpochMilli(at));
        }
    }

    @Test
    void aWriterThatFallsBehindCostsLinesNotRequests() throws Exception {
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        OutputStream slow = new OutputStream() {
            @Override
            public void write(int b) {
                throw new AssertionError("lines are written in chunks");
            }

            @Override
            public void write(byte[] buf, int off, int len) {
                writing.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                sink.write(buf, off, len);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        AccessLog log = AccessLog.to(slow, 16);
        ExchangeEvent event = new ExchangeEvent("r", "GET", 200, false, 1_000_000);
        log.exchange(event);
        assertThat(writing.await(10, TimeUnit.SECONDS))
                .as("the writer took the first line")
                .isTrue();
        long start = System.nanoTime();
        for (int i = 0; i < 16 + 5; i++) {
            log.exchange(event);
        }
        assertThat(System.nanoTime() - start)
                .as("a full queue never makes the request's thread wait")
                .isLessThan(TimeUnit.SECONDS.toNanos(5));
        assertThat(log.dropped()).isEqualTo(5);
        release.countDown();
        log.close();
        assertThat(sink.toString(StandardCharsets.UTF_8).lines().count()).isEqualTo(17);
    }

    @Test
    void aGrpcCallsLineCarriesItsGrpcStatusAndOtherLinesDoNot() throws Exception {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        AccessLog log = AccessLog.to(sink, 16);
        ExchangeEvent plain = new ExchangeEvent("r", "GET", 200, false, 1_000_000);
        ExchangeEvent grpc = new ExchangeEvent(
                "g",
                "POST",
                200,
                false,
                1_000_000,
                "/a.B/C",
                "id",
                "127.0.0.1",
                5,
                7,
                10,
                "-",
                "-",
                "",
                false,
                "",
                java.util.List.of(),
                14);
        log.exchange(plain);
        log.exchange(grpc);
        log.close();
        java.util.List<String> lines =
                sink.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).doesNotContain("grpc_status");
        assertThat(lines.get(1)).contains("\"refused_by\":null,\"grpc_status\":14");
    }
}
