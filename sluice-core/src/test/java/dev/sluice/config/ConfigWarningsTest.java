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

    @Test
    void anAdminBeyondLoopbackWithoutATokenIsWarnedOf() throws Exception {
        String rest = "upstreams: { u: { url: \"http://127.0.0.1:9\" } }\n"
                + "routes: [ { id: a, match: { path: /a }, proxy: { upstream: u } } ]\n";
        assertThat(ConfigWarnings.of(ConfigLoader.parse(rest + "admin: { host: 0.0.0.0 }\n", "t.yaml")))
                .extracting(Problem::path)
                .containsExactly("admin.host");
        assertThat(ConfigWarnings.of(ConfigLoader.parse(
                        rest + "admin: { host: 0.0.0.0, auth: { token: abcdefghijklmnopq } }\n", "t.yaml")))
                .isEmpty();
        for (String host : new String[] {"127.0.0.1", "localhost", "::1"}) {
            assertThat(ConfigWarnings.of(ConfigLoader.parse(rest + "admin: { host: \"" + host + "\" }\n", "t.yaml")))
                    .as(host)
                    .isEmpty();
        }
        assertThat(ConfigLoader.check(rest + "admin: { auth: { token: short } }\n", "t.yaml"))
                .singleElement()
                .satisfies(p -> {
                    assertThat(p.path()).isEqualTo("admin.auth.token");
                    assertThat(p.message()).doesNotContain("short");
                });
    }
}
