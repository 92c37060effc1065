package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RequirementsConfigTest {

    static String yaml(String lines) {
        return """
                upstreams: { a: { url: "http://127.0.0.1:1" } }
                routes:
                  - id: r
                    match: { path: /p }
                    compose:
                      %s
                      parts:
                        product: { upstream: a, path: /x }
                        reviews: { upstream: a, path: /y }
                """.formatted(lines);
    }

    static Requirements requirements(String lines) throws Exception {
        return ((ComposeTarget) ConfigLoader.parse(yaml(lines), "inline")
                        .routes()
                        .get(0)
                        .target())
                .requirements();
    }

    static List<String> problems(String lines) {
        return ConfigLoader.check(yaml(lines), "inline").stream()
                .map(Problem::path)
                .toList();
    }

    @Test
    void statusFromAndRequireBindPartNames() throws Exception {
        assertThat(requirements("fanout: parallel")).isEqualTo(Requirements.NONE);
        assertThat(requirements("status-from: product\n      require: [reviews]"))
                .isEqualTo(new Requirements(Optional.of("product"), List.of("reviews")));
    }

    @Test
    void unknownPartNamesAreRefusedByPath() {
        assertThat(problems("status-from: price")).containsExactly("routes[0].compose.status-from");
        assertThat(problems("require: [product, price]")).containsExactly("routes[0].compose.require[1]");
        assertThat(problems("require: [product, product]")).containsExactly("routes[0].compose.require[1]");
        assertThat(problems("require: product")).containsExactly("routes[0].compose.require");
    }
}
