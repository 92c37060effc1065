package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CorsConfigTest {

    @Test
    void aCorsFilterIsReadWithItsOriginsNormalisedAndItsDefaults() throws Exception {
        GatewayConfig config = ConfigLoader.parse("""
                upstreams:
                  catalog: { url: "http://127.0.0.1:19081" }
                routes:
                  - id: orders
                    match: { path: "/orders/**", methods: [GET] }
                    proxy: { upstream: catalog }
                    filters:
                      - cors:
                          allowed-origins: ["HTTPS://Shop.Example:443", "https://*.example.com"]
                          allowed-methods: [GET, PUT]
                          allowed-headers: [Content-Type, X-Trace]
                          expose-headers: [X-Request-Id]
                          allow-credentials: true
                          max-age: 10m
                      - cors: { allowed-origins: ["*"] }
                      - ip-filter: { trusted-proxies: [10.0.0.5] }
                """, "test.yaml");
        assertThat(config.routes().getFirst().filters())
                .containsExactly(
                        new FilterConfig.Cors(
                                List.of("https://shop.example", "https://*.example.com"),
                                List.of("GET", "PUT"),
                                List.of("content-type", "x-trace"),
                                List.of("X-Request-Id"),
                                true,
                                Optional.of(Duration.ofMinutes(10))),
                        new FilterConfig.Cors(
                                List.of("*"),
                                List.of("GET", "HEAD", "POST"),
                                List.of(),
                                List.of(),
                                false,
                                Optional.empty()),
                        new FilterConfig.IpFilter(List.of(), List.of(), List.of("10.0.0.5")));
    }
}
