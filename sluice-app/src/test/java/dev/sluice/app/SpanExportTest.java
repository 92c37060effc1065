package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.trace.v1.Span;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code tracing.otlp}: every request is one span sent over OTLP/HTTP to a real receiver (the
 * protocol's own classes decode what it is sent), the gateway's span in the client's trace: the ids
 * its upstream saw in {@code traceparent}, the client's span as its parent.
 */
class SpanExportTest {

    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String UNSAMPLED = "0af7651916cd43dd8448eb211c80319c";
    private static final String CLIENT_SPAN = "00f067aa0ba902b7";

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"virtual", "platform", "reactive"})
    void everyRequestIsOneSpanInTheClientsTrace(String engine) throws Exception {
        List<Span> spans = new CopyOnWriteArrayList<>();
        HttpServer collector = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        collector.createContext("/v1/traces", exchange -> {
            ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(
                    exchange.getRequestBody().readAllBytes());
            request.getResourceSpansList()
                    .forEach(r -> r.getScopeSpansList().forEach(s -> spans.addAll(s.getSpansList())));
            byte[] body = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, body.length == 0 ? -1 : body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        List<String> upstreamSaw = new CopyOnWriteArrayList<>();
        HttpServer upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        upstream.createContext("/", exchange -> {
            upstreamSaw.add(exchange.getRequestHeaders().getFirst("traceparent"));
            byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        collector.start();
        upstream.start();
        try {
            Path file = Files.writeString(dir.resolve("gateway.yaml"), """
                    server: { host: 127.0.0.1, port: 0 }
                    tracing: { otlp: { endpoint: "http://127.0.0.1:%d/v1/traces" } }
                    upstreams:
                      up: { url: "http://127.0.0.1:%d" }
                    routes:
                      - { id: products, match: { path: "/products/**" }, proxy: { upstream: up } }
                    """.formatted(
                    collector.getAddress().getPort(), upstream.getAddress().getPort()));
            CliRunner.Result result = CliRunner.run(
                    session -> {
                        URI gateway = session.gatewayUrl().orElseThrow();
                        HttpResponse<String> traced = HttpClient.newHttpClient()
                                .send(
                                        HttpRequest.newBuilder(URI.create(gateway + "/products/1"))
                                                .header("traceparent", "00-" + TRACE + "-" + CLIENT_SPAN + "-01")
                                                .timeout(Duration.ofSeconds(10))
                                                .build(),
                                        HttpResponse.BodyHandlers.ofString());
                        assertThat(traced.statusCode()).isEqualTo(200);
                        assertThat(Http.get(gateway, "/products/2").statusCode())
                                .isEqualTo(200);
                        HttpResponse<String> unsampled = HttpClient.newHttpClient()
                                .send(
                                        HttpRequest.newBuilder(URI.create(gateway + "/products/3"))
                                                .header("traceparent", "00-" + UNSAMPLED + "-" + CLIENT_SPAN + "-00")
                                                .timeout(Duration.ofSeconds(10))
                                                .build(),
                                        HttpResponse.BodyHandlers.ofString());
                        assertThat(unsampled.statusCode()).isEqualTo(200);
                    },
                    "run",
                    "-c",
                    file.toString(),
                    "--engine",
                    engine);
            assertThat(result.exitCode()).as(result.err()).isZero();
        } finally {
            upstream.stop(0);
            collector.stop(0);
        }
        // the gateway sends what is queued when it stops, before run returns
        assertThat(spans)
                .as("a span for each sampled request: the client's sampled trace and the one the gateway began")
                .hasSize(2);
        assertThat(upstreamSaw).hasSize(3);
        assertThat(upstreamSaw.get(2))
                .as("a trace the client does not sample goes on unsampled, and no span of it is exported")
                .startsWith("00-" + UNSAMPLED + "-")
                .endsWith("-00");
        HexFormat hex = HexFormat.of();
        Span child = spans.stream()
                .filter(s -> hex.formatHex(s.getTraceId().toByteArray()).equals(TRACE))
                .findFirst()
                .orElseThrow();
        assertThat(child.getName()).isEqualTo("GET products");
        assertThat(child.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_SERVER);
        assertThat(hex.formatHex(child.getParentSpanId().toByteArray()))
                .as("the client's span is its parent")
                .isEqualTo(CLIENT_SPAN);
        assertThat(upstreamSaw.getFirst())
                .as("the upstream's parent is the exported span")
                .isEqualTo("00-" + TRACE + "-" + hex.formatHex(child.getSpanId().toByteArray()) + "-01");
        assertThat(child.getAttributesList()).anySatisfy(a -> {
            assertThat(a.getKey()).isEqualTo("http.response.status_code");
            assertThat(a.getValue().getIntValue()).isEqualTo(200);
        });
        assertThat(child.getEndTimeUnixNano()).isGreaterThan(child.getStartTimeUnixNano());

        Span root = spans.stream().filter(s -> s != child).findFirst().orElseThrow();
        assertThat(root.getParentSpanId().isEmpty())
                .as("the gateway began this trace")
                .isTrue();
        assertThat(upstreamSaw.get(1))
                .as("a trace the gateway began and records goes upstream sampled")
                .isEqualTo("00-" + hex.formatHex(root.getTraceId().toByteArray()) + "-"
                        + hex.formatHex(root.getSpanId().toByteArray()) + "-01");
    }
}
