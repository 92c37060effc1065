package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RateLimitConfigTest {

    @Test
    void aRateLimitAndTheRedisItSharesAreReadWithTheirDefaults() throws Exception {
        GatewayConfig config = ConfigLoader.parse("""
                upstreams:
                  catalog: { url: "http://127.0.0.1:19081" }
                redis: { url: "redis://127.0.0.1:6390/2" }
                routes:
                  - id: orders
                    match: { path: "/orders/**" }
                    proxy: { upstream: catalog }
                    filters:
                      - rate-limit: { key: "claim:sub", permits: 100, per: 1s, burst: 20, store: redis }
                      - rate-limit: { key: "header:X-Client", permits: 5, per: 1m, on-store-failure: deny }
                      - rate-limit: { key: client-address, permits: 1 }
                """, "test.yaml");
        assertThat(config.redis())
                .contains(
                        new RedisConfig(URI.create("redis://127.0.0.1:6390/2"), Duration.ofMillis(100), "sluice:rl:"));
        assertThat(config.routes().getFirst().filters())
                .containsExactly(
                        new FilterConfig.RateLimit(
                                new FilterConfig.RateKey(FilterConfig.RateKey.Kind.CLAIM, "sub"),
                                100,
                                Duration.ofSeconds(1),
                                20,
                                FilterConfig.RateLimit.Store.REDIS,
                                true),
                        new FilterConfig.RateLimit(
                                FilterConfig.RateKey.header("x-client"),
                                5,
                                Duration.ofMinutes(1),
                                0,
                                FilterConfig.RateLimit.Store.LOCAL,
                                false),
                        FilterConfig.RateLimit.local(
                                FilterConfig.RateKey.clientAddress(), 1, Duration.ofSeconds(1), 0));
    }

    @Test
    void aRedisSectionTakesATimeoutAPrefixAndATlsUrl() throws Exception {
        GatewayConfig config = ConfigLoader.parse("""
                redis: { url: "rediss://:secret@cache.internal:6380/1", timeout: 250ms, prefix: "shop:" }
                upstreams:
                  catalog: { url: "http://127.0.0.1:19081" }
                routes:
                  - id: a
                    match: { path: /a }
                    proxy: { upstream: catalog }
                """, "test.yaml");
        assertThat(config.redis())
                .contains(new RedisConfig(
                        URI.create("rediss://:secret@cache.internal:6380/1"), Duration.ofMillis(250), "shop:"));
    }
}
