package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PartShapingConfigTest {

    static String yaml(String part) {
        return """
                upstreams: { a: { url: "http://127.0.0.1:1" } }
                routes:
                  - id: r
                    match: { path: /p }
                    compose:
                      parts:
                        p: { upstream: a, path: /x, %s }
                """.formatted(part);
    }

    @Test
    void shapingKeysBindToThePartsShaping() throws Exception {
        GatewayConfig config = ConfigLoader.parse(
                yaml("select: [name, \"images[*].url\"], rename: { name: title }, take: /data, max-key-bytes: 1KiB"),
                "inline");
        ComposeTarget target = (ComposeTarget) config.routes().get(0).target();
        assertThat(target.parts().get(0).shaping())
                .contains(new PartConfig.Shaping(
                        List.of("name", "images[*].url"),
                        List.of(),
                        Map.of("name", "title"),
                        Optional.of("/data"),
                        1024));
        GatewayConfig plain = ConfigLoader.parse(yaml("optional: false"), "inline");
        assertThat(((ComposeTarget) plain.routes().get(0).target())
                        .parts()
                        .get(0)
                        .shaping())
                .isEmpty();
    }

    @Test
    void badShapingIsRefusedByPath() {
        assertThat(problems("take: data/items")).containsExactly("routes[0].compose.parts.p.take");
        assertThat(problems("take: /a~2b")).containsExactly("routes[0].compose.parts.p.take");
        assertThat(problems("select: [a], exclude: [b]")).containsExactly("routes[0].compose.parts.p.exclude");
        assertThat(problems("select: [\"a..b\", \"c[0]\", 3, \"d[*].e\"]"))
                .containsExactly(
                        "routes[0].compose.parts.p.select[0]",
                        "routes[0].compose.parts.p.select[1]",
                        "routes[0].compose.parts.p.select[2]");
        assertThat(problems("select: [a, b], rename: { a: b }")).containsExactly("routes[0].compose.parts.p.rename.a");
        assertThat(problems("rename: { a: c, b: c }")).containsExactly("routes[0].compose.parts.p.rename.b");
        assertThat(problems("select: [a], rename: { x: y }")).containsExactly("routes[0].compose.parts.p.rename.x");
        assertThat(problems("exclude: [a], rename: { a.b: y }"))
                .containsExactly("routes[0].compose.parts.p.rename.a.b");
        assertThat(problems("select: [a], rename: { a.b: y, a: z }")).isEmpty();
        assertThat(problems("max-key-bytes: 10")).containsExactly("routes[0].compose.parts.p.max-key-bytes");
        assertThat(problems("take: /a, max-key-bytes: 0")).containsExactly("routes[0].compose.parts.p.max-key-bytes");
    }

    static List<String> problems(String part) {
        return ConfigLoader.check(yaml(part), "inline").stream()
                .map(Problem::path)
                .toList();
    }
}
