package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PartCachingConfigTest {

    static String yaml(String cache) {
        return """
                server: { limits: { max-part-cache: 8MiB } }
                upstreams: { a: { url: "http://127.0.0.1:1" } }
                routes:
                  - id: r
                    match: { path: /p }
                    compose:
                      parts:
                        p: { upstream: a, path: /x, cache: %s }
                """.formatted(cache);
    }

    static Optional<PartCaching> cache(String cache) throws Exception {
        GatewayConfig config = ConfigLoader.parse(yaml(cache), "inline");
        assertThat(config.server().limits().maxPartCache()).isEqualTo(8L * 1024 * 1024);
        return ((ComposeTarget) config.routes().get(0).target()).parts().get(0).cache();
    }

    static List<String> problems(String cache) {
        return ConfigLoader.check(yaml(cache), "inline").stream()
                .map(Problem::path)
                .toList();
    }

    @Test
    void cacheBindsTrueOrATtlAndAMaxEntry() throws Exception {
        assertThat(cache("true")).contains(PartCaching.upstreamOnly());
        assertThat(cache("false")).isEmpty();
        assertThat(cache("{ ttl: 30s, max-entry: 256KiB }"))
                .contains(new PartCaching(Optional.of(Duration.ofSeconds(30)), 256 * 1024));
    }

    @Test
    void aBadCacheIsRefusedByPath() {
        assertThat(problems("{ ttl: soon }")).containsExactly("routes[0].compose.parts.p.cache.ttl");
        assertThat(problems("{ max-entry: 0 }")).containsExactly("routes[0].compose.parts.p.cache.max-entry");
        assertThat(problems("{ size: 1 }")).containsExactly("routes[0].compose.parts.p.cache.size");
        assertThat(problems("[1]")).containsExactly("routes[0].compose.parts.p.cache");
    }
}
