package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Nothing a client puts in its request path reaches an upstream in a form the route did not intend:
 * the path is normalised before routing (dot-segments removed, slashes merged, encoded unreserved
 * characters decoded), what cannot be normalised safely is a 400, and a value substituted into a
 * template stays one path segment or one query value. Requests are written raw ({@link WireClient})
 * so that no client library normalises them first; the upstream's {@code /inspect} tells what it
 * received.
 */
public abstract class PathSafetyContract extends ContractFixture {

    /**
     * {@code /api/**} strips {@code /api} onto the base path {@code /inspect/base}; {@code /admin} and
     * {@code /shop/overview} are routes of their own; the others substitute {@code {id}}.
     */
    private TestGateway.Builder routes() {
        return gateway()
                .upstream("based", upstream.url().resolve("/inspect/base/"))
                .route("api", on("/api/**"), proxy("based").stripPrefix("/api"))
                .route("admin", on("/admin"), proxy(APP).path("/inspect/admin-route"))
                .route("shop", on("/shop/overview"), proxy(APP).path("/inspect/shop-route"))
                .route("product", on("/product-page/{id}"), proxy(APP).path("/inspect/products/{id}"))
                .route("reviews", on("/reviews-page/{id}"), proxy(APP).path("/inspect/reviews?product={id}"))
                .route("lookup", on("/lookup"), proxy(APP).path("/inspect/products/{id}"))
                .route(
                        "page",
                        on("/page/{id}"),
                        compose()
                                .part("reviews", APP, "/inspect/reviews?product={id}")
                                .part("product", APP, "/inspect/products/{id}"))
                .route("page-lookup", on("/page-lookup"), compose().part("product", APP, "/inspect/products/{id}"));
    }

    private static Map<String, Object> seen(WireResponse response) {
        assertThat(response.status()).as("status of %s", response).isEqualTo(200);
        return Json.object(response.body());
    }

    @Test
    void dotSegmentsAreRemovedBeforeTheRequestIsRoutedOrForwarded() {
        try (TestGateway gw = routes().start()) {
            for (String target : List.of("/api/./x", "/api/b/../x", "/api/%2e/x", "/api/b/%2E%2e/x", "/api/x/.")) {
                String expected = target.endsWith("/.") ? "/inspect/base/x/" : "/inspect/base/x";
                assertThat(seen(gw.wire().get(target)).get("path"))
                        .as("upstream path for %s", target)
                        .isEqualTo(expected);
            }
            Map<String, Object> withQuery = seen(gw.wire().get("/api/b/../x?q=1"));
            assertThat(withQuery.get("path")).isEqualTo("/inspect/base/x");
            assertThat(withQuery.get("query")).isEqualTo("q=1");
        }
    }

    @Test
    void aPathThatClimbsOutOfItsRoutePrefixIsRoutedAsThePathItNormalisesTo() {
        List<String> escapes = List.of(
                "/api/../admin", "/api/a/../../admin", "/api/%2e%2e/admin", "/api/.%2E/admin", "/api/./../admin");
        try (TestGateway gw = routes().start()) {
            for (String target : escapes) {
                assertThat(seen(gw.wire().get(target)).get("path"))
                        .as("upstream path for %s: the /admin route's, never /inspect/base/../admin", target)
                        .isEqualTo("/inspect/admin-route");
            }
        }
        try (TestGateway gw = gateway()
                .upstream("based", upstream.url().resolve("/inspect/base/"))
                .route("api", on("/api/**"), proxy("based").stripPrefix("/api"))
                .start()) {
            for (String target : escapes) {
                var error = assertError(gw.wire().get(target), 404, "not_found");
                assertThat(error.get("message")).asString().startsWith("no route for GET ");
            }
        }
    }

    @Test
    void encodedSlashesAreRefused() {
        try (TestGateway gw = routes().start()) {
            for (String target :
                    List.of("/api/..%2fadmin", "/api/%2E%2E%2Fadmin", "/api/a%2Fb", "/api/a%5Cb", "/api/a%5cb")) {
                var error = assertError(gw.wire().get(target), 400, "bad_request");
                assertThat(error.get("message"))
                        .as("message for %s", target)
                        .asString()
                        .contains("encoded slash");
            }
        }
    }

    @Test
    void aPathThatCannotBeNormalisedIsABadRequestWithTheJsonBody() {
        try (TestGateway gw = routes().start()) {
            for (String target : List.of(
                    "/../x",
                    "/api/../../x",
                    "/%zz",
                    "/api/a%2",
                    "/api/%00x",
                    "/api/..;/admin",
                    "/api/a\\b",
                    "/api/a\u0000b",
                    "/api/a\u007fb")) {
                assertError(gw.wire().get(target), 400, "bad_request");
            }
            assertThat(seen(gw.wire().get("/api/ok")).get("path")).isEqualTo("/inspect/base/ok");
        }
    }

    /**
     * A request target has no fragment (RFC 9112 3.2). An engine whose HTTP parser cuts one off
     * routes what is before it; one that keeps it must refuse the path: forwarded, {@code /api/..#x}
     * would be {@code /base/..} to an upstream that cuts the fragment off itself.
     */
    @Test
    void aFragmentNeverReachesAnUpstream() {
        try (TestGateway gw = routes().start()) {
            for (String target : List.of("/api/..#x", "/api/x#/../../admin", "/api/a#b", "/api/a%23b/..#/x")) {
                WireResponse response = gw.wire().get(target);
                if (response.status() == 200) {
                    assertThat((String) seen(response).get("path"))
                            .as("what the upstream saw for %s", target)
                            .doesNotContain("#")
                            .doesNotContain("/..")
                            .startsWith("/inspect/base/");
                } else {
                    assertError(
                            response,
                            response.status() == 404 ? 404 : 400,
                            response.status() == 404 ? "not_found" : "bad_request");
                }
            }
        }
    }

    @Test
    void runsOfSlashesAreMerged() {
        try (TestGateway gw = routes().start()) {
            assertThat(seen(gw.wire().get("/shop//overview")).get("path")).isEqualTo("/inspect/shop-route");
            assertThat(seen(gw.wire().get("//shop/overview")).get("path")).isEqualTo("/inspect/shop-route");
            assertThat(seen(gw.wire().get("/api//x///y")).get("path")).isEqualTo("/inspect/base/x/y");
        }
    }

    @Test
    void aDotSegmentIsNeverSubstitutedIntoAnUpstreamPath() {
        try (TestGateway gw = routes().start()) {
            // as a path variable it is a dot-segment of the request: normalised away before routing
            assertError(gw.wire().get("/product-page/.."), 404, "not_found");
            assertError(gw.wire().get("/product-page/."), 404, "not_found");
            assertError(gw.wire().get("/product-page/%2e%2E"), 404, "not_found");
            // as a query parameter it reaches the template, which refuses it
            for (String target : List.of(
                    "/lookup?id=..", "/lookup?id=.", "/lookup?id=%2e%2e", "/lookup?id=", "/page-lookup?id=..")) {
                var error = assertError(gw.wire().get(target), 400, "bad_request");
                assertThat(error.get("message"))
                        .as("message for %s", target)
                        .asString()
                        .contains("'{id}'");
            }
        }
    }

    @Test
    void aValueSubstitutedIntoAQueryIsOneEncodedValue() {
        try (TestGateway gw = routes().start()) {
            for (String target : List.of("/reviews-page/1&admin=true", "/reviews-page/1%26admin%3Dtrue")) {
                Map<String, Object> seen = seen(gw.wire().get(target));
                assertThat(seen.get("path")).isEqualTo("/inspect/reviews");
                assertThat(seen.get("query")).as("query for %s", target).isEqualTo("product=1%26admin%3Dtrue");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> part = (Map<String, Object>)
                    seen(gw.wire().get("/page/1&admin=true")).get("reviews");
            assertThat(part.get("query")).isEqualTo("product=1%26admin%3Dtrue");
        }
    }

    @Test
    void aValueSubstitutedIntoAPathStaysOneSegment() {
        try (TestGateway gw = routes().start()) {
            Map<String, Object> question = seen(gw.wire().get("/product-page/a%3Fb"));
            assertThat(question.get("path")).isEqualTo("/inspect/products/a%3Fb");
            assertThat(question.get("query")).isEqualTo(Json.NULL);
            assertThat(seen(gw.wire().get("/lookup?id=a/b")).get("path")).isEqualTo("/inspect/products/a%2Fb");
            assertThat(seen(gw.wire().get("/lookup?id=a%3Fb%23c")).get("path"))
                    .isEqualTo("/inspect/products/a%3Fb%23c");
            assertThat(seen(gw.wire().get("/lookup?id=../admin")).get("path"))
                    .isEqualTo("/inspect/products/..%2Fadmin");
            @SuppressWarnings("unchecked")
            Map<String, Object> part = (Map<String, Object>)
                    seen(gw.wire().get("/page-lookup?id=x/y%3Fz")).get("product");
            assertThat(part.get("path")).isEqualTo("/inspect/products/x%2Fy%3Fz");
        }
    }
}
