package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.net.URI;
import org.junit.jupiter.api.Test;

class UpstreamProtocolConfigTest {

    private static final String ROUTES = """
            routes:
              - { id: g, match: { path: "/g/**" }, proxy: { upstream: grpc } }
            """;

    @Test
    void protocolAndStreamBoundsAreRead() throws Exception {
        GatewayConfig config = ConfigLoader.parse("""
                upstreams:
                  grpc:
                    url: http://127.0.0.1:50051
                    protocol: h2c
                    max-streams-per-connection: 50
                    max-connections: 4
                  plain: { url: "http://127.0.0.1:8081" }
                  tls: { url: "https://10.0.0.9", protocol: h2 }
                """ + ROUTES, "test.yaml");
        UpstreamConfig grpc = config.upstreams().get("grpc");
        assertThat(grpc.protocol()).isEqualTo(UpstreamProtocol.H2C);
        assertThat(grpc.maxStreamsPerConnection()).isEqualTo(50);
        assertThat(grpc.maxConnections()).isEqualTo(4);
        assertThat(config.upstreams().get("plain").protocol()).isEqualTo(UpstreamProtocol.HTTP_1_1);
        assertThat(config.upstreams().get("plain").maxStreamsPerConnection())
                .isEqualTo(UpstreamConfig.DEFAULT_MAX_STREAMS);
        assertThat(config.upstreams().get("tls").protocol()).isEqualTo(UpstreamProtocol.H2);
        assertThat(grpc.endpoint(0).protocol()).isEqualTo(UpstreamProtocol.H2C);
    }

    @Test
    void aProtocolTheSchemeCannotCarryIsAProblemByPath() {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse("""
                upstreams:
                  a: { url: "http://127.0.0.1:1", protocol: h2 }
                  b: { url: "https://127.0.0.1:1", protocol: h2c }
                  c: { url: "http://127.0.0.1:1", protocol: http/2 }
                  d: { url: "http://127.0.0.1:1", protocol: h2c, max-streams-per-connection: 0 }
                routes:
                  - { id: a, match: { path: "/a" }, proxy: { upstream: a } }
                  - { id: b, match: { path: "/b" }, proxy: { upstream: b } }
                  - { id: c, match: { path: "/c" }, proxy: { upstream: c } }
                  - { id: d, match: { path: "/d" }, proxy: { upstream: d } }
                """, "bad.yaml"));
        assertThat(e.problems())
                .extracting(Problem::path)
                .containsExactlyInAnyOrder(
                        "upstreams.a.protocol",
                        "upstreams.b.protocol",
                        "upstreams.c.protocol",
                        "upstreams.d.max-streams-per-connection");
        assertThat(e.problems().getFirst().message()).contains("h2c for an http:// upstream");
    }

    @Test
    void theBuilderApiChecksTheSchemeToo() {
        UpstreamConfig plain = UpstreamConfig.of("a", URI.create("http://127.0.0.1:1"));
        assertThat(plain.withProtocol(UpstreamProtocol.H2C, 10).protocol()).isEqualTo(UpstreamProtocol.H2C);
        assertThatThrownBy(() -> plain.withProtocol(UpstreamProtocol.H2, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("protocol: 'h2'");
        assertThatThrownBy(() -> plain.withProtocol(UpstreamProtocol.H2C, 0))
                .hasMessage("maxStreamsPerConnection: 0 (expected: > 0)");
    }
}
