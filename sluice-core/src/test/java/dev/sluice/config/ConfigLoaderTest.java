package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.routing.PathPattern;
import dev.sluice.routing.PathTemplate;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {

    static Path resource(String name) throws Exception {
        return Path.of(ConfigLoaderTest.class.getResource("/" + name).toURI());
    }

    @Test
    void fullConfigBindsToTheExpectedRecords() throws Exception {
        GatewayConfig config = ConfigLoader.load(resource("config/full.yaml"));

        assertThat(config.server())
                .isEqualTo(new ServerConfig(
                                "127.0.0.1",
                                18080,
                                EngineMode.REACTIVE,
                                64,
                                32,
                                Duration.ofSeconds(2),
                                65536,
                                Transport.AUTO,
                                new ServerLimits(
                                        4096,
                                        32768,
                                        50,
                                        10L * 1024 * 1024,
                                        Duration.ofSeconds(5),
                                        Duration.ofSeconds(30),
                                        500,
                                        400,
                                        Duration.ofSeconds(90),
                                        48L << 20))
                        .with(Http2Settings.disabled()));
        assertThat(config.admin()).isEmpty();
        assertThat(config.upstreams()).containsOnlyKeys("catalog", "maps");
        assertThat(config.upstreams().keySet()).containsExactly("catalog", "maps");
        assertThat(config.upstream("catalog"))
                .isEqualTo(new UpstreamConfig(
                        "catalog",
                        URI.create("http://127.0.0.1:19081"),
                        128,
                        Duration.ofMillis(250),
                        Duration.ofSeconds(5),
                        Duration.ofSeconds(2),
                        0,
                        Duration.ofMinutes(1),
                        Optional.empty()));
        UpstreamConfig maps = config.upstream("maps");
        assertThat(maps)
                .isEqualTo(new UpstreamConfig(
                        "maps",
                        URI.create("http://maps.internal:19082/api/v1"),
                        256,
                        Duration.ofSeconds(5),
                        Duration.ofSeconds(30),
                        Duration.ofSeconds(5),
                        1000,
                        Duration.ofSeconds(20),
                        Optional.of(new Pace(1, Duration.ofMillis(200)))));
        assertThat(maps.basePath()).isEqualTo("/api/v1");
        assertThat(maps.authority()).isEqualTo("maps.internal:19082");

        assertThat(config.routes())
                .extracting(RouteConfig::id)
                .containsExactly("product-page", "orders.v2", "api", "health");
        RouteConfig page = config.routes().get(0);
        assertThat(page)
                .isEqualTo(new RouteConfig(
                        "product-page",
                        new RouteMatch(
                                PathPattern.parse("/products/{id}/page"),
                                Set.of("GET", "HEAD"),
                                Optional.of("shop.example.com"),
                                Map.of("x-tenant", "acme", "x-debug", "*")),
                        new ComposeTarget(
                                ComposeTarget.Fanout.SEQUENTIAL,
                                ComposeTarget.Order.DECLARED,
                                ComposeTarget.OnError.FAIL,
                                Duration.ofSeconds(3),
                                true,
                                List.of(
                                        new PartConfig(
                                                "product",
                                                "catalog",
                                                PathTemplate.parse("/products/{id}"),
                                                false,
                                                Optional.empty()),
                                        new PartConfig(
                                                "reviews",
                                                "catalog",
                                                PathTemplate.parse("/reviews?product={id}&limit={limit}"),
                                                false,
                                                Optional.of(Duration.ofSeconds(2))),
                                        new PartConfig(
                                                "route",
                                                "maps",
                                                PathTemplate.parse("/route/{id}"),
                                                true,
                                                Optional.empty()))),
                        List.of(
                                new FilterConfig.RequestHeaders(Map.of("x-a", "1", "x-n", "2"), List.of("x-b")),
                                new FilterConfig.ResponseHeaders(
                                        Map.of("cache-control", "no-store"), List.of("server")))));
        assertThat(((ComposeTarget) page.target()).parts())
                .extracting(PartConfig::name)
                .containsExactly("product", "reviews", "route");

        assertThat(config.routes().get(1))
                .isEqualTo(new RouteConfig(
                        "orders.v2",
                        RouteMatch.path("/orders/**"),
                        new ProxyTarget(
                                "catalog",
                                Optional.empty(),
                                Optional.of(PathTemplate.parse("/v2/{**}")),
                                Optional.of(Duration.ofSeconds(10))),
                        List.of()));
        assertThat(config.routes().get(2))
                .isEqualTo(new RouteConfig(
                        "api",
                        new RouteMatch(PathPattern.parse("/api/**"), Set.of("POST"), Optional.empty(), Map.of()),
                        new ProxyTarget("maps", Optional.of("/api"), Optional.empty(), Optional.empty()),
                        List.of()));
        assertThat(config.routes().get(3))
                .isEqualTo(new RouteConfig("health", RouteMatch.path("/health"), ProxyTarget.to("catalog"), List.of()));
    }

    /**
     * Collections nested deeper than any configuration's are refused as a YAML problem, never a
     * StackOverflowError (the fuzzer's finding: 1,561 {@code [} in a row; committed to its corpus as
     * {@code c-deep-flow-nesting}), and in block style too; 64 levels still load.
     */
    @Test
    void yamlNestedDeeperThanSixtyFourLevelsIsRefusedNotAStackOverflow() {
        for (String deep : List.of(
                "routes: " + "[".repeat(100_000),
                "a:\n" + "- ".repeat(5_000) + "x\n",
                "[".repeat(Includes.MAX_NESTING + 1) + "]".repeat(Includes.MAX_NESTING + 1))) {
            ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse(deep, "inline"));
            assertThat(e).as("refused").isNotNull();
            assertThat(e.problems()).singleElement().satisfies(p -> {
                assertThat(p.path()).isEqualTo("(yaml)");
                assertThat(p.message()).contains("nested deeper than 64 levels");
            });
        }
        ConfigException shallow = catchThrowableOfType(
                ConfigException.class,
                () -> ConfigLoader.parse(
                        "[".repeat(Includes.MAX_NESTING) + "]".repeat(Includes.MAX_NESTING), "inline"));
        assertThat(shallow.problems())
                .singleElement()
                .satisfies(p -> assertThat(p.path()).isEqualTo("(document)"));
    }

    @Test
    void defaultsAreAppliedWhereKeysAreLeftOut() throws Exception {
        GatewayConfig config = ConfigLoader.load(resource("config/minimal.yaml"));

        assertThat(config.server()).isEqualTo(ServerConfig.defaults());
        assertThat(config.admin()).isEmpty();
        assertThat(config.upstream("catalog"))
                .isEqualTo(UpstreamConfig.of("catalog", URI.create("http://127.0.0.1:19081")));
        assertThat(config.routes().get(0).target())
                .isEqualTo(new ComposeTarget(
                        ComposeTarget.Fanout.PARALLEL,
                        ComposeTarget.Order.ARRIVAL,
                        ComposeTarget.OnError.PARTIAL,
                        Duration.ofSeconds(10),
                        false,
                        List.of(new PartConfig("a", "catalog", PathTemplate.parse("/a"), false, Optional.empty()))));
        assertThat(config.routes().get(1).match()).isEqualTo(RouteMatch.path("/**"));
        assertThat(config.routes().get(1).filters()).isEmpty();
        assertThat(ConfigLoader.check(resource("config/minimal.yaml"))).isEmpty();
    }

    @Test
    void anAdminSectionBindsWithItsDefaultsAndItsProblemsByPath() throws Exception {
        GatewayConfig config = ConfigLoader.parse("""
        admin: { port: 0 }
        upstreams: { a: { url: "http://127.0.0.1:1" } }
        routes: [ { id: r, match: { path: / }, proxy: { upstream: a } } ]
        """, "inline");
        assertThat(config.admin()).contains(new AdminConfig("127.0.0.1", 0, Duration.ZERO));
        assertThat(ConfigLoader.parse("""
                        admin: { drain-delay: 5s }
                        upstreams: { a: { url: "http://127.0.0.1:1" } }
                        routes: [ { id: r, match: { path: / }, proxy: { upstream: a } } ]
                        """, "inline").admin())
                .contains(new AdminConfig("127.0.0.1", 9090, Duration.ofSeconds(5)));
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse("""
        admin: { host: "", port: 70000, path: /x }
        upstreams: { a: { url: "http://127.0.0.1:1" } }
        routes: [ { id: r, match: { path: / }, proxy: { upstream: a } } ]
        """, "inline"));
        assertThat(e).as("refused").isNotNull();
        assertThat(e.problems())
                .extracting(Problem::path)
                .containsExactlyInAnyOrder("admin.host", "admin.port", "admin.path");
    }

    @Test
    void aTracingSectionBindsItsEndpointAndItsProblemsByPath() throws Exception {
        GatewayConfig config = ConfigLoader.parse("""
        tracing: { otlp: { endpoint: "http://collector:4318/v1/traces" } }
        upstreams: { a: { url: "http://127.0.0.1:1" } }
        routes: [ { id: r, match: { path: / }, proxy: { upstream: a } } ]
        """, "inline");
        assertThat(config.tracing())
                .contains(new TracingConfig(java.net.URI.create("http://collector:4318/v1/traces")));
        assertThat(config.with(EngineMode.REACTIVE, 0).tracing())
                .as("kept by --engine and --port")
                .isEqualTo(config.tracing());
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse("""
        tracing: { otlp: { endpoint: "ftp://collector/v1/traces", headers: {} }, zipkin: {} }
        upstreams: { a: { url: "http://127.0.0.1:1" } }
        routes: [ { id: r, match: { path: / }, proxy: { upstream: a } } ]
        """, "inline"));
        assertThat(e).as("refused").isNotNull();
        assertThat(e.problems())
                .extracting(Problem::path)
                .containsExactlyInAnyOrder("tracing.otlp.endpoint", "tracing.otlp.headers", "tracing.zipkin");
        ConfigException missing = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse("""
        tracing: {}
        upstreams: { a: { url: "http://127.0.0.1:1" } }
        routes: [ { id: r, match: { path: / }, proxy: { upstream: a } } ]
        """, "inline"));
        assertThat(missing.problems()).extracting(Problem::path).containsExactly("tracing.otlp");
    }

    @Test
    void sizesAcceptUnits() throws Exception {
        for (var c : Map.of("1024", 1024, "16KiB", 16384, "64KB", 64000, "1MiB", 1048576, "2mb", 2000000)
                .entrySet()) {
            GatewayConfig config = ConfigLoader.parse(
                    "server: { read-ahead: " + c.getKey() + " }\n"
                            + "routes: [ { id: r, match: { path: / }, proxy: { upstream: a } } ]\n"
                            + "upstreams: { a: { url: 'http://127.0.0.1:1' } }\n",
                    "inline");
            assertThat(config.server().readAhead()).as(c.getKey()).isEqualTo(c.getValue());
        }
    }

    @Test
    void sizesOutOfRangeAreProblems() {
        for (String size : List.of("999999999999GiB", "3GiB", "1023", "16XB", "-1KiB")) {
            List<Problem> problems = ConfigLoader.check(
                    "server: { read-ahead: " + size + " }\n"
                            + "routes: [ { id: r, match: { path: / }, proxy: { upstream: a } } ]\n"
                            + "upstreams: { a: { url: 'http://127.0.0.1:1' } }\n",
                    "inline");
            assertThat(problems).as(size).singleElement().satisfies(p -> {
                assertThat(p.path()).isEqualTo("server.read-ahead");
                assertThat(p.message()).contains("(expected: a size >= 1024 bytes");
            });
        }
    }

    @Test
    void transportIsAutoUnlessSet() throws Exception {
        String rest = "routes: [ { id: r, match: { path: / }, proxy: { upstream: a } } ]\n"
                + "upstreams: { a: { url: 'http://127.0.0.1:1' } }\n";
        assertThat(ConfigLoader.parse(rest, "inline").server().transport()).isEqualTo(Transport.AUTO);
        assertThat(ConfigLoader.parse("server: { transport: nio }\n" + rest, "inline")
                        .server()
                        .transport())
                .isEqualTo(Transport.NIO);
        assertThat(ConfigLoader.parse("server: { engine: reactive, transport: io_uring }\n" + rest, "inline")
                        .server()
                        .transport())
                .isEqualTo(Transport.IO_URING);
    }

    @Test
    void transportProblems() {
        String rest = "routes: [ { id: r, match: { path: / }, proxy: { upstream: a } } ]\n"
                + "upstreams: { a: { url: 'http://127.0.0.1:1' } }\n";
        assertThat(ConfigLoader.check("server: { engine: reactive, transport: epoll }\n" + rest, "inline"))
                .singleElement()
                .satisfies(p -> {
                    assertThat(p.path()).isEqualTo("server.transport");
                    assertThat(p.message()).isEqualTo("'epoll' (expected: one of auto, nio, io_uring)");
                });
        assertThat(ConfigLoader.check("server: { engine: virtual, transport: io_uring }\n" + rest, "inline"))
                .singleElement()
                .satisfies(p -> {
                    assertThat(p.path()).isEqualTo("server.transport");
                    assertThat(p.message())
                            .isEqualTo(
                                    "'io_uring' needs engine 'reactive' (expected: auto or nio for engine 'virtual')");
                });
    }

    @Test
    void durationsAcceptEveryUnit() throws Exception {
        for (var c : Map.of(
                        "250ms",
                        Duration.ofMillis(250),
                        "2s",
                        Duration.ofSeconds(2),
                        "3m",
                        Duration.ofMinutes(3),
                        "1h",
                        Duration.ofHours(1))
                .entrySet()) {
            GatewayConfig config = ConfigLoader.parse(
                    "server: { shutdown-grace: " + c.getKey() + " }\n"
                            + "routes: [ { id: r, match: { path: / }, proxy: { upstream: a } } ]\n"
                            + "upstreams: { a: { url: 'http://127.0.0.1:1' } }\n",
                    "inline");
            assertThat(config.server().shutdownGrace()).as(c.getKey()).isEqualTo(c.getValue());
        }
    }

    @Test
    void exceptionMessageListsEveryProblemWithItsPath() {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse("""
        server: { port: 99999, engine: warp }
        routes: []
        """, "gateway.yaml"));

        assertThat(e.source()).isEqualTo("gateway.yaml");
        assertThat(e.problems())
                .containsExactly(
                        new Problem("server.port", "99999 (expected: a port 0..65535)"),
                        new Problem("server.engine", "'warp' (expected: one of virtual, platform, reactive)"),
                        new Problem("routes", "[] (expected: at least one route)"));
        assertThat(e.getMessage()).isEqualTo("""
        3 problems in gateway.yaml:
          server.port: 99999 (expected: a port 0..65535)
          server.engine: 'warp' (expected: one of virtual, platform, reactive)
          routes: [] (expected: at least one route)""");
        assertThat(e.problems().get(0)).hasToString("server.port: 99999 (expected: a port 0..65535)");
    }

    @Test
    void aMissingFileIsOneProblem(@TempDir Path dir) {
        Path missing = dir.resolve("nope.yaml");
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.load(missing));
        assertThat(e.problems()).hasSize(1);
        assertThat(e.problems().get(0).path()).isEqualTo("(file)");
        assertThat(e.problems().get(0).message()).contains(missing.toString()).contains("does not exist");
        assertThat(e.getMessage()).startsWith("1 problem in " + missing + ":");
        assertThat(ConfigLoader.check(missing)).isEqualTo(e.problems());
    }

    @Test
    void anUnreadableFileIsOneProblem(@TempDir Path dir) {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.load(dir));
        assertThat(e.problems()).singleElement().satisfies(p -> {
            assertThat(p.path()).isEqualTo("(file)");
            assertThat(p.message()).contains("cannot be read");
        });
    }

    @Test
    void aFileOnDiskLoads(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("gateway.yaml");
        Files.writeString(file, Files.readString(resource("config/minimal.yaml")));
        assertThat(ConfigLoader.load(file).routes()).hasSize(2);
    }

    @Test
    void publicParametersAreRequired() {
        assertThatThrownBy(() -> ConfigLoader.parse(null, "x"))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("yaml");
        assertThatThrownBy(() -> ConfigLoader.load(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("file");
        assertThatThrownBy(() -> new ConfigException("x", List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void answersCarryTheirRequestIdUnlessServerRequestIdResponseIsFalse() throws Exception {
        String routes = "routes: [ { id: a, match: { path: /a }, proxy: { upstream: u } } ]\n"
                + "upstreams: { u: { url: \"http://127.0.0.1:9\" } }\n";
        assertThat(ConfigLoader.parse(routes, "t.yaml").server().responseRequestId())
                .isTrue();
        assertThat(ConfigLoader.parse(routes + "server: { request-id: { response: false } }\n", "t.yaml")
                        .server()
                        .responseRequestId())
                .isFalse();
        assertThat(ConfigLoader.check(routes + "server: { request-id: { header: X-Id } }\n", "t.yaml"))
                .extracting(Problem::path)
                .containsExactly("server.request-id.header");
    }
}
