package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class CompressionConfigTest {

    private static final String HEAD = """
            upstreams:
              catalog: { url: "http://127.0.0.1:19081" }
            routes:
              - id: orders
                match: { path: "/orders/**" }
                proxy: { upstream: catalog }
                filters:
            """;

    @Test
    void aCompressionFilterIsReadWithItsDefaults() throws Exception {
        GatewayConfig config = ConfigLoader.parse(HEAD + """
                      - compression: { types: [Application/JSON, "text/*"], min-size: 2KiB, level: 1 }
                """, "test.yaml");
        assertThat(config.routes().getFirst().filters())
                .containsExactly(new FilterConfig.Compression(List.of("application/json", "text/*"), 2048, 1));
        GatewayConfig defaults = ConfigLoader.parse(HEAD + """
                      - compression: {}
                """, "test.yaml");
        assertThat(defaults.routes().getFirst().filters()).containsExactly(FilterConfig.Compression.defaults());
        GatewayConfig bare = ConfigLoader.parse(HEAD + """
                      - compression:
                """, "test.yaml");
        assertThat(bare.routes().getFirst().filters()).containsExactly(FilterConfig.Compression.defaults());
        GatewayConfig zstd = ConfigLoader.parse(HEAD + """
                      - compression: { codings: [ZSTD, gzip], zstd-level: 6 }
                """, "test.yaml");
        assertThat(zstd.routes().getFirst().filters())
                .containsExactly(
                        new FilterConfig.Compression(List.of("application/json"), 1024, 1, List.of("zstd", "gzip"), 6));
    }

    @Test
    void everyBadValueIsAProblemByItsPath() {
        List<Problem> problems = ConfigLoader.check(HEAD + """
                      - compression: { types: [application/json, "*/*", 7, "json"], min-size: -1, level: 10, brotli: true }
                      - compression: {}
                """, "test.yaml");
        assertThat(problems)
                .extracting(Problem::path)
                .containsExactlyInAnyOrder(
                        "routes[0].filters[0].compression.brotli",
                        "routes[0].filters[0].compression.types[1]",
                        "routes[0].filters[0].compression.types[2]",
                        "routes[0].filters[0].compression.types[3]",
                        "routes[0].filters[0].compression.min-size",
                        "routes[0].filters[0].compression.level",
                        "routes[0].filters[1].compression");
        assertThat(ConfigLoader.check(HEAD + """
                      - compression: { types: [] }
                      - compression: {}
                """, "test.yaml"))
                .extracting(Problem::path)
                .containsExactly("routes[0].filters[0].compression.types", "routes[0].filters[1].compression");
        assertThat(ConfigLoader.check(HEAD + """
                      - compression: { codings: [gzip, br, gzip, 3], zstd-level: 20 }
                """, "test.yaml"))
                .extracting(Problem::path)
                .containsExactlyInAnyOrder(
                        "routes[0].filters[0].compression.codings[1]",
                        "routes[0].filters[0].compression.codings[2]",
                        "routes[0].filters[0].compression.codings[3]",
                        "routes[0].filters[0].compression.zstd-level");
        assertThat(ConfigLoader.check(HEAD + """
                      - compression: { codings: [] }
                """, "test.yaml"))
                .extracting(Problem::path)
                .containsExactly("routes[0].filters[0].compression.codings");
        assertThat(ConfigLoader.check(HEAD + """
                      - compression: [gzip]
                """, "test.yaml"))
                .extracting(Problem::path)
                .containsExactly("routes[0].filters[0].compression");
    }
}
