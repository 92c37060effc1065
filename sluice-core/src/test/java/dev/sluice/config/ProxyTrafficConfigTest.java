package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.routing.PathRewrite;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The traffic keys of {@code proxy:} as the YAML writes them, and what {@code check} refuses by path. */
class ProxyTrafficConfigTest {

    private static String yaml(String proxy) {
        return """
                upstreams:
                  up: { url: "http://127.0.0.1:1" }
                  v2: { url: "http://127.0.0.1:2" }
                routes:
                  - id: r
                    match: { path: /api/** }
                    proxy: %s
                """.formatted(proxy);
    }

    static ProxyTarget bound(String proxy) throws ConfigException {
        return (ProxyTarget)
                ConfigLoader.parse(yaml(proxy), "test.yaml").routes().getFirst().target();
    }

    static List<Problem> problems(String proxy) {
        return catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse(yaml(proxy), "test.yaml"))
                .problems();
    }

    @Test
    void rewriteAndPreserveHostBind() throws ConfigException {
        ProxyTarget target = bound(
                "{ upstream: up, rewrite: { regex: \"^/api/(.*)\", replacement: \"/v2/$1\" }, preserve-host: true }");
        assertThat(target.rewrite()).contains(PathRewrite.of("^/api/(.*)", "/v2/$1"));
        assertThat(target.preserveHost()).isTrue();
        assertThat(bound("{ upstream: up }").preserveHost()).isFalse();
    }

    @Test
    void aBadRewriteIsAProblemByPath() {
        assertThat(problems("{ upstream: up, rewrite: { regex: \"^/api/(.*)\", replacement: \"/v2/$3\" } }"))
                .containsExactly(new Problem(
                        "routes[0].proxy.rewrite.replacement",
                        "'/v2/$3' refers to $3 but the regex has 1 group (expected: $0 to $1)"));
        assertThat(problems("{ upstream: up, rewrite: { regex: \"(\", replacement: /x } }"))
                .extracting(Problem::path)
                .containsExactly("routes[0].proxy.rewrite.regex");
        assertThat(problems("{ upstream: up, strip-prefix: /api, rewrite: { regex: a, replacement: /b } }"))
                .extracting(Problem::path)
                .containsExactly("routes[0].proxy.rewrite");
    }
}
