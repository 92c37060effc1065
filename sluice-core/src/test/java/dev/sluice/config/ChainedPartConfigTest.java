package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ChainedPartConfigTest {

    static String yaml(String fanout, String... parts) {
        return """
                upstreams: { a: { url: "http://127.0.0.1:1" } }
                routes:
                  - id: r
                    match: { path: /p }
                    compose:
                      fanout: %s
                      parts:
                %s
                """.formatted(fanout, String.join("\n", parts).indent(8));
    }

    static List<Problem> problems(String yaml) {
        return ConfigLoader.check(yaml, "inline");
    }

    @Test
    void aReferenceBindsItsPartAfterAndMaxValue() throws Exception {
        GatewayConfig config = ConfigLoader.parse(
                yaml(
                        "parallel",
                        "product: { upstream: a, path: \"/products/{id}\" }",
                        "reviews: { upstream: a, path: \"/reviews?ids={product:/reviewIds}\", max-value: 2KiB }",
                        "stock: { upstream: a, path: /stock, after: product }"),
                "inline");
        List<PartConfig> parts = ((ComposeTarget) config.routes().get(0).target()).parts();
        assertThat(parts.get(0).after()).isEmpty();
        assertThat(parts.get(1).after()).contains("product"); // implied by the reference
        assertThat(parts.get(1).path().references()).containsExactly("product:/reviewIds");
        assertThat(parts.get(1).maxValue()).isEqualTo(2048);
        assertThat(parts.get(2).after()).isEqualTo(Optional.of("product"));
        assertThat(parts.get(2).maxValue()).isEqualTo(PartConfig.DEFAULT_MAX_VALUE);
    }

    @Test
    void checkRefusesCyclesUnknownPartsAndMalformedPointersEachByItsPath() {
        String yaml = yaml(
                "parallel",
                "a: { upstream: a, path: \"/a/{c:/id}\" }",
                "b: { upstream: a, path: /b, after: a }",
                "c: { upstream: a, path: /c, after: b }",
                "d: { upstream: a, path: /d, after: nowhere }",
                "e: { upstream: a, path: \"/e?x={a:id}\" }",
                "f: { upstream: a, path: \"/f?x={a:/y~2}\" }",
                "g: { upstream: a, path: \"/g?x={a:/y}\", after: b }",
                "h: { upstream: a, path: /h, after: h }",
                "i: { upstream: a, path: /i, max-value: 10 }");
        List<Problem> problems = problems(yaml);
        assertThat(problems.stream().map(Problem::path))
                .containsExactlyInAnyOrder(
                        "routes[0].compose.parts.a.path", // a after c after b after a
                        "routes[0].compose.parts.b.after",
                        "routes[0].compose.parts.c.after",
                        "routes[0].compose.parts.d.after",
                        "routes[0].compose.parts.e.path",
                        "routes[0].compose.parts.f.path",
                        "routes[0].compose.parts.g.path",
                        "routes[0].compose.parts.h.after",
                        "routes[0].compose.parts.i.max-value");
        assertThat(problems.get(0).message()).isNotBlank();
        assertThat(problems.stream()
                        .filter(p -> p.path().endsWith("parts.a.path"))
                        .findFirst()
                        .orElseThrow()
                        .message())
                .contains("a cycle: a after c after b after a");
        assertThat(problems.stream()
                        .filter(p -> p.path().endsWith("parts.d.after"))
                        .findFirst()
                        .orElseThrow()
                        .message())
                .contains("'nowhere' is not a part of this composition");
        assertThat(problems.stream()
                        .filter(p -> p.path().endsWith("parts.e.path"))
                        .findFirst()
                        .orElseThrow()
                        .message())
                .contains("JSON pointer");
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse(yaml, "inline"));
        assertThat(e.problems()).isEqualTo(problems);
    }

    @Test
    void inDeclaredOrderThePartWaitedForMustBeDeclaredFirst() {
        String parts = String.join(
                "\n",
                "reviews: { upstream: a, path: \"/r?ids={product:/ids}\" }",
                "product: { upstream: a, path: /p }");
        String declared =
                yaml("parallel", parts).replace("fanout: parallel", "fanout: parallel\n      order: declared");
        assertThat(problems(declared).stream().map(Problem::path))
                .containsExactly("routes[0].compose.parts.reviews.path");
        assertThat(problems(yaml("parallel", parts))).isEmpty(); // arrival order relays whichever is ready
    }

    @Test
    void aChainIsRefusedInASequentialComposition() {
        assertThat(
                        problems(yaml(
                                        "sequential",
                                        "a: { upstream: a, path: /a }",
                                        "b: { upstream: a, path: /b, after: a }"))
                                .stream()
                                .map(Problem::path))
                .containsExactly("routes[0].compose.parts.b.after");
    }

    @Test
    void aProxyPathTakesNoReference() {
        String yaml = """
                upstreams: { a: { url: "http://127.0.0.1:1" } }
                routes:
                  - id: r
                    match: { path: /p }
                    proxy: { upstream: a, path: "/x/{a:/b}" }
                """;
        assertThat(problems(yaml).stream().map(Problem::path)).containsExactly("routes[0].proxy.path");
    }
}
