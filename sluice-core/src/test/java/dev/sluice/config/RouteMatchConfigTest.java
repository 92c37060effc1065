package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.routing.ValueMatch;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code match.headers}, {@code match.query} and {@code match.cookies} as the YAML writes them. */
class RouteMatchConfigTest {

    private static RouteMatch bound(String match) throws ConfigException {
        return ConfigLoader.parse("""
                        upstreams:
                          up: { url: "http://127.0.0.1:1" }
                        routes:
                          - id: r
                            match: %s
                            proxy: { upstream: up }
                        """.formatted(match), "test.yaml")
                .routes()
                .getFirst()
                .match();
    }

    @Test
    void everyFormBindsAndTodaysShortFormKeepsItsMeaning() throws ConfigException {
        RouteMatch m = bound("""
                { path: /api/**,
                  headers: { X-Env: { exact: canary }, x-debug: present, x-any: "*", x-version: 2 },
                  query: { version: { prefix: "2" }, legacy: absent },
                  cookies: { session: present, group: { regex: "beta-[0-9]+" } } }""");
        assertThat(m.headers())
                .isEqualTo(Map.of(
                        "x-env",
                        new ValueMatch.Exact("canary"),
                        "x-debug",
                        ValueMatch.Present.INSTANCE,
                        "x-any",
                        ValueMatch.Present.INSTANCE,
                        "x-version",
                        new ValueMatch.Exact("2")));
        assertThat(m.query())
                .isEqualTo(Map.of("version", new ValueMatch.Prefix("2"), "legacy", ValueMatch.Absent.INSTANCE));
        assertThat(m.cookies())
                .isEqualTo(Map.of("session", ValueMatch.Present.INSTANCE, "group", ValueMatch.Regex.of("beta-[0-9]+")));
        assertThat(m.cookies().get("group").test("beta-12")).isTrue();
        assertThat(m.cookies().get("group").test("beta-12x")).isFalse();
    }

    @Test
    void theSameMatchLoadedTwiceIsEqualSoAReloadSeesNoChange() throws ConfigException {
        String match = "{ path: /a, cookies: { group: { regex: \"b.*\" } } }";
        assertThat(bound(match)).isEqualTo(bound(match));
    }

    @Test
    void aNarrowerValueAfterAWiderOneIsShadowedAndTheReverseIsNot() {
        RouteMatch wide = new RouteMatch(
                dev.sluice.routing.PathPattern.parse("/a"),
                java.util.Set.of(),
                java.util.Optional.empty(),
                Map.of("x", ValueMatch.Present.INSTANCE),
                Map.of("v", new ValueMatch.Prefix("2")),
                Map.of());
        RouteMatch narrow = new RouteMatch(
                dev.sluice.routing.PathPattern.parse("/a"),
                java.util.Set.of(),
                java.util.Optional.empty(),
                Map.of("x", ValueMatch.Regex.of("y")),
                Map.of("v", new ValueMatch.Exact("2.5")),
                Map.of("c", ValueMatch.Absent.INSTANCE));
        assertThat(RouteBinder.shadows(wide, narrow)).isTrue();
        assertThat(RouteBinder.shadows(narrow, wide)).isFalse();
    }
}
