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

    @Test
    void backendsBindWithTheFirstAsTheRoutesUpstream() throws ConfigException {
        ProxyTarget target = bound(
                "{ backends: [{ upstream: up, weight: 90 }, { upstream: v2, weight: 10 }], sticky: { cookie: canary } }");
        assertThat(target.upstream()).isEqualTo("up");
        assertThat(target.backends())
                .contains(new Backends(
                        List.of(new Backends.Backend("up", 90), new Backends.Backend("v2", 10)),
                        java.util.Optional.of(new Backends.Sticky(Backends.Sticky.Kind.COOKIE, "canary"))));
        assertThat(target.side("v2").upstream()).isEqualTo("v2");
        assertThat(target.side("v2").backends()).isEmpty();
    }

    @Test
    void badBackendsAreProblemsByPath() {
        assertThat(problems("{ backends: [{ upstream: up, weight: 90 }, { upstream: nope, weight: 10 }] }"))
                .extracting(Problem::path)
                .containsExactly("routes[0].proxy.backends[1].upstream");
        assertThat(problems("{ backends: [{ upstream: up, weight: 0 }, { upstream: v2, weight: 0 }] }"))
                .containsExactly(
                        new Problem("routes[0].proxy.backends", "every weight is 0 (expected: at least one above 0)"));
        assertThat(problems("{ backends: [{ upstream: up, weight: -1 }, { upstream: up, weight: 1 }] }"))
                .extracting(Problem::path)
                .containsExactly("routes[0].proxy.backends[0].weight", "routes[0].proxy.backends[1].upstream");
        assertThat(problems("{ upstream: up, backends: [{ upstream: up, weight: 1 }, { upstream: v2, weight: 1 }] }"))
                .extracting(Problem::path)
                .containsExactly("routes[0].proxy.backends");
        assertThat(problems("{ upstream: up, sticky: { cookie: c } }"))
                .extracting(Problem::path)
                .containsExactly("routes[0].proxy.sticky");
        assertThat(
                        problems(
                                "{ backends: [{ upstream: up, weight: 1 }, { upstream: v2, weight: 1 }], sticky: { cookie: c, header: h } }"))
                .extracting(Problem::path)
                .containsExactly("routes[0].proxy.sticky");
    }

    @Test
    void mirrorBindsWithItsDefaultsAndABadOneIsAProblemByPath() throws ConfigException {
        assertThat(bound("{ upstream: up, mirror: { upstream: v2, percent: 12.5 } }")
                        .mirror())
                .contains(new MirrorConfig("v2", 12.5, 16));
        assertThat(bound("{ upstream: up, mirror: { upstream: v2, max-in-flight: 4 } }")
                        .mirror())
                .contains(new MirrorConfig("v2", 100, 4));
        assertThat(bound("{ upstream: up, mirror: { upstream: v2, max-body: 1MiB } }")
                        .mirror())
                .contains(new MirrorConfig("v2", 100, 16, 1024 * 1024));
        assertThat(problems("{ upstream: up, mirror: { upstream: v2, max-body: 17MiB } }"))
                .extracting(Problem::path)
                .containsExactly("routes[0].proxy.mirror.max-body");
        assertThat(problems("{ upstream: up, mirror: { upstream: v2, percent: 101, max-in-flight: 0 } }"))
                .extracting(Problem::path)
                .containsExactly("routes[0].proxy.mirror.percent", "routes[0].proxy.mirror.max-in-flight");
        assertThat(problems("{ upstream: up, mirror: { upstream: nope } }"))
                .extracting(Problem::path)
                .containsExactly("routes[0].proxy.mirror.upstream");
    }
}
