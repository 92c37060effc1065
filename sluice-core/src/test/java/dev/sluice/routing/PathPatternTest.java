package dev.sluice.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PathPatternTest {

    static Optional<PathPattern.Match> match(String pattern, String path) {
        return PathPattern.parse(pattern).match(path);
    }

    @Test
    void exactPatternsMatchOnlyTheirPath() {
        assertThat(match("/health", "/health")).contains(new PathPattern.Match(Map.of(), ""));
        assertThat(match("/health", "/health/")).isEmpty();
        assertThat(match("/health", "/healthz")).isEmpty();
        assertThat(match("/health", "/")).isEmpty();
        assertThat(match("/a/b", "/a")).isEmpty();
        assertThat(match("/a/b", "/a/b/c")).isEmpty();
        assertThat(match("/", "/")).contains(new PathPattern.Match(Map.of(), ""));
        assertThat(match("/", "/a")).isEmpty();
        assertThat(match("/a/", "/a/")).isPresent();
        assertThat(match("/a/", "/a")).isEmpty();
        assertThat(match("/a", "")).isEmpty();
        assertThat(match("/a", "a")).isEmpty();
    }

    @Test
    void variablesMatchOneNonEmptySegmentRaw() {
        assertThat(match("/products/{id}/page", "/products/p%201/page"))
                .contains(new PathPattern.Match(Map.of("id", "p%201"), ""));
        assertThat(match("/products/{id}", "/products/")).isEmpty();
        assertThat(match("/products/{id}", "/products/a/b")).isEmpty();
        assertThat(match("/{a}/x/{b}", "/1/x/2").orElseThrow().variables())
                .containsExactly(Map.entry("a", "1"), Map.entry("b", "2"));
        assertThat(PathPattern.parse("/{a}/x/{b}").variableNames()).containsExactly("a", "b");
    }

    @Test
    void wildcardsMatchThePrefixAndKeepTheRemainder() {
        assertThat(match("/orders/**", "/orders")).contains(new PathPattern.Match(Map.of(), ""));
        assertThat(match("/orders/**", "/orders/")).contains(new PathPattern.Match(Map.of(), "/"));
        assertThat(match("/orders/**", "/orders/1/items")).contains(new PathPattern.Match(Map.of(), "/1/items"));
        assertThat(match("/orders/**", "/ordersx")).isEmpty();
        assertThat(match("/orders/**", "/other")).isEmpty();
        assertThat(match("/**", "/")).contains(new PathPattern.Match(Map.of(), "/"));
        assertThat(match("/**", "/a/b")).contains(new PathPattern.Match(Map.of(), "/a/b"));
        assertThat(match("/t/{tenant}/**", "/t/acme/x"))
                .contains(new PathPattern.Match(Map.of("tenant", "acme"), "/x"));
        assertThat(PathPattern.parse("/orders/**").isWildcard()).isTrue();
        assertThat(PathPattern.parse("/orders").isWildcard()).isFalse();
    }

    @Test
    void badPatternsAreRefusedWithTheReason() {
        assertThatThrownBy(() -> PathPattern.parse("orders"))
                .hasMessage("'orders' (expected: a path starting with '/')");
        assertThatThrownBy(() -> PathPattern.parse("/a?b"))
                .hasMessage("'/a?b' (expected: a path without query or fragment)");
        assertThatThrownBy(() -> PathPattern.parse("/a/**/b"))
                .hasMessage("'/a/**/b' (expected: '**' only as the last segment)");
        assertThatThrownBy(() -> PathPattern.parse("/{a}/{a}")).hasMessageContaining("'a' repeats");
        assertThatThrownBy(() -> PathPattern.parse("/a//b")).hasMessageContaining("no empty segment");
        assertThatThrownBy(() -> PathPattern.parse("/a{b}")).hasMessageContaining("as a whole segment");
        assertThatThrownBy(() -> PathPattern.parse("/{a b}")).hasMessageContaining("variable names");
        assertThatThrownBy(() -> PathPattern.parse(null)).isInstanceOf(IllegalArgumentException.class);
    }

    static boolean shadowed(String later, String earlier) {
        return PathPattern.parse(later).isShadowedBy(PathPattern.parse(earlier));
    }

    @Test
    void shadowingFollowsWhatEachPatternCanMatch() {
        assertThat(shadowed("/orders/{id}", "/orders/**")).isTrue();
        assertThat(shadowed("/orders", "/orders/**")).isTrue();
        assertThat(shadowed("/orders/**", "/orders/**")).isTrue();
        assertThat(shadowed("/orders/a/**", "/orders/**")).isTrue();
        assertThat(shadowed("/anything", "/**")).isTrue();
        assertThat(shadowed("/products/special", "/products/{id}")).isTrue();
        assertThat(shadowed("/a/{x}", "/a/{y}")).isTrue();
        assertThat(shadowed("/health", "/health")).isTrue();

        assertThat(shadowed("/products/{id}", "/products/special")).isFalse();
        assertThat(shadowed("/orders/**", "/orders/{id}")).isFalse();
        assertThat(shadowed("/**", "/orders/**")).isFalse();
        assertThat(shadowed("/a/b", "/a/b/c")).isFalse();
        assertThat(shadowed("/a/b/c", "/a/b")).isFalse();
        assertThat(shadowed("/a/", "/a/{x}")).isFalse(); // a variable never matches the empty segment
        assertThat(shadowed("/a/", "/{x}/**")).isTrue();
    }

    @Test
    void equalityAndTextFollowTheSource() {
        assertThat(PathPattern.parse("/a/{b}"))
                .isEqualTo(PathPattern.parse("/a/{b}"))
                .hasToString("/a/{b}");
        assertThat(PathPattern.parse("/a/{b}")).hasSameHashCodeAs(PathPattern.parse("/a/{b}"));
        assertThat(PathPattern.parse("/a/{b}")).isNotEqualTo(PathPattern.parse("/a/{c}"));
    }
}
