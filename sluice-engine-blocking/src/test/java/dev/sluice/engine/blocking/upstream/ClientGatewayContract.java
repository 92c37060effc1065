package dev.sluice.engine.blocking.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.compose.JsonSplice;
import dev.sluice.config.ComposeTarget;
import dev.sluice.config.EngineMode;
import dev.sluice.config.GatewayConfig;
import dev.sluice.config.PartConfig;
import dev.sluice.config.ProxyTarget;
import dev.sluice.config.RouteConfig;
import dev.sluice.config.RouteMatch;
import dev.sluice.config.ServerConfig;
import dev.sluice.config.Target;
import dev.sluice.config.Transport;
import dev.sluice.config.UpstreamConfig;
import dev.sluice.engine.RunningGateway;
import dev.sluice.engine.blocking.BlockingEngine;
import dev.sluice.routing.PathTemplate;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The gateway ({@code new BlockingEngine(clients)}) with another upstream client, in both modes:
 * proxy and composition bytes unchanged, failures mapped to the contract's statuses, a route
 * timeout cancelling the call. A subclass per client supplies it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class ClientGatewayContract {

    private LoopbackUpstream upstream;
    private HttpClient http;

    protected abstract Function<UpstreamConfig, UpstreamClient> clients();

    @BeforeAll
    void start() {
        upstream = LoopbackUpstream.start();
        http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    @AfterAll
    void stop() {
        http.close();
        upstream.close();
    }

    private RunningGateway gateway(EngineMode mode, List<UpstreamConfig> upstreams, List<RouteConfig> routes)
            throws Exception {
        ServerConfig server =
                new ServerConfig("127.0.0.1", 0, mode, 32, 32, Duration.ofSeconds(1), 16384, Transport.NIO);
        Map<String, UpstreamConfig> byName = new LinkedHashMap<>();
        upstreams.forEach(u -> byName.put(u.name(), u));
        return new BlockingEngine(clients()).start(new GatewayConfig(server, Optional.empty(), byName, routes));
    }

    private static RouteConfig route(String id, String path, Target target) {
        return new RouteConfig(id, RouteMatch.path(path), target, List.of());
    }

    private static ProxyTarget proxy(String upstream, String stripPrefix, Duration timeout) {
        return new ProxyTarget(upstream, Optional.of(stripPrefix), Optional.empty(), Optional.ofNullable(timeout));
    }

    private static PartConfig part(String name, String upstream, String path) {
        return new PartConfig(name, upstream, PathTemplate.parse(path), false, Optional.empty());
    }

    private HttpResponse<byte[]> send(RunningGateway gateway, String method, String target, byte[] body)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + target))
                .timeout(Duration.ofSeconds(30));
        request.method(
                method,
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static void assertError(HttpResponse<byte[]> response, int status, String code) {
        String body = new String(response.body(), StandardCharsets.UTF_8);
        assertThat(response.statusCode()).as("status, body %s", body).isEqualTo(status);
        assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(body).startsWith("{\"status\":" + status + ",\"error\":\"" + code + "\",\"message\":");
    }

    @ParameterizedTest
    @EnumSource(names = {"VIRTUAL", "PLATFORM"})
    void proxyRelaysBodiesByteForByte(EngineMode mode) throws Exception {
        UpstreamConfig app = UpstreamConfig.of("app", upstream.url());
        try (RunningGateway gw = gateway(mode, List.of(app), List.of(route("p", "/p/**", proxy("app", "/p", null))))) {
            assertThat(send(gw, "GET", "/p/bytes/300000", null).body()).isEqualTo(LoopbackUpstream.pattern(300_000));
            assertThat(send(gw, "GET", "/p/bytes/300000?chunked=1", null).body())
                    .isEqualTo(LoopbackUpstream.pattern(300_000));
            byte[] upload = LoopbackUpstream.pattern(500_000);
            HttpResponse<byte[]> echoed = send(gw, "POST", "/p/echo", upload);
            assertThat(echoed.headers().firstValue("x-framing")).hasValue("length:500000");
            assertThat(echoed.body()).isEqualTo(upload);
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"VIRTUAL", "PLATFORM"})
    void refusedUpstreamIsBadGateway(EngineMode mode) throws Exception {
        UpstreamConfig down = UpstreamConfig.of("down", RawSocketUpstream.refusedUrl());
        try (RunningGateway gw =
                gateway(mode, List.of(down), List.of(route("d", "/down/**", proxy("down", "/down", null))))) {
            assertError(send(gw, "GET", "/down/bytes/10", null), 502, "refused");
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"VIRTUAL", "PLATFORM"})
    void noResponseWithinReadTimeoutIsGatewayTimeout(EngineMode mode) throws Exception {
        UpstreamConfig slow = UpstreamSpec.of("slow", upstream.url())
                .readTimeout(Duration.ofMillis(300))
                .build();
        try (RunningGateway gw =
                gateway(mode, List.of(slow), List.of(route("s", "/slow/**", proxy("slow", "/slow", null))))) {
            assertError(send(gw, "GET", "/slow/bytes/10?delay=10000", null), 504, "read_timeout");
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"VIRTUAL", "PLATFORM"})
    void routeTimeoutCancelsTheCall(EngineMode mode) throws Exception {
        UpstreamConfig app = UpstreamConfig.of("app", upstream.url());
        RouteConfig bounded = route("b", "/b/**", proxy("app", "/b", Duration.ofMillis(300)));
        try (RunningGateway gw = gateway(mode, List.of(app), List.of(bounded))) {
            long start = System.nanoTime();
            assertError(send(gw, "GET", "/b/bytes/10?delay=10000", null), 504, "timeout");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5_000);
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"VIRTUAL", "PLATFORM"})
    void compositionSplicesThreePartsVerbatim(EngineMode mode) throws Exception {
        List<UpstreamConfig> upstreams = List.of(
                UpstreamConfig.of("a", upstream.url()),
                UpstreamConfig.of("b", upstream.url()),
                UpstreamConfig.of("c", upstream.url()));
        ComposeTarget compose = new ComposeTarget(
                ComposeTarget.Fanout.PARALLEL,
                ComposeTarget.Order.DECLARED,
                ComposeTarget.OnError.PARTIAL,
                Duration.ofSeconds(10),
                false,
                List.of(
                        part("a", "a", "/json/a/16384"),
                        part("b", "b", "/json/b/5120"),
                        part("c", "c", "/json/c/7168")));
        try (RunningGateway gw = gateway(mode, upstreams, List.of(route("c", "/compose", compose)))) {
            HttpResponse<byte[]> response = send(gw, "GET", "/compose", null);
            assertThat(response.statusCode()).isEqualTo(200);
            JsonSplice splice = new JsonSplice(List.of("a", "b", "c"));
            byte[] parts = concat(
                    splice.key(0, true),
                    LoopbackUpstream.json("a", 16384),
                    splice.key(1, false),
                    LoopbackUpstream.json("b", 5120),
                    splice.key(2, false),
                    LoopbackUpstream.json("c", 7168));
            assertThat(response.body()).startsWith(parts);
            String meta = new String(
                    response.body(), parts.length, response.body().length - parts.length, StandardCharsets.UTF_8);
            assertThat(meta)
                    .startsWith(",\"_meta\":{\"parts\":{")
                    .contains("\"failed\":[]")
                    .endsWith("}}");
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"VIRTUAL", "PLATFORM"})
    void aRefusedPartIsNullInAPartialComposition(EngineMode mode) throws Exception {
        List<UpstreamConfig> upstreams = List.of(
                UpstreamConfig.of("a", upstream.url()), UpstreamConfig.of("down", RawSocketUpstream.refusedUrl()));
        ComposeTarget compose = new ComposeTarget(
                ComposeTarget.Fanout.PARALLEL,
                ComposeTarget.Order.DECLARED,
                ComposeTarget.OnError.PARTIAL,
                Duration.ofSeconds(10),
                false,
                List.of(part("a", "a", "/json/a/1000"), part("d", "down", "/json/d/1000")));
        try (RunningGateway gw = gateway(mode, upstreams, List.of(route("c", "/compose", compose)))) {
            HttpResponse<byte[]> response = send(gw, "GET", "/compose", null);
            assertThat(response.statusCode()).isEqualTo(200);
            String body = new String(response.body(), StandardCharsets.UTF_8);
            String a = new String(LoopbackUpstream.json("a", 1000), StandardCharsets.US_ASCII);
            assertThat(body).startsWith("{\"a\":" + a + ",\"d\":null,");
            assertThat(body).contains("\"failed\":[\"d\"]");
        }
    }

    private static byte[] concat(byte[]... pieces) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] piece : pieces) {
            out.writeBytes(piece);
        }
        return out.toByteArray();
    }
}
