package dev.sluice.tck;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Request heads RFC 9112 says to refuse, sent as raw bytes: every engine answers the contract's JSON
 * (never a parser's HTML or empty page), closes the connection (nothing after a head whose framing
 * is in doubt is read) and the upstream receives nothing. Includes the answers the HTTP parsers give
 * before the gateway's handler runs (431, 414, 505, a bad Content-Length).
 */
public abstract class RequestFramingContract extends ContractFixture {

    private RecordingUpstream recording;
    private TestGateway gateway;

    @BeforeAll
    void startGateway() {
        recording = RecordingUpstream.start();
        gateway = gateway()
                .upstream("rec", recording.url())
                .route("rec", on("/up/**"), proxy("rec").stripPrefix("/up"))
                .start();
    }

    @AfterAll
    void stopGateway() {
        gateway.close();
        recording.close();
    }

    static Stream<Arguments> refusedHeads() {
        String body = "5\r\nhello\r\n0\r\n\r\n";
        return Stream.of(
                Arguments.of("HTTP/1.1 without Host", "GET /up/x HTTP/1.1\r\n\r\n", 400, "bad_request"),
                Arguments.of("two Host fields", "GET /up/x HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "bad_request"),
                Arguments.of("an invalid Host", "GET /up/x HTTP/1.1\r\nHost: a b/c\r\n\r\n", 400, "bad_request"),
                Arguments.of("NUL in the target", "GET /up/a\u0000b HTTP/1.1\r\nHost: h\r\n\r\n", 400, "bad_request"),
                Arguments.of("DEL in the target", "GET /up/a\u007fb HTTP/1.1\r\nHost: h\r\n\r\n", 400, "bad_request"),
                Arguments.of("NUL in the query", "GET /up/a?q=\u0000 HTTP/1.1\r\nHost: h\r\n\r\n", 400, "bad_request"),
                Arguments.of(
                        "Transfer-Encoding: identity, chunked",
                        post("Transfer-Encoding: identity, chunked") + body,
                        501,
                        "not_implemented"),
                Arguments.of(
                        "Transfer-Encoding: gzip, chunked",
                        post("Transfer-Encoding: gzip, chunked") + body,
                        501,
                        "not_implemented"),
                Arguments.of(
                        "Transfer-Encoding: gzip (not ending in chunked)",
                        post("Transfer-Encoding: gzip") + "hello",
                        400,
                        "bad_request"),
                Arguments.of(
                        "Transfer-Encoding: chunked, chunked",
                        post("Transfer-Encoding: chunked, chunked") + body,
                        400,
                        "bad_request"),
                Arguments.of(
                        "Transfer-Encoding with Content-Length",
                        post("Transfer-Encoding: chunked\r\nContent-Length: 5") + body,
                        400,
                        "bad_request"),
                Arguments.of("Content-Length: abc", post("Content-Length: abc") + "hello", 400, "bad_request"),
                Arguments.of("Content-Length: -1", post("Content-Length: -1") + "hello", 400, "bad_request"),
                Arguments.of(
                        "two different Content-Lengths",
                        post("Content-Length: 5\r\nContent-Length: 6") + "hello",
                        400,
                        "bad_request"),
                Arguments.of(
                        "a 70 KB header line",
                        "GET /up/x HTTP/1.1\r\nHost: h\r\nX-Big: " + "a".repeat(70 * 1024) + "\r\n\r\n",
                        431,
                        "headers_too_large"),
                Arguments.of(
                        "a 70 KB request line",
                        "GET /up/" + "a".repeat(70 * 1024) + " HTTP/1.1\r\nHost: h\r\n\r\n",
                        414,
                        "uri_too_long"),
                Arguments.of("HTTP/2.0", "GET /up/x HTTP/2.0\r\nHost: h\r\n\r\n", 505, "version_not_supported"),
                Arguments.of("HTTP/3.1", "GET /up/x HTTP/3.1\r\nHost: h\r\n\r\n", 505, "version_not_supported"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedHeads")
    void aRefusedHeadIsAnsweredWithJsonAndTheConnectionClosesBeforeAnyUpstream(
            String what, String request, int status, String code) {
        int before = recording.received().size();

        WireClient.RawExchange exchange = raw(request, 1);

        assertError(exchange.responses().getFirst(), status, code);
        assertThat(exchange.closed())
                .as("the connection closes after the answer to %s", what)
                .isTrue();
        assertThat(recording.received())
                .as("what the upstream received after %s", what)
                .hasSize(before);
    }

    @Test
    void aRefusedHeadAfterAGoodOneOnTheSameConnectionIsAnsweredAfterIt() {
        int before = recording.received().size();

        WireClient.RawExchange exchange = raw(
                "GET /up/first HTTP/1.1\r\nHost: h\r\n\r\nGET /up/second HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 2);

        assertThat(exchange.responses().getFirst().status()).isEqualTo(200);
        assertThat(exchange.responses().getFirst().bodyText()).isEqualTo("ok");
        assertError(exchange.responses().get(1), 400, "bad_request");
        assertThat(exchange.closed())
                .as("the connection closes after the refusal")
                .isTrue();
        assertThat(recording.received()).hasSize(before + 1);
        assertThat(recording.received().getLast().head()).startsWith("GET /first HTTP/1.1\r\n");
    }

    @Test
    void aSoundHeadReachesTheUpstreamIncludingHttp10WithoutHost() {
        int before = recording.received().size();

        WireClient.RawExchange chunked = raw(
                "POST /up/chunked HTTP/1.1\r\nHost: h\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
                1);
        WireClient.RawExchange http10 = raw("GET /up/old HTTP/1.0\r\n\r\n", 1);

        assertThat(chunked.responses().getFirst().status()).isEqualTo(200);
        assertThat(http10.responses().getFirst().status()).isEqualTo(200);
        assertThat(recording.received()).hasSize(before + 2);
        assertThat(recording.received().get(before).head())
                .as("the upstream never sees Transfer-Encoding and Content-Length together")
                .satisfiesAnyOf(
                        head -> assertThat(head.toLowerCase()).doesNotContain("\r\ncontent-length:"),
                        head -> assertThat(head.toLowerCase()).doesNotContain("\r\ntransfer-encoding:"));
        assertThat(recording.received().get(before).bodyText()).contains("hello");
    }

    private static String post(String framingHeaders) {
        return "POST /up/x HTTP/1.1\r\nHost: h\r\nContent-Type: text/plain\r\n" + framingHeaders + "\r\n\r\n";
    }

    private WireClient.RawExchange raw(String request, int responses) {
        return gateway.wire()
                .timeout(Duration.ofSeconds(20))
                .sendRaw(request.getBytes(StandardCharsets.ISO_8859_1), responses);
    }
}
