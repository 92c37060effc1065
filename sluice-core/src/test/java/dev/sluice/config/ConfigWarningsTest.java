package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ConfigWarningsTest {

    @Test
    void anUpstreamNoRouteOrPartUsesIsNamedByPath() throws Exception {
        GatewayConfig config = ConfigLoader.parse("""
                upstreams:
                  catalog: { url: "http://127.0.0.1:19081" }
                  reviews: { url: "http://127.0.0.1:19082" }
                  spare: { url: "http://127.0.0.1:19083" }
                routes:
                  - id: items
                    match: { path: "/items/**" }
                    proxy: { upstream: catalog }
                  - id: page
                    match: { path: "/page/{id}" }
                    compose:
                      parts:
                        r: { upstream: reviews, path: "/r/{id}" }
                """, "test.yaml");
        assertThat(ConfigWarnings.of(config))
                .extracting(Problem::toString)
                .containsExactly("upstreams.spare: no route uses this upstream");
    }

    @Test
    void corsAllowedMethodsTheRouteDoesNotAcceptAreNamedByPath() throws Exception {
        GatewayConfig config = ConfigLoader.parse("""
                upstreams:
                  catalog: { url: "http://127.0.0.1:19081" }
                routes:
                  - id: orders
                    match: { path: "/orders/**", methods: [GET, PUT] }
                    proxy: { upstream: catalog }
                    filters:
                      - ip-filter: { trusted-proxies: [10.0.0.5] }
                      - cors: { allowed-origins: ["*"], allowed-methods: [GET, PUT, DELETE] }
                  - id: any
                    match: { path: "/any/**" }
                    proxy: { upstream: catalog }
                    filters:
                      - cors: { allowed-origins: ["*"], allowed-methods: [PATCH] }
                """, "test.yaml");
        assertThat(ConfigWarnings.of(config))
                .extracting(Problem::path)
                .containsExactly("routes[0].filters[1].cors.allowed-methods");
        assertThat(ConfigWarnings.of(config).getFirst().message()).startsWith("DELETE is allowed");
    }
}
