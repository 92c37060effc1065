package dev.sluice.tck;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.http.ErrorBody;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** Which route a request takes, and the gateway's own 404, 405 and 400 answers. */
public abstract class RoutingContract extends ContractFixture {

    /** A proxy to a fixed upstream answer whose body is {@code name}: shows which route was taken. */
    private Routes.ProxySpec answering(String name) {
        return proxy(APP).path(upstream.respond(200, "text/plain", name));
    }

    @Test
    void exactPathMatchesOnlyThatPath() {
        try (TestGateway gw =
                gateway().route("exact", on("/health"), answering("exact")).start()) {
            assertThat(text(get(gw, "/health"))).isEqualTo("exact");
            assertThat(get(gw, "/health/x").statusCode()).isEqualTo(404);
            assertThat(get(gw, "/healthz").statusCode()).isEqualTo(404);
        }
    }

    @Test
    void templateVariableMatchesOneSegment() {
        try (TestGateway gw = gateway()
                .route("product", on("/products/{id}"), proxy(APP).path("/inspect/catalog/{id}"))
                .start()) {
            assertThat(inspected(get(gw, "/products/42")).get("path")).isEqualTo("/inspect/catalog/42");
            assertThat(inspected(get(gw, "/products/a%20b")).get("path")).isEqualTo("/inspect/catalog/a%20b");
            assertThat(get(gw, "/products/42/reviews").statusCode()).isEqualTo(404);
            assertThat(get(gw, "/products").statusCode()).isEqualTo(404);
        }
    }

    @Test
    void prefixWildcardMatchesThePrefixAndEverythingBelow() {
        try (TestGateway gw = gateway()
                .route("orders", on("/orders/**"), proxy(APP).path("/inspect/o{**}"))
                .start()) {
            assertThat(inspected(get(gw, "/orders/7/lines/2")).get("path")).isEqualTo("/inspect/o/7/lines/2");
            assertThat(inspected(get(gw, "/orders")).get("path")).isEqualTo("/inspect/o");
            assertThat(get(gw, "/ordersx").statusCode()).isEqualTo(404);
            assertThat(get(gw, "/order").statusCode()).isEqualTo(404);
        }
    }

    @Test
    void hostPredicateIgnoresPortAndCase() {
        try (TestGateway gw = gateway()
                .route("alpha", on("/site").host("alpha.test"), answering("alpha"))
                .route("other", on("/site"), answering("other"))
                .start()) {
            assertThat(gw.wire()
                            .send(WireRequest.get("/site").header("Host", "alpha.test:8080"))
                            .bodyText())
                    .isEqualTo("alpha");
            assertThat(gw.wire()
                            .send(WireRequest.get("/site").header("Host", "ALPHA.Test"))
                            .bodyText())
                    .isEqualTo("alpha");
            assertThat(gw.wire()
                            .send(WireRequest.get("/site").header("Host", "beta.test"))
                            .bodyText())
                    .isEqualTo("other");
        }
    }

    @Test
    void hostPredicateWithoutFallbackIsNotFound() {
        try (TestGateway gw = gateway()
                .route("alpha", on("/site").host("alpha.test"), answering("alpha"))
                .start()) {
            WireResponse response = gw.wire().send(WireRequest.get("/site").header("Host", "beta.test"));
            assertError(response, 404, "not_found");
        }
    }

    @Test
    void headerPredicateNeedsValueOrPresence() {
        try (TestGateway gw = gateway()
                .route("v2", on("/api").header("x-version", "2"), answering("v2"))
                .route("flagged", on("/api").header("x-flag", "*"), answering("flagged"))
                .route("v1", on("/api"), answering("v1"))
                .start()) {
            assertThat(text(send(gw, HttpRequest.newBuilder(gw.uri("/api")).header("X-Version", "2"))))
                    .isEqualTo("v2");
            assertThat(text(send(gw, HttpRequest.newBuilder(gw.uri("/api")).header("X-Version", "3"))))
                    .isEqualTo("v1");
            assertThat(text(send(gw, HttpRequest.newBuilder(gw.uri("/api")).header("X-Flag", "anything"))))
                    .isEqualTo("flagged");
            assertThat(text(get(gw, "/api"))).isEqualTo("v1");
        }
    }

    @Test
    void firstDeclaredMatchWinsOverAMoreSpecificLaterOne() {
        try (TestGateway gw = gateway()
                .route("template", on("/items/{id}"), answering("template"))
                .route("exact", on("/items/special"), answering("exact"))
                .start()) {
            assertThat(text(get(gw, "/items/special"))).isEqualTo("template");
        }
        try (TestGateway gw = gateway()
                .route("exact", on("/items/special"), answering("exact"))
                .route("template", on("/items/{id}"), answering("template"))
                .start()) {
            assertThat(text(get(gw, "/items/special"))).isEqualTo("exact");
            assertThat(text(get(gw, "/items/other"))).isEqualTo("template");
        }
    }

    @Test
    void noRouteIsNotFoundWithErrorBody() {
        try (TestGateway gw =
                gateway().route("exact", on("/health"), answering("exact")).start()) {
            HttpResponse<byte[]> response = get(gw, "/nope");
            assertError(response, 404, "not_found");
            assertThat(text(response)).isEqualTo(new String(ErrorBody.notFound("GET", "/nope")));
        }
    }

    @Test
    void wrongMethodIsNotAllowedWithSortedAllow() {
        try (TestGateway gw = gateway()
                .route("read-write", on("/things").methods("POST", "GET"), answering("rw"))
                .route("replace", on("/things").methods("PUT"), answering("put"))
                .start()) {
            HttpResponse<byte[]> response =
                    send(gw, HttpRequest.newBuilder(gw.uri("/things")).DELETE());
            assertError(response, 405, "method_not_allowed");
            assertThat(response.headers().firstValue("allow")).hasValue("GET, POST, PUT");
            assertThat(text(response)).isEqualTo(new String(ErrorBody.methodNotAllowed("DELETE", "/things")));

            assertThat(text(get(gw, "/things"))).isEqualTo("rw");
            assertThat(text(send(
                            gw,
                            HttpRequest.newBuilder(gw.uri("/things")).PUT(HttpRequest.BodyPublishers.ofString("x")))))
                    .isEqualTo("put");
        }
    }

    @Test
    void missingTemplateValueIsBadRequest() {
        try (TestGateway gw = gateway()
                .route("product", on("/products/{id}"), proxy(APP).path("/inspect/catalog/{id}/{lang}"))
                .start()) {
            var error = assertError(get(gw, "/products/1"), 400, "bad_request");
            assertThat(error.get("message")).asString().startsWith("missing value for '{lang}': ");

            assertThat(inspected(get(gw, "/products/1?lang=en")).get("path")).isEqualTo("/inspect/catalog/1/en");
        }
    }
}
