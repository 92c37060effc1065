package dev.sluice.tck;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.http.ErrorBody;
import dev.sluice.routing.ValueMatch;
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
            assertThat(response.headers().firstValue("allow")).hasValue("GET, HEAD, POST, PUT");
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

    @Test
    void queryValuesChooseARouteComparedDecoded() {
        try (TestGateway gw = gateway()
                .route("v2", on("/api").query("version", new ValueMatch.Prefix("2")), answering("v2"))
                .route("spaced", on("/api").query("q", new ValueMatch.Exact("a b")), answering("spaced"))
                .route("modern", on("/api").query("legacy", ValueMatch.Absent.INSTANCE), answering("modern"))
                .route("legacy", on("/api"), answering("legacy"))
                .start()) {
            assertThat(text(get(gw, "/api?version=2.1&legacy"))).isEqualTo("v2");
            assertThat(text(get(gw, "/api?q=a%20b&legacy=1"))).isEqualTo("spaced");
            assertThat(text(get(gw, "/api?version=1"))).isEqualTo("modern");
            assertThat(text(get(gw, "/api?legacy"))).isEqualTo("legacy");
        }
    }

    @Test
    void cookiesChooseARoute() {
        try (TestGateway gw = gateway()
                .route("beta", on("/app").cookie("group", ValueMatch.Regex.of("beta-[0-9]+")), answering("beta"))
                .route("signed-in", on("/app").cookie("session", ValueMatch.Present.INSTANCE), answering("in"))
                .route("anonymous", on("/app").cookie("session", ValueMatch.Absent.INSTANCE), answering("out"))
                .start()) {
            assertThat(text(send(gw, HttpRequest.newBuilder(gw.uri("/app")).header("Cookie", "a=1; group=beta-7"))))
                    .isEqualTo("beta");
            assertThat(text(send(
                            gw, HttpRequest.newBuilder(gw.uri("/app")).header("Cookie", "group=beta-7x; session=s"))))
                    .isEqualTo("in"); // the regex must match the whole value
            assertThat(text(get(gw, "/app"))).isEqualTo("out");
        }
    }

    @Test
    void headerValuesChooseARouteAndANonMatchingRequestFallsThroughToNotFound() {
        try (TestGateway gw = gateway()
                .route("canary", on("/svc").header("x-env", new ValueMatch.Exact("canary")), answering("canary"))
                .route("blue", on("/svc").header("x-env", new ValueMatch.Prefix("blue-")), answering("blue"))
                .route("plain", on("/svc").header("x-env", ValueMatch.Absent.INSTANCE), answering("plain"))
                .start()) {
            assertThat(text(send(gw, HttpRequest.newBuilder(gw.uri("/svc")).header("X-Env", "canary"))))
                    .isEqualTo("canary");
            assertThat(text(send(gw, HttpRequest.newBuilder(gw.uri("/svc")).header("X-Env", "blue-3"))))
                    .isEqualTo("blue");
            assertThat(text(get(gw, "/svc"))).isEqualTo("plain");
            assertError(send(gw, HttpRequest.newBuilder(gw.uri("/svc")).header("X-Env", "green")), 404, "not_found");
        }
    }

    /** HTTP/2 lets a client send its cookies as several fields (RFC 9113 §8.2.3): a route sees them all. */
    @Test
    void cookiesSplitAcrossHttp2FieldsChooseARoute() throws java.io.IOException {
        try (TestGateway gw = gateway()
                        .route(
                                "beta",
                                on("/app").cookie("group", new ValueMatch.Exact("beta")),
                                proxy(APP).path(upstream.respond(203, "text/plain", "beta")))
                        .route("other", on("/app"), answering("other"))
                        .start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            wire.headers(
                    1,
                    H2Wire.block(
                            ":method",
                            "GET",
                            ":scheme",
                            "http",
                            ":authority",
                            gw.authority(),
                            ":path",
                            "/app",
                            "cookie",
                            "a=1",
                            "cookie",
                            "group=beta"),
                    true);
            wire.flush();
            H2Wire.Frame head = wire.readUntil(H2Wire.HEADERS).orElseThrow(() -> new AssertionError("closed"));
            assertThat(head.stream()).isEqualTo(1);
            assertThat(head.status())
                    .as("the route taking group=beta (its upstream answers 203)")
                    .isEqualTo(203);
        }
    }
}
