package dev.sluice.tck;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Bodies, methods and paths through a proxy route. */
public abstract class ProxyContract extends ContractFixture {

    private TestGateway passThrough() {
        return gateway()
                .route("pass", on("/p/**"), proxy(APP).stripPrefix("/p"))
                .start();
    }

    @ParameterizedTest(name = "{0} bytes, fixed length")
    @ValueSource(longs = {0, 1, 16_384, 10 << 20})
    void fixedLengthBodyArrivesByteForByte(long size) {
        try (TestGateway gw = passThrough()) {
            WireResponse response = gw.wire().keepLimit(0).get("/p/bytes/" + size);
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.complete()).as("%s", response).isTrue();
            assertThat(response.framing()).isEqualTo("length");
            assertThat(response.header("content-length")).hasValue(Long.toString(size));
            assertThat(response.length()).isEqualTo(size);
            assertThat(response.sha256()).isEqualTo(GeneratedBody.binary(size).sha256());
            assertThat(response.header("content-type")).hasValue("application/octet-stream");
        }
    }

    @ParameterizedTest(name = "{0} bytes, chunked")
    @ValueSource(longs = {0, 1, 16_384, 10 << 20})
    void chunkedBodyArrivesByteForByteAndChunked(long size) {
        try (TestGateway gw = passThrough()) {
            WireResponse response = gw.wire().keepLimit(0).get("/p/bytes/" + size + "?chunked=1");
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.complete()).as("%s", response).isTrue();
            if (size > 0) {
                assertThat(response.framing()).as("chunked stays chunked").isEqualTo("chunked");
            }
            assertThat(response.length()).isEqualTo(size);
            assertThat(response.sha256()).isEqualTo(GeneratedBody.binary(size).sha256());
        }
    }

    @Test
    void smallBodiesAreExact() {
        try (TestGateway gw = passThrough()) {
            assertThat(get(gw, "/p/bytes/1").body())
                    .containsExactly(GeneratedBody.binary(1).bytes());
            assertThat(get(gw, "/p/json/16384").body())
                    .containsExactly(GeneratedBody.json(16384).bytes());
            HttpResponse<byte[]> status = get(gw, "/p/json/20?status=418&type=application/problem%2Bjson");
            assertThat(status.statusCode()).isEqualTo(418);
            assertThat(status.headers().firstValue("content-type")).hasValue("application/problem+json");
            assertThat(status.body()).containsExactly(GeneratedBody.json(20).bytes());
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"POST", "PUT", "PATCH"})
    void requestBodyIsEchoed(String method) {
        try (TestGateway gw = passThrough()) {
            HttpResponse<byte[]> response = send(
                    gw,
                    HttpRequest.newBuilder(gw.uri("/p/echo/x?q=1"))
                            .header("Content-Type", "text/plain; charset=utf-8")
                            .method(method, HttpRequest.BodyPublishers.ofString("hello, sluice")));
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(text(response)).isEqualTo("hello, sluice");
            assertThat(response.headers().firstValue("x-echo-method")).hasValue(method);
            assertThat(response.headers().firstValue("x-echo-path")).hasValue("/echo/x");
            assertThat(response.headers().firstValue("x-echo-query")).hasValue("q=1");
            assertThat(response.headers().firstValue("content-type")).hasValue("text/plain; charset=utf-8");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"GET", "DELETE", "OPTIONS", "HEAD"})
    void anyMethodIsForwarded(String method) {
        try (TestGateway gw = passThrough()) {
            HttpResponse<byte[]> response = send(
                    gw,
                    HttpRequest.newBuilder(gw.uri("/p/echo/m")).method(method, HttpRequest.BodyPublishers.noBody()));
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("x-echo-method")).hasValue(method);
        }
    }

    @Test
    void anUpstreamThatAnswersBeforeReadingALargeBodyHasItsAnswerRelayed() {
        // RFC 9112 section 9.3 lets a server answer before the request body is complete
        GeneratedBody upload = GeneratedBody.binary(20 << 20);
        String refuses = upstream.respond(405, "application/json", "{\"error\":\"no uploads here\"}");
        try (TestGateway gw = passThrough()) { // the JDK's server: answers, drains a little, closes
            for (WireRequest request : List.of(
                    WireRequest.of("POST", "/p" + refuses).body(upload),
                    WireRequest.of("POST", "/p" + refuses).chunked(upload, 64 * 1024))) {
                WireResponse response = gw.wire().send(request);
                assertThat(response.status())
                        .as("the upstream's own answer, not 502")
                        .isEqualTo(405);
                assertThat(response.bodyText()).isEqualTo("{\"error\":\"no uploads here\"}");
            }
        }
        String body = "{\"error\":\"too large\"}";
        String answer = "HTTP/1.1 413 Content Too Large\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length() + "\r\nConnection: close\r\n\r\n" + body;
        try (RawUpstream raw = RawUpstream.answering(answer); // reads the head, answers, closes: a reset
                TestGateway gw = gateway()
                        .upstream("raw", raw.url())
                        .route("raw", on("/r/**"), proxy("raw").stripPrefix("/r"))
                        .start()) {
            for (WireRequest request : List.of(
                    WireRequest.of("POST", "/r/upload").body(upload),
                    WireRequest.of("POST", "/r/upload").chunked(upload, 64 * 1024))) {
                WireResponse response = gw.wire().send(request);
                assertThat(response.status())
                        .as("the upstream's own answer, not 502")
                        .isEqualTo(413);
                assertThat(response.bodyText()).isEqualTo(body);
            }
        }
    }

    @Test
    void tenMegabyteUploadWithContentLengthStaysFixedLength() {
        GeneratedBody upload = GeneratedBody.binary(10 << 20);
        try (TestGateway gw = passThrough()) {
            WireResponse response =
                    gw.wire().send(WireRequest.of("POST", "/p/inspect/upload").body(upload));
            Map<String, Object> seen = Json.object(response.body());
            assertThat(seen.get("method")).isEqualTo("POST");
            assertThat(seen.get("framing")).isEqualTo("length");
            assertThat(seen.get("length")).hasToString(Long.toString(upload.length()));
            assertThat(seen.get("sha256")).isEqualTo(upload.sha256());
            assertThat(headerValues(seen, "content-length")).containsExactly(Long.toString(upload.length()));
        }
    }

    @Test
    void tenMegabyteChunkedUploadStaysChunked() {
        GeneratedBody upload = GeneratedBody.binary(10 << 20);
        try (TestGateway gw = passThrough()) {
            WireResponse response =
                    gw.wire().send(WireRequest.of("PUT", "/p/inspect/upload").chunked(upload, 8000));
            Map<String, Object> seen = Json.object(response.body());
            assertThat(seen.get("method")).isEqualTo("PUT");
            assertThat(seen.get("framing")).isEqualTo("chunked");
            assertThat(seen.get("length")).hasToString(Long.toString(upload.length()));
            assertThat(seen.get("sha256")).isEqualTo(upload.sha256());
        }
    }

    @Test
    void uploadFromAStreamArrivesWhole() {
        GeneratedBody upload = GeneratedBody.binary(3_000_001);
        try (TestGateway gw = passThrough()) {
            Map<String, Object> seen = inspected(send(
                    gw,
                    HttpRequest.newBuilder(gw.uri("/p/inspect/stream"))
                            .POST(HttpRequest.BodyPublishers.ofInputStream(upload::stream))));
            assertThat(seen.get("length")).hasToString(Long.toString(upload.length()));
            assertThat(seen.get("sha256")).isEqualTo(upload.sha256());
        }
    }

    @Test
    void requestPathAndRawQueryAreKept() {
        try (TestGateway gw =
                gateway().route("all", on("/inspect/**"), proxy(APP)).start()) {
            Map<String, Object> seen = inspected(get(gw, "/inspect/a/b%20c?x=1&y=%20z&x=2&flag"));
            assertThat(seen.get("path")).isEqualTo("/inspect/a/b%20c");
            assertThat(seen.get("query")).isEqualTo("x=1&y=%20z&x=2&flag");
            assertThat(inspected(get(gw, "/inspect/plain")).get("query")).isEqualTo(Json.NULL);
        }
    }

    @Test
    void stripPrefixKeepsTheRestAndTheQuery() {
        try (TestGateway gw = gateway()
                .route("api", on("/api/**"), proxy(APP).stripPrefix("/api"))
                .start()) {
            Map<String, Object> seen = inspected(get(gw, "/api/inspect/items/7?sort=desc&page=2"));
            assertThat(seen.get("path")).isEqualTo("/inspect/items/7");
            assertThat(seen.get("query")).isEqualTo("sort=desc&page=2");
        }
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "/v1/items/7?x=1&page=1 | /inspect/v2/items/7 | page=1",
                "/v1/items/7?page=3&x=1 | /inspect/v2/items/7 | page=3",
                "/v1?page=a%20b         | /inspect/v2         | page=a%20b",
                "/v1/a%20b/c?page=%C3%A9 | /inspect/v2/a%20b/c | page=%C3%A9"
            })
    void pathTemplateRewritesWithRemainderAndQueryParameters(String target, String path, String query) {
        try (TestGateway gw = gateway()
                .route("v1", on("/v1/**"), proxy(APP).path("/inspect/v2{**}?page={page}"))
                .start()) {
            Map<String, Object> seen = inspected(get(gw, target));
            assertThat(seen.get("path")).isEqualTo(path);
            assertThat(seen.get("query"))
                    .as("the template's query, not the client's")
                    .isEqualTo(query);
        }
    }

    @Test
    void templateRewriteWithoutQueryDropsTheClientQuery() {
        try (TestGateway gw = gateway()
                .route("v1", on("/v1/**"), proxy(APP).path("/inspect/v2{**}"))
                .start()) {
            Map<String, Object> seen = inspected(get(gw, "/v1/items/7?x=1"));
            assertThat(seen.get("path")).isEqualTo("/inspect/v2/items/7");
            assertThat(seen.get("query")).isEqualTo(Json.NULL);
        }
    }

    @Test
    void upstreamBasePathIsPrefixed() {
        try (TestGateway gw = gateway()
                .upstream("based", upstream.url().resolve("/inspect/base/"))
                .route("strip", on("/s/**"), proxy("based").stripPrefix("/s"))
                .route("template", on("/t/{id}"), proxy("based").path("/items/{id}"))
                .route("plain", on("/plain/**"), proxy("based"))
                .start()) {
            Map<String, Object> stripped = inspected(get(gw, "/s/x/y?z=1"));
            assertThat(stripped.get("path")).isEqualTo("/inspect/base/x/y");
            assertThat(stripped.get("query")).isEqualTo("z=1");
            assertThat(inspected(get(gw, "/t/9")).get("path")).isEqualTo("/inspect/base/items/9");
            Map<String, Object> plain = inspected(get(gw, "/plain/q?r=2"));
            assertThat(plain.get("path")).isEqualTo("/inspect/base/plain/q");
            assertThat(plain.get("query")).isEqualTo("r=2");
        }
    }
}
