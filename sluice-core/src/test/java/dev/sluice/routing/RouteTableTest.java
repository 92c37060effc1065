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
                        m -> assertThat(m.allowed()).containsExactly("DELETE", "GET", "HEAD", "PUT"));
        assertThat(String.join(", ", ((RouteTable.Result.MethodNotAllowed) r).allowed()))
                .isEqualTo("DELETE, GET, HEAD, PUT");
    }

    @Test
    void aRouteThatServesGetServesHead() {
        RouteTable table = new RouteTable(List.of(route("get", "/items/{id}", "GET"), route("post", "/forms", "POST")));

        assertThat(matchedId(table.match("HEAD", null, "/items/1", NO_HEADERS))).isEqualTo("get");
        assertThat(table.match("HEAD", null, "/forms", NO_HEADERS))
                .isInstanceOfSatisfying(
                        RouteTable.Result.MethodNotAllowed.class,
                        m -> assertThat(m.allowed()).containsExactly("POST"));
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
                        m -> assertThat(m.allowed()).containsExactly("GET", "HEAD"));
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

    static RouteConfig valueRoute(
            String id,
            Map<String, ValueMatch> headers,
            Map<String, ValueMatch> query,
            Map<String, ValueMatch> cookies) {
        return new RouteConfig(
                id,
                new RouteMatch(PathPattern.parse("/v"), Set.of(), Optional.empty(), headers, query, cookies),
                ProxyTarget.to("up"),
                List.of());
    }

    static final ValueMatch PRESENT = ValueMatch.Present.INSTANCE;
    static final ValueMatch ABSENT = ValueMatch.Absent.INSTANCE;

    @Test
    void headerValuesMatchExactPrefixFullRegexPresentAndAbsent() {
        RouteTable table = new RouteTable(List.of(
                valueRoute("exact", Map.of("x-env", new ValueMatch.Exact("canary")), Map.of(), Map.of()),
                valueRoute("prefix", Map.of("x-env", new ValueMatch.Prefix("blue-")), Map.of(), Map.of()),
                valueRoute("regex", Map.of("x-env", ValueMatch.Regex.of("v[0-9]+")), Map.of(), Map.of()),
                valueRoute("absent", Map.of("x-env", ABSENT), Map.of(), Map.of()),
                valueRoute("present", Map.of("x-env", PRESENT), Map.of(), Map.of())));
        assertThat(matchedId(table.match("GET", null, "/v", Map.of("x-env", "canary")::get)))
                .isEqualTo("exact");
        assertThat(matchedId(table.match("GET", null, "/v", Map.of("x-env", "Canary")::get)))
                .isEqualTo("present"); // values are compared case-sensitively
        assertThat(matchedId(table.match("GET", null, "/v", Map.of("x-env", "blue-2")::get)))
                .isEqualTo("prefix");
        assertThat(matchedId(table.match("GET", null, "/v", Map.of("x-env", "v12")::get)))
                .isEqualTo("regex");
        assertThat(matchedId(table.match("GET", null, "/v", Map.of("x-env", "xv12")::get)))
                .isEqualTo("present"); // full match, not find
        assertThat(matchedId(table.match("GET", null, "/v", NO_HEADERS))).isEqualTo("absent");
    }

    @Test
    void queryParametersMatchDecodedFirstValues() {
        RouteTable table = new RouteTable(List.of(
                valueRoute("v2", Map.of(), Map.of("version", new ValueMatch.Prefix("2")), Map.of()),
                valueRoute("spaced", Map.of(), Map.of("q x", new ValueMatch.Exact("a b")), Map.of()),
                valueRoute("modern", Map.of(), Map.of("legacy", ABSENT), Map.of()),
                valueRoute("legacy", Map.of(), Map.of(), Map.of())));
        assertThat(matchedId(table.match("GET", null, "/v", "version=2.1", NO_HEADERS)))
                .isEqualTo("v2");
        assertThat(matchedId(table.match("GET", null, "/v", "version=1&version=2", NO_HEADERS)))
                .isEqualTo("modern"); // the first value counts
        assertThat(matchedId(table.match("GET", null, "/v", "q%20x=a+b&legacy", NO_HEADERS)))
                .isEqualTo("spaced");
        assertThat(matchedId(table.match("GET", null, "/v", "legacy", NO_HEADERS)))
                .isEqualTo("legacy"); // present without a value
        assertThat(matchedId(table.match("GET", null, "/v", null, NO_HEADERS))).isEqualTo("modern");
        assertThat(matchedId(table.match("GET", null, "/v", NO_HEADERS))).isEqualTo("modern");
    }

    @Test
    void cookiesAreReadFromTheCookieHeader() {
        RouteTable table = new RouteTable(List.of(
                valueRoute("beta", Map.of(), Map.of(), Map.of("group", ValueMatch.Regex.of("beta-[0-9]+"))),
                valueRoute("signed-in", Map.of(), Map.of(), Map.of("session", PRESENT)),
                valueRoute("anonymous", Map.of(), Map.of(), Map.of("session", ABSENT))));
        assertThat(matchedId(table.match("GET", null, "/v", Map.of("cookie", "a=1; group=beta-7; session=s")::get)))
                .isEqualTo("beta");
        assertThat(matchedId(table.match("GET", null, "/v", Map.of("cookie", "group=\"beta-7\"")::get)))
                .isEqualTo("beta"); // a quoted value is read without its quotes
        assertThat(matchedId(table.match("GET", null, "/v", Map.of("cookie", "xgroup=beta-7;session=")::get)))
                .isEqualTo("signed-in");
        assertThat(matchedId(table.match("GET", null, "/v", Map.of("cookie", "Session=s; group=alpha")::get)))
                .isEqualTo("anonymous"); // names are case-sensitive
        assertThat(matchedId(table.match("GET", null, "/v", NO_HEADERS))).isEqualTo("anonymous");
    }

    @Test
    void aRouteFailingOnValuesFallsToTheNextOrNotFound() {
        RouteTable table = new RouteTable(List.of(
                valueRoute("first", Map.of(), Map.of("a", PRESENT), Map.of()),
                valueRoute("second", Map.of(), Map.of("a", PRESENT, "b", PRESENT), Map.of()),
                valueRoute("cookie", Map.of(), Map.of(), Map.of("c", new ValueMatch.Exact("1")))));
        assertThat(matchedId(table.match("GET", null, "/v", "a&b", NO_HEADERS))).isEqualTo("first");
        assertThat(matchedId(table.match("GET", null, "/v", "b", Map.of("cookie", "c=1")::get)))
                .isEqualTo("cookie");
        assertThat(table.match("GET", null, "/v", "b", Map.of("cookie", "c=2")::get))
                .isSameAs(RouteTable.Result.NotFound.INSTANCE);
    }

    @Test
    void noCookieHeaderIsReadWhenNoRouteMatchesOnCookies() {
        RouteTable table =
                new RouteTable(List.of(valueRoute("q", Map.of(), Map.of("a", PRESENT), Map.of()), route("rest", "/v")));
        List<String> asked = new java.util.ArrayList<>();
        assertThat(matchedId(table.match("GET", null, "/v", "b", name -> {
                    asked.add(name);
                    return null;
                })))
                .isEqualTo("rest");
        assertThat(asked).doesNotContain("cookie");
    }
}
