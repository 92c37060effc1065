package dev.sluice.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ProxyTarget;
import dev.sluice.config.RouteConfig;
import dev.sluice.config.RouteMatch;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ProxyPathTest {

    static RouteTable.Result.Matched match(String pattern, String rawPath) {
        RouteConfig route = new RouteConfig(
                "r",
                new RouteMatch(PathPattern.parse(pattern), Set.of(), Optional.empty(), Map.of()),
                ProxyTarget.to("up"),
                List.of());
        return (RouteTable.Result.Matched) new RouteTable(List.of(route)).match("GET", "h", rawPath, name -> null);
    }

    static ProxyTarget strip(String prefix) {
        return new ProxyTarget("up", Optional.of(prefix), Optional.empty(), Optional.empty());
    }

    static ProxyTarget template(String path) {
        return new ProxyTarget("up", Optional.empty(), Optional.of(PathTemplate.parse(path)), Optional.empty());
    }

    @Test
    void theNormalisedPathGoesUpstreamWithTheRawQueryAndTheBasePath() {
        assertThat(ProxyPath.target(ProxyTarget.to("up"), "/base", match("/a/**", "/a/./b//c"), Map.of(), "x=1&y=%20"))
                .isEqualTo("/base/a/b/c?x=1&y=%20");
        assertThat(ProxyPath.target(ProxyTarget.to("up"), "", match("/a/**", "/a/b"), Map.of(), null))
                .isEqualTo("/a/b");
    }

    @Test
    void stripPrefixRemovesWholeSegmentsOnly() {
        assertThat(ProxyPath.target(strip("/api"), "", match("/api/**", "/api/orders/1"), Map.of(), null))
                .isEqualTo("/orders/1");
        assertThat(ProxyPath.target(strip("/api"), "", match("/api/**", "/api"), Map.of(), "q=1"))
                .as("the whole path: the root")
                .isEqualTo("/?q=1");
        assertThat(ProxyPath.target(strip("/api"), "/b", match("/**", "/apix/1"), Map.of(), null))
                .as("not a segment boundary: kept")
                .isEqualTo("/b/apix/1");
    }

    @Test
    void aTemplateDecidesTheTargetAndEncodesWhatItSubstitutes() {
        assertThat(ProxyPath.target(
                        template("/items/{id}?tag={tag}"),
                        "/v1",
                        match("/p/{id}", "/p/42"),
                        Map.of("tag", "a&admin=true"),
                        "tag=a%26admin%3Dtrue&other=1"))
                .as("the raw query is not appended: the template names what goes")
                .isEqualTo("/v1/items/42?tag=a%26admin%3Dtrue");
        assertThatThrownBy(() -> ProxyPath.target(
                        template("/items/{id}?tag={tag}"), "", match("/p/{id}", "/p/1"), Map.of(), null))
                .isInstanceOf(PathTemplate.ExpansionException.class);
    }
}
