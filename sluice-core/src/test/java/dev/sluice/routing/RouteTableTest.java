package dev.sluice.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.FilterConfig;
import dev.sluice.config.ProxyTarget;
import dev.sluice.config.RouteConfig;
import dev.sluice.config.RouteMatch;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class RouteTableTest {

    static RouteConfig route(
            String id, String path, Set<String> methods, Optional<String> host, Map<String, String> headers) {
        return new RouteConfig(
                id, new RouteMatch(PathPattern.parse(path), methods, host, headers), ProxyTarget.to("up"), List.of());
    }

    static RouteConfig route(String id, String path, String... methods) {
        return route(id, path, Set.of(methods), Optional.empty(), Map.of());
    }

    static final Function<String, String> NO_HEADERS = name -> null;

    static String matchedId(RouteTable.Result result) {
        return result instanceof RouteTable.Result.Matched m ? m.route().id() : result.toString();
    }

    @Test
    void theFirstMatchingRouteWinsWithItsVariablesAndRemainder() {
        RouteTable table = new RouteTable(List.of(
                route("page", "/products/{id}/page", "GET"), route("product", "/products/{id}"), route("all", "/**")));

        RouteTable.Result r = table.match("GET", "shop", "/products/p1/page", NO_HEADERS);
        assertThat(r).isInstanceOfSatisfying(RouteTable.Result.Matched.class, m -> {
            assertThat(m.route().id()).isEqualTo("page");
            assertThat(m.variables()).isEqualTo(Map.of("id", "p1"));
            assertThat(m.remainder()).isEmpty();
        });
        assertThat(matchedId(table.match("DELETE", null, "/products/p1", NO_HEADERS)))
                .isEqualTo("product");
        assertThat(table.match("POST", null, "/x/y", NO_HEADERS))
                .isInstanceOfSatisfying(
                        RouteTable.Result.Matched.class,
                        m -> assertThat(m.remainder()).isEqualTo("/x/y"));
        // a later route may still take a method the first one does not allow
        assertThat(matchedId(table.match("POST", null, "/products/p1/page", NO_HEADERS)))
                .isEqualTo("all");
    }

    @Test
    void theNormalisedPathIsMatchedAndHandedOn() {
        RouteTable table = new RouteTable(List.of(route("api", "/api/**"), route("admin", "/admin")));
        assertThat(table.match("GET", null, "/api/../admin", NO_HEADERS))
                .isInstanceOfSatisfying(RouteTable.Result.Matched.class, m -> {
                    assertThat(m.route().id()).isEqualTo("admin");
                    assertThat(m.path()).isEqualTo("/admin");
                });
        assertThat(table.match("GET", null, "/api//v1/./%7Ex", NO_HEADERS))
                .isInstanceOfSatisfying(RouteTable.Result.Matched.class, m -> {
                    assertThat(m.path()).isEqualTo("/api/v1/~x");
                    assertThat(m.remainder()).isEqualTo("/v1/~x");
                });
    }

    @Test
    void aPathThatCannotBeNormalisedIsABadPathWithTheReason() {
        RouteTable table = new RouteTable(List.of(route("all", "/**")));
        assertThat(table.match("GET", null, "/../etc", NO_HEADERS))
                .isInstanceOfSatisfying(
                        RouteTable.Result.BadPath.class,
                        b -> assertThat(b.reason()).contains("climbs above '/'"));
        assertThat(table.match("GET", null, "/a%2Fb", NO_HEADERS)).isInstanceOf(RouteTable.Result.BadPath.class);
    }

    @Test
    void nothingMatchingIsNotFound() {
        RouteTable table = new RouteTable(List.of(route("a", "/a")));
        assertThat(table.match("GET", null, "/b", NO_HEADERS)).isSameAs(RouteTable.Result.NotFound.INSTANCE);
        assertThat(new RouteTable(List.of()).match("GET", null, "/", NO_HEADERS))
                .isSameAs(RouteTable.Result.NotFound.INSTANCE);
    }

    @Test
    void aPathMatchedOnlyByOtherMethodsCollectsThemSorted() {
        RouteTable table = new RouteTable(List.of(
                route("put", "/items/{id}", "PUT", "DELETE"),
                route("get", "/items/{id}", "GET"),
                route("other", "/elsewhere", "PATCH")));

        RouteTable.Result r = table.match("POST", null, "/items/1", NO_HEADERS);
        assertThat(r)
                .isInstanceOfSatisfying(
                        RouteTable.Result.MethodNotAllowed.class,
                        m -> assertThat(m.allowed()).containsExactly("DELETE", "GET", "PUT"));
        assertThat(String.join(", ", ((RouteTable.Result.MethodNotAllowed) r).allowed()))
                .isEqualTo("DELETE, GET, PUT");
    }

    @Test
    void hostIsComparedWithoutPortAndIgnoringCase() {
        RouteTable table = new RouteTable(List.of(
                route("shop", "/", Set.of(), Optional.of("shop.example.com"), Map.of()),
                route("v6", "/", Set.of(), Optional.of("[::1]"), Map.of())));
        assertThat(matchedId(table.match("GET", "Shop.Example.COM:8080", "/", NO_HEADERS)))
                .isEqualTo("shop");
        assertThat(matchedId(table.match("GET", "shop.example.com", "/", NO_HEADERS)))
                .isEqualTo("shop");
        assertThat(matchedId(table.match("GET", "[::1]:8080", "/", NO_HEADERS))).isEqualTo("v6");
        assertThat(matchedId(table.match("GET", "[::1]", "/", NO_HEADERS))).isEqualTo("v6");
        assertThat(table.match("GET", "other.example.com", "/", NO_HEADERS))
                .isSameAs(RouteTable.Result.NotFound.INSTANCE);
        assertThat(table.match("GET", null, "/", NO_HEADERS)).isSameAs(RouteTable.Result.NotFound.INSTANCE);
    }

    @Test
    void headersMustBePresentWithTheValueOrAnyValueForStar() {
        RouteTable table = new RouteTable(List.of(
                route("acme", "/t", Set.of(), Optional.empty(), Map.of("x-tenant", "acme", "x-debug", "*")),
                route("fallback", "/t")));
        Map<String, String> all = Map.of("x-tenant", "acme", "x-debug", "");
        assertThat(matchedId(table.match("GET", null, "/t", all::get))).isEqualTo("acme");
        assertThat(matchedId(table.match("GET", null, "/t", Map.of("x-tenant", "acme")::get)))
                .isEqualTo("fallback");
        assertThat(matchedId(table.match("GET", null, "/t", Map.of("x-tenant", "other", "x-debug", "1")::get)))
                .isEqualTo("fallback");
    }

    @Test
    void routesFailingOnHostOrHeadersDoNotCountFor405() {
        RouteTable table = new RouteTable(List.of(
                route("hosted", "/a", Set.of("PUT"), Optional.of("h.example.com"), Map.of()),
                route("get", "/a", "GET")));
        assertThat(table.match("POST", "other.example.com", "/a", NO_HEADERS))
                .isInstanceOfSatisfying(
                        RouteTable.Result.MethodNotAllowed.class,
                        m -> assertThat(m.allowed()).containsExactly("GET"));
    }

    @Test
    void aCorsPreflightIsRoutedByTheMethodItAnnouncesToARouteWithACorsFilter() {
        FilterConfig.Cors cors = new FilterConfig.Cors(
                List.of("https://shop.example"),
                List.of("GET", "DELETE"),
                List.of(),
                List.of(),
                false,
                Optional.empty());
        RouteConfig reads = new RouteConfig(
                "reads",
                new RouteMatch(PathPattern.parse("/orders/**"), Set.of("GET"), Optional.empty(), Map.of()),
                ProxyTarget.to("up"),
                List.of(cors));
        RouteConfig deletes = new RouteConfig(
                "deletes",
                new RouteMatch(PathPattern.parse("/orders/**"), Set.of("DELETE"), Optional.empty(), Map.of()),
                ProxyTarget.to("up"),
                List.of(cors));
        RouteConfig plain = route("plain", "/plain", "GET");
        RouteTable table = new RouteTable(List.of(reads, deletes, plain));
        Map<String, String> preflightDelete =
                Map.of("origin", "https://shop.example", "access-control-request-method", "DELETE");
        Map<String, String> preflightGet =
                Map.of("origin", "https://shop.example", "access-control-request-method", "GET");

        assertThat(matchedId(table.match("OPTIONS", null, "/orders/1", preflightDelete::get)))
                .isEqualTo("deletes");
        assertThat(matchedId(table.match("OPTIONS", null, "/orders/1", preflightGet::get)))
                .isEqualTo("reads");
        assertThat(table.match("OPTIONS", null, "/orders/1", NO_HEADERS))
                .as("a plain OPTIONS is not a preflight")
                .isInstanceOf(RouteTable.Result.MethodNotAllowed.class);
        assertThat(table.match("OPTIONS", null, "/plain", preflightGet::get))
                .as("no cors filter: routed as the OPTIONS it is")
                .isInstanceOf(RouteTable.Result.MethodNotAllowed.class);
        Map<String, String> preflightPut =
                Map.of("origin", "https://shop.example", "access-control-request-method", "PUT");
        assertThat(matchedId(table.match("OPTIONS", null, "/orders/1", preflightPut::get)))
                .as("a method no route takes: the first cors route, whose filter refuses it")
                .isEqualTo("reads");
    }
}
