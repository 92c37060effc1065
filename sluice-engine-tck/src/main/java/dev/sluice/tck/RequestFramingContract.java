package dev.sluice.tck;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.FilterConfig;
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
                .route("small", on("/small/**"), proxy("rec").stripPrefix("/small"), new FilterConfig.MaxBody(1000))
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
                // the gateway is no forward proxy or tunnel: such targets were routed as "/" (reactive:
                // GET * and OPTIONS * reached a catch-all route's upstream as GET /; every mode sent CONNECT /)
                Arguments.of(
                        "OPTIONS * (the asterisk form)", "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n", 400, "bad_request"),
                Arguments.of("GET *", "GET * HTTP/1.1\r\nHost: h\r\n\r\n", 400, "bad_request"),
                Arguments.of(
                        "CONNECT (the authority form)",
                        "CONNECT h:443 HTTP/1.1\r\nHost: h:443\r\n\r\n",
                        400,
                        "bad_request"),
                Arguments.of(
                        "an absolute form naming another host than Host",
                        "GET http://evil.example/up/x HTTP/1.1\r\nHost: h\r\n\r\n",
                        400,
                        "bad_request"),
                Arguments.of("a fragment in the target", "GET /up/x#f HTTP/1.1\r\nHost: h\r\n\r\n", 400, "bad_request"),
                Arguments.of("an empty Host", "GET /up/x HTTP/1.1\r\nHost: \r\n\r\n", 400, "bad_request"),
                Arguments.of("lines ended by a bare LF", "GET /up/x HTTP/1.1\nHost: h\n\n", 400, "bad_request"),
                Arguments.of(
                        "an expectation other than 100-continue",
                        post("Expect: bogus\r\nContent-Length: 5") + "hello",
                        417,
                        "expectation_failed"),
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

    @Test
    void anAbsoluteFormNamingItsHostIsRoutedByItsPathAndAFoldedFieldReachesTheUpstreamAsOneLine() {
        int before = recording.received().size();

        WireClient.RawExchange absolute =
                raw("GET http://h/up/absolute?q=1 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", 1);
        WireClient.RawExchange folded =
                raw("GET /up/folded HTTP/1.1\r\nHost: h\r\nX-Folded: one\r\n two\r\nConnection: close\r\n\r\n", 1);

        assertThat(absolute.responses().getFirst().status()).isEqualTo(200);
        assertThat(folded.responses().getFirst().status()).isEqualTo(200);
        assertThat(recording.received()).hasSize(before + 2);
        assertThat(recording.received().get(before).head()).startsWith("GET /absolute?q=1 HTTP/1.1\r\n");
        assertThat(recording.received().get(before + 1).head().toLowerCase(java.util.Locale.ROOT))
                .as("obs-fold is one line joined by a space (RFC 9112 5.2), in every mode")
                .contains("\r\nx-folded: one two\r\n");
    }

    /**
     * A declared body length is read by one rule ({@code RequestFraming.declaredLength}) wherever it
     * is asked: the head's check, a route's {@code max-body}, the upstream request's framing. Each
     * bad value is a 400 with the contract's JSON and a closed connection, on a route with a body
     * limit as on one without, and never reaches an upstream; a value between spaces is a length.
     */
    static Stream<Arguments> badDeclaredLengths() {
        return Stream.of(
                Arguments.of("-1", "Content-Length: -1"),
                Arguments.of("a list of two values", "Content-Length: 1,2"),
                Arguments.of("a plus sign", "Content-Length: +5"),
                Arguments.of("past 2^63", "Content-Length: 99999999999999999999"),
                Arguments.of("a number with a fraction", "Content-Length: 5.0"),
                Arguments.of("two different fields", "Content-Length: 5\r\nContent-Length: 6"),
                Arguments.of("a list of one value twice", "Content-Length: 5, 5"),
                Arguments.of("two equal fields", "Content-Length: 5\r\nContent-Length: 5"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badDeclaredLengths")
    void aBadDeclaredLengthIs400OnRoutesWithAndWithoutABodyLimit(String what, String lengthHeaders) {
        for (String route : new String[] {"/up/x", "/small/x"}) {
            int before = recording.received().size();

            WireClient.RawExchange exchange = raw(
                    "POST " + route + " HTTP/1.1\r\nHost: h\r\nContent-Type: text/plain\r\n" + lengthHeaders
                            + "\r\n\r\nhello",
                    1);

            assertError(exchange.responses().getFirst(), 400, "bad_request");
            assertThat(exchange.closed())
                    .as("the connection closes after %s on %s", what, route)
                    .isTrue();
            assertThat(recording.received())
                    .as("what the upstream received after %s on %s", what, route)
                    .hasSize(before);
        }
    }

    /**
     * The same lengths on HTTP/2 streams (h2c, prior knowledge): a bad one is refused, with the
     * contract's 400 or by ending the stream (RFC 9113 section 8.1.1: a malformed request; Jetty's
     * HPACK decoder ends the connection), and never reaches an upstream. A sound one is a length on a
     * route with a body limit as on one without. A list or a second field of equal values is refused
     * by the core's rule, as both HTTP/1.1 parsers and Jetty's HTTP/2 decoder refuse it; Netty's
     * HTTP/2 codec merges it into one value before the gateway sees the head, so the reactive engine
     * proxies it as that length: either, never a 500.
     */
    static Stream<Arguments> declaredLengthsOnStreams() {
        return Stream.of(
                Arguments.of("-1", new String[] {"-1"}, false),
                Arguments.of("a list of two values", new String[] {"1,2"}, false),
                Arguments.of("a plus sign", new String[] {"+5"}, false),
                Arguments.of("past 2^63", new String[] {"99999999999999999999"}, false),
                Arguments.of("two different fields", new String[] {"5", "6"}, false),
                Arguments.of("5", new String[] {"5"}, true),
                Arguments.of("a list of one value twice", new String[] {"5, 5"}, null),
                Arguments.of("two equal fields", new String[] {"5", "5"}, null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("declaredLengthsOnStreams")
    void aDeclaredLengthOnAStreamIsReadByTheSameRule(String what, String[] lengths, Boolean sound) throws Exception {
        for (String route : new String[] {"/up/h2", "/small/h2"}) {
            int before = recording.received().size();
            H2Answer answer;
            try (H2Wire wire = H2Wire.connect(gateway.port())) {
                java.util.List<String> fields = new java.util.ArrayList<>(java.util.List.of(
                        ":method", "POST", ":scheme", "http", ":authority", gateway.authority(), ":path", route));
                for (String length : lengths) {
                    fields.add("content-length");
                    fields.add(length);
                }
                wire.headers(1, false, fields.toArray(String[]::new));
                wire.data(1, "hello".getBytes(StandardCharsets.US_ASCII), true);
                wire.flush();
                answer = h2Answer(wire, 1);
            }

            boolean refused = answer.ended() || answer.status() == 400;
            if (sound == Boolean.TRUE || (sound == null && !refused)) { // null: the codec's to merge
                assertThat(answer.status())
                        .as("%s on %s: %s", what, route, answer)
                        .isEqualTo(200);
                assertThat(recording.received()).hasSize(before + 1);
                assertThat(recording.received().getLast().bodyText()).isEqualTo("hello");
            } else {
                assertThat(refused)
                        .as("%s on %s is refused: %s", what, route, answer)
                        .isTrue();
                if (!answer.ended()) {
                    assertError(400, answer.contentType(), answer.body(), "bad_request");
                }
                assertThat(recording.received())
                        .as("what the upstream received after %s on %s", what, route)
                        .hasSize(before);
            }
        }
    }

    /**
     * On HTTP/2 a declared length over the route's limit is the same {@code 413} before any upstream
     * is asked, and only its stream ends: the connection's next stream is served (closing the
     * connection, as HTTP/1.1 must, would cost every other stream on it).
     */
    @Test
    void aDeclaredLengthOverTheLimitOnAStreamIs413AndTheConnectionServesTheNext() throws Exception {
        int before = recording.received().size();
        try (H2Wire wire = H2Wire.connect(gateway.port())) {
            wire.headers(
                    1,
                    false,
                    ":method",
                    "POST",
                    ":scheme",
                    "http",
                    ":authority",
                    gateway.authority(),
                    ":path",
                    "/small/h2",
                    "content-length",
                    "1001");
            wire.flush();
            H2Answer tooLarge = h2Answer(wire, 1);
            assertThat(tooLarge.status()).as("%s", tooLarge).isEqualTo(413);
            assertError(413, tooLarge.contentType(), tooLarge.body(), "content_too_large");

            wire.get(3, gateway.authority(), "/up/after");
            wire.flush();
            H2Answer next = h2Answer(wire, 3);
            assertThat(next.ended())
                    .as("the next stream on the connection: %s", next)
                    .isFalse();
            assertThat(next.status()).isEqualTo(200);
        }
        assertThat(recording.received()).hasSize(before + 1);
        assertThat(recording.received().getLast().head()).startsWith("GET /after ");
    }

    /** @param ended the stream was reset, or the connection ended (GOAWAY, or closed) before an answer */
    private record H2Answer(int status, String contentType, byte[] body, boolean ended) {
        @Override
        public String toString() {
            return ended ? "ended" : status + " " + new String(body, StandardCharsets.UTF_8);
        }
    }

    /** The answer on {@code stream}, or its end without one: a reset, a GOAWAY or a close. */
    private static H2Answer h2Answer(H2Wire wire, int stream) throws java.io.IOException {
        int status = 0;
        String type = null;
        java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
        while (true) {
            H2Wire.Frame frame = wire.read().orElse(null);
            if (frame == null || frame.type() == H2Wire.GOAWAY) {
                return new H2Answer(status, type, body.toByteArray(), true);
            }
            if (frame.stream() != stream) {
                continue;
            }
            if (frame.type() == H2Wire.RST_STREAM) {
                return new H2Answer(status, type, body.toByteArray(), true);
            }
            if (frame.type() == H2Wire.HEADERS && status == 0) {
                status = frame.status();
                type = frame.header("content-type");
            } else if (frame.type() == H2Wire.DATA) {
                body.write(frame.payload());
            }
            if (frame.endsStream()) {
                return new H2Answer(status, type, body.toByteArray(), false);
            }
        }
    }

    @Test
    void aDeclaredLengthBetweenSpacesIsALengthOnRoutesWithAndWithoutABodyLimit() {
        for (String route : new String[] {"/up/x", "/small/x"}) {
            int before = recording.received().size();

            WireClient.RawExchange exchange = raw(
                    "POST " + route + " HTTP/1.1\r\nHost: h\r\nConnection: close\r\nContent-Type: text/plain\r\n"
                            + "Content-Length:  5 \r\n\r\nhello",
                    1);

            assertThat(exchange.responses().getFirst().status())
                    .as("%s with Content-Length ' 5 '", route)
                    .isEqualTo(200);
            assertThat(recording.received()).hasSize(before + 1);
            assertThat(recording.received().getLast().bodyText()).isEqualTo("hello");
        }
    }

    @Test
    void aDeclaredLengthOverTheRoutesLimitIs413AndClosesBeforeAnyUpstream() {
        int before = recording.received().size();

        WireClient.RawExchange exchange =
                raw("POST /small/x HTTP/1.1\r\nHost: h\r\nContent-Type: text/plain\r\nContent-Length: 1001\r\n\r\n", 1);

        assertError(exchange.responses().getFirst(), 413, "content_too_large");
        assertThat(exchange.closed()).isTrue();
        assertThat(recording.received()).hasSize(before);
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
