package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.http.UpstreamFailure;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed and hostile upstream responses, from a raw-socket upstream, through a proxy route and as
 * a composition part. An upstream's framing error never reaches the client as a well-formed response:
 * before anything was sent to the client it is {@code 502 bad_response} (a part: {@code null}, failed
 * in {@code _meta}); after, the client's response is cut off (no clean end).
 */
public abstract class UpstreamResponseContract extends ContractFixture {

    private static final String OK = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n";

    /** Responses the gateway must refuse, whole: 502 bad_response, never relayed. */
    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of(
                        "Transfer-Encoding and Content-Length",
                        OK + "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n4\r\n\"ok\"\r\n0\r\n\r\n"),
                Arguments.of(
                        "chunked twice", OK + "Transfer-Encoding: chunked, chunked\r\n\r\n4\r\n\"ok\"\r\n0\r\n\r\n"),
                Arguments.of(
                        "chunked before another coding",
                        OK + "Transfer-Encoding: chunked, gzip\r\n\r\n4\r\n\"ok\"\r\n0\r\n\r\n"),
                Arguments.of("an unknown transfer coding", OK + "Transfer-Encoding: gzip\r\n\r\n\"ok\""),
                Arguments.of(
                        "HTTP/1.0 with chunked",
                        "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                                + "4\r\n\"ok\"\r\n0\r\n\r\n"),
                Arguments.of(
                        "two different Content-Lengths", OK + "Content-Length: 4\r\nContent-Length: 5\r\n\r\n\"ok\""),
                Arguments.of("a negative Content-Length", OK + "Content-Length: -4\r\n\r\n\"ok\""),
                Arguments.of(
                        "equal Content-Lengths in two fields",
                        OK + "Content-Length: 4\r\nContent-Length: 4\r\n\r\n\"ok\""),
                Arguments.of("a Content-Length list of equal values", OK + "Content-Length: 4, 4\r\n\r\n\"ok\""),
                Arguments.of(
                        "a control byte (0x01) in a header value",
                        OK + "X-A: a\u0001b\r\nContent-Length: 4\r\n\r\n\"ok\""),
                Arguments.of("DEL (0x7F) in a header value", OK + "X-A: a\u007Fb\r\nContent-Length: 4\r\n\r\n\"ok\""),
                Arguments.of(
                        "a 60 KB header",
                        OK + "X-Big: " + "a".repeat(60 * 1024) + "\r\nContent-Length: 4\r\n\r\n\"ok\""),
                Arguments.of("5,000 headers", OK + "X-N: v\r\n".repeat(5_000) + "Content-Length: 4\r\n\r\n\"ok\""),
                Arguments.of(
                        "a 1 MB header block",
                        OK + ("X-Fill: " + "b".repeat(1000) + "\r\n").repeat(1024) + "Content-Length: 4\r\n\r\n\"ok\""),
                Arguments.of("a malformed status line", "HTTP/1.1 2x0 OK\r\nContent-Length: 4\r\n\r\n\"ok\""),
                Arguments.of("a status line without a code", "HTTP/1.1 OK\r\nContent-Length: 4\r\n\r\n\"ok\""),
                Arguments.of("HTTP/2.0 as the version", "HTTP/2.0 200 OK\r\nContent-Length: 4\r\n\r\n\"ok\""),
                Arguments.of(
                        "101 Switching Protocols to a request that did not ask",
                        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\"ok\""),
                Arguments.of("204 with a Content-Length", "HTTP/1.1 204 No Content\r\nContent-Length: 4\r\n\r\n\"ok\""),
                Arguments.of(
                        "204 with chunked",
                        "HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n\"ok\"\r\n0\r\n\r\n"),
                Arguments.of(
                        "304 with chunked",
                        "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n\"ok\"\r\n0\r\n\r\n"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void aProxiedResponseThatBreaksHttpIsBadGateway(String what, String response) {
        WireResponse answer = proxied(response);
        assertThat(answer.status()).as("%s: %s", what, answer).isEqualTo(502);
        assertError(answer, 502, UpstreamFailure.BAD_RESPONSE.code());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void aPartThatBreaksHttpIsNull(String what, String response) {
        try (RawUpstream raw = RawUpstream.answering(response);
                TestGateway gw = gateway()
                        .upstream("raw", raw.url())
                        .route("c", on("/c"), compose().part("p", "raw", "/x").part("q", APP, "/json/10"))
                        .start()) {
            Composed composed = Composed.of(gw.wire().get("/c"));
            assertThat(composed.part("p")).as(what).isEqualTo(Json.NULL);
            assertThat(composed.error("p")).as(what).hasValue(UpstreamFailure.BAD_RESPONSE.reason());
            assertThat(composed.part("q")).as(what).isNotEqualTo(Json.NULL);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cutShort")
    void aProxiedBodyThatBreaksAfterItsHeadIsNeverWhole(String what, String response) {
        WireResponse answer = proxied(response);
        assertThat(answer.status() == 502 || !answer.complete())
                .as("%s: a 502, or a response that visibly ends short: %s", what, answer)
                .isTrue();
    }

    /**
     * As above, to an HTTP/1.1 client that sent {@code Connection: close}: a body the gateway relays
     * without knowing its end goes chunked to it too ({@code ResponseHeadCheck.chunksUnknownLength}),
     * so the cut shows, never a close-delimited body that looks whole.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("cutShort")
    void aProxiedBodyThatBreaksAfterItsHeadIsNeverWholeToAClientThatAskedToClose(String what, String response) {
        WireResponse answer = proxied(response, true);
        assertThat(answer.status() == 502 || !answer.complete())
                .as("%s, Connection: close: a 502, or a response that visibly ends short: %s", what, answer)
                .isTrue();
    }

    /** Responses whose head is fine and whose body breaks: the gateway may have relayed the head. */
    static Stream<Arguments> cutShort() {
        return Stream.of(
                Arguments.of(
                        "Content-Length larger than the body, then close", OK + "Content-Length: 10\r\n\r\n\"ok\""),
                Arguments.of("an invalid chunk size", OK + "Transfer-Encoding: chunked\r\n\r\n4\r\n\"ok\"\r\nzz\r\n"),
                Arguments.of(
                        "chunked, closed before the last chunk",
                        OK + "Transfer-Encoding: chunked\r\n\r\n4\r\n\"ok\"\r\n"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("relayed")
    void aResponseThatBendsButKeepsHttpIsRelayed(String what, String response, int status, String body) {
        WireResponse answer = proxied(response);
        assertThat(answer.status()).as("%s: %s", what, answer).isEqualTo(status);
        assertThat(answer.complete()).as("%s: %s", what, answer).isTrue();
        assertThat(answer.bodyText()).as(what).isEqualTo(body);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("relayed")
    void aResponseThatBendsButKeepsHttpIsRelayedToAClientThatAskedToClose(
            String what, String response, int status, String body) {
        WireResponse answer = proxied(response, true);
        assertThat(answer.status()).as("%s: %s", what, answer).isEqualTo(status);
        assertThat(answer.complete()).as("%s: %s", what, answer).isTrue();
        assertThat(answer.bodyText()).as(what).isEqualTo(body);
    }

    static Stream<Arguments> relayed() {
        return Stream.of(
                Arguments.of(
                        "100 Continue, then 200",
                        "HTTP/1.1 100 Continue\r\n\r\n" + OK + "Content-Length: 4\r\n\r\n\"ok\"",
                        200,
                        "\"ok\""),
                Arguments.of(
                        "103 Early Hints, then 200",
                        "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + OK + "Content-Length: 4\r\n\r\n\"ok\"",
                        200,
                        "\"ok\""),
                Arguments.of("a body delimited by the close", OK + "\r\n\"ok\"", 200, "\"ok\""),
                Arguments.of(
                        "chunked with a trailer",
                        OK + "Transfer-Encoding: chunked\r\n\r\n4\r\n\"ok\"\r\n0\r\nX-T: 1\r\n\r\n",
                        200,
                        "\"ok\""),
                Arguments.of(
                        "a reason phrase with spaces",
                        "HTTP/1.1 404 Not Found Here\r\nContent-Length: 4\r\n\r\n\"ok\"",
                        404,
                        "\"ok\""),
                Arguments.of(
                        "a space before a header's colon (RFC 9112 section 5.1: a proxy removes it)",
                        OK + "X-A : b\r\nContent-Length: 4\r\n\r\n\"ok\"",
                        200,
                        "\"ok\""),
                Arguments.of(
                        "an empty reason phrase", "HTTP/1.1 200 \r\nContent-Length: 4\r\n\r\n\"ok\"", 200, "\"ok\""));
    }

    /**
     * Whether a connection carries another request after a response is the core's reading of the
     * response's {@code Connection} tokens ({@code ResponseHeadCheck.reusable}, RFC 9112 section
     * 9.3), the same in every engine. The upstream answers the first request on each connection and
     * closes it, unanswered, when a second one arrives there: two requests in a row make two heads
     * when the gateway opened a new connection, three when it reused the first (the reused one, then
     * its resend on a fresh connection). Both requests are answered either way.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("reuse")
    void aConnectionIsReusedOnlyWhenItsResponseLetsIt(String what, String response, boolean reused) {
        try (RawUpstream raw = RawUpstream.answeringOnceThenClosingOnTheNextRequest(response);
                TestGateway gw = gateway()
                        .upstream(Routes.upstream("raw", raw.url()).pool(1, java.time.Duration.ofSeconds(5), 10))
                        .route("r", on("/r/**"), proxy("raw").stripPrefix("/r"))
                        .start()) {
            for (String path : new String[] {"/r/first", "/r/second"}) {
                WireResponse answer = gw.wire().get(path);
                assertThat(answer.status()).as("%s, %s: %s", what, path, answer).isEqualTo(200);
                assertThat(answer.bodyText()).as("%s, %s", what, path).isEqualTo("\"ok\"");
            }
            assertThat(raw.heads())
                    .as("%s: request heads the upstream read (3: the first connection was reused)", what)
                    .isEqualTo(reused ? 3 : 2);
        }
    }

    static Stream<Arguments> reuse() {
        String ok = "Content-Type: application/json\r\nContent-Length: 4\r\n";
        return Stream.of(
                Arguments.of("HTTP/1.1, no Connection field", "HTTP/1.1 200 OK\r\n" + ok + "\r\n\"ok\"", true),
                Arguments.of(
                        "HTTP/1.1, Connection: close",
                        "HTTP/1.1 200 OK\r\n" + ok + "Connection: close\r\n\r\n\"ok\"",
                        false),
                Arguments.of("HTTP/1.0, no Connection field", "HTTP/1.0 200 OK\r\n" + ok + "\r\n\"ok\"", false),
                Arguments.of(
                        "HTTP/1.0, Connection: keep-alive",
                        "HTTP/1.0 200 OK\r\n" + ok + "Connection: Keep-Alive\r\n\r\n\"ok\"",
                        true),
                Arguments.of(
                        "HTTP/1.0, Connection: keep-alive, close (close wins)",
                        "HTTP/1.0 200 OK\r\n" + ok + "Connection: keep-alive, close\r\n\r\n\"ok\"",
                        false),
                Arguments.of(
                        "HTTP/1.0, keep-alive and close in two Connection fields",
                        "HTTP/1.0 200 OK\r\n" + ok + "Connection: keep-alive\r\nConnection: close\r\n\r\n\"ok\"",
                        false));
    }

    /** {@code GET /r/x} through a proxy route to an upstream that answers {@code response} raw. */
    private WireResponse proxied(String response) {
        return proxied(response, false);
    }

    /** As {@link #proxied(String)}; the request with {@code Connection: close} when {@code close}. */
    private WireResponse proxied(String response, boolean close) {
        try (RawUpstream raw = RawUpstream.answering(response);
                TestGateway gw = gateway()
                        .upstream("raw", raw.url())
                        .route("r", on("/r/**"), proxy("raw").stripPrefix("/r"))
                        .start()) {
            WireRequest request = WireRequest.get("/r/x");
            return gw.wire().send(close ? request.header("Connection", "close") : request);
        }
    }
}
