package dev.sluice.engine.blocking.upstream;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.engine.blocking.upstream.ScriptedUpstream.Script;
import dev.sluice.http.UpstreamFailure;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The wire behaviour of {@link Http1UpstreamClient} that the shared {@link UpstreamClientContract}
 * cannot reach through a real HTTP server: response framing edge cases (HEAD, 1xx, HTTP/1.0,
 * close-delimited and chunked bodies), strict rejection of ambiguous heads, truncated bodies, the
 * one transparent retry on a connection the upstream closed while idle, exactly what goes on the
 * wire for a request, and the idle sweep. Each test scripts a raw-socket upstream ({@link
 * ScriptedUpstream}) and looks at which connection every request arrived on.
 */
@Timeout(value = 15, unit = TimeUnit.SECONDS)
final class Http1WireTest {

    private static final String HELLO = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";

    /** Long enough for a loopback answer, short enough that a client waiting for bytes that never come fails the test fast. */
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(3);

    private static final Duration PROMPT = Duration.ofSeconds(5);

    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : opened.reversed()) {
            c.close();
        }
    }

    private ScriptedUpstream upstream(Script script) {
        ScriptedUpstream upstream = ScriptedUpstream.start(script);
        opened.add(upstream);
        return upstream;
    }

    private Http1UpstreamClient client(UpstreamSpec spec) {
        Http1UpstreamClient client =
                new Http1UpstreamClient(spec.readTimeout(READ_TIMEOUT).build());
        opened.add(client);
        return client;
    }

    private Http1UpstreamClient client(ScriptedUpstream upstream) {
        return client(UpstreamSpec.of("wire", upstream.url()));
    }

    /**
     * A client that reuses an idle connection without checking it first, however long it was idle:
     * on a loaded machine the steps of a test can take longer than the check's two seconds, and the
     * check would then find the close these tests are about and open a new connection instead.
     */
    private Http1UpstreamClient uncheckedClient(ScriptedUpstream upstream) {
        Http1UpstreamClient client = new Http1UpstreamClient(
                UpstreamSpec.of("wire", upstream.url())
                        .readTimeout(READ_TIMEOUT)
                        .build(),
                Long.MAX_VALUE);
        opened.add(client);
        return client;
    }

    private static UpstreamRequest request(UpstreamClient client, String method, String target) {
        return new UpstreamRequest(method, target)
                .header("Host", client.config().authority());
    }

    private static UpstreamRequest get(UpstreamClient client, String target) {
        return request(client, "GET", target);
    }

    /** A POST with no body: not idempotent, so never retried; it fails if sent on a dead pooled connection. */
    private static UpstreamRequest bodylessPost(UpstreamClient client, String target) {
        return request(client, "POST", target);
    }

    private static String text(UpstreamClient client, UpstreamRequest request) throws UpstreamException {
        try (UpstreamResponse response = client.send(request)) {
            return new String(UpstreamClientContract.readAll(response), ISO_8859_1);
        }
    }

    private static void assertFailure(ThrowingCallable call, UpstreamFailure failure) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        UpstreamException.class,
                        e -> assertThat(e.failure()).as("failure of %s", e).isEqualTo(failure));
    }

    /** The send fails as an invalid response. */
    private void assertBadResponse(String response) {
        ScriptedUpstream upstream = upstream(ScriptedUpstream.keepAnswering(response));
        Http1UpstreamClient client = client(upstream);
        assertFailure(() -> client.send(get(client, "/")), UpstreamFailure.BAD_RESPONSE);
    }

    /** Header lines of a request head, lower-cased, without the request line. */
    private static List<String> headerLines(String head) {
        return head.lines()
                .skip(1)
                .filter(l -> !l.isEmpty())
                .map(l -> l.toLowerCase(Locale.ROOT))
                .toList();
    }

    private static long count(List<String> lines, String prefix) {
        return lines.stream().filter(l -> l.startsWith(prefix)).count();
    }

    private static String pattern(int length) {
        StringBuilder s = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            s.append((char) ('a' + (i * 7 + i / 26) % 26));
        }
        return s.toString();
    }

    // ---- 1. response framing ----------------------------------------------------------------------

    @Test
    void aHeadResponseWithContentLengthHasNoBodyAndTheConnectionStaysInStep() throws Exception {
        ScriptedUpstream upstream = upstream(conn -> {
            for (String head; (head = conn.readHead()) != null; ) {
                conn.write(head.startsWith("HEAD ") ? "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n" : HELLO);
            }
        });
        Http1UpstreamClient client = client(upstream);
        try (UpstreamResponse head = client.send(request(client, "HEAD", "/h"))) {
            assertThat(head.status()).isEqualTo(200);
            assertThat(head.header("Content-Length")).isEqualTo("5");
            assertThat(head.read(new byte[16], 0, 16))
                    .as("no body after a HEAD")
                    .isEqualTo(-1);
        }
        assertThat(text(client, get(client, "/g")))
                .as("no byte was taken as the HEAD's body")
                .isEqualTo("hello");
        assertThat(upstream.connectionsOfRequests())
                .as("one connection for both")
                .containsExactly(0, 0);
    }

    @Test
    void noContentAndNotModifiedHaveNoBody() throws Exception {
        ScriptedUpstream upstream = upstream(ScriptedUpstream.answerInTurn(
                "HTTP/1.1 204 No Content\r\nX-Which: 204\r\n\r\n",
                "HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\nContent-Length: 5\r\n\r\n",
                HELLO));
        Http1UpstreamClient client = client(upstream);
        try (UpstreamResponse noContent = client.send(get(client, "/204"))) {
            assertThat(noContent.status()).isEqualTo(204);
            assertThat(UpstreamClientContract.readAll(noContent)).isEmpty();
        }
        try (UpstreamResponse notModified = client.send(get(client, "/304"))) {
            assertThat(notModified.status()).isEqualTo(304);
            assertThat(notModified.header("ETag")).isEqualTo("\"v1\"");
            assertThat(UpstreamClientContract.readAll(notModified)).isEmpty();
        }
        assertThat(text(client, get(client, "/after"))).isEqualTo("hello");
        assertThat(upstream.connectionsOfRequests()).containsExactly(0, 0, 0);
    }

    @Test
    void interimResponsesAreSkippedBeforeTheFinalOne() throws Exception {
        ScriptedUpstream upstream = upstream(ScriptedUpstream.answerInTurn(
                "HTTP/1.1 100 Continue\r\n\r\n"
                        + "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
                        + "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok",
                HELLO));
        Http1UpstreamClient client = client(upstream);
        try (UpstreamResponse response = client.send(get(client, "/hints"))) {
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.header("Content-Type")).isEqualTo("text/plain");
            assertThat(response.header("Link"))
                    .as("an interim response's headers are not the final ones")
                    .isNull();
            assertThat(new String(UpstreamClientContract.readAll(response), ISO_8859_1))
                    .isEqualTo("ok");
        }
        assertThat(text(client, get(client, "/next"))).isEqualTo("hello");
        assertThat(upstream.connectionsOfRequests()).containsExactly(0, 0);
    }

    @Test
    void anUnaskedSwitchingProtocolsIsBadResponse() {
        assertBadResponse("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n");
    }

    @Test
    void http10WithoutKeepAliveIsReadToTheCloseAndNotReused() throws Exception {
        String body = pattern(20_000); // beyond the read buffer: some of it read straight from the socket
        ScriptedUpstream upstream = upstream(ScriptedUpstream.perConnection(
                ScriptedUpstream.answerOnceThenClose("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n" + body),
                ScriptedUpstream.keepAnswering(HELLO)));
        Http1UpstreamClient client = client(upstream);
        try (UpstreamResponse response = client.send(get(client, "/old"))) {
            assertThat(response.contentLength()).isEqualTo(-1);
            assertThat(new String(UpstreamClientContract.readAll(response), ISO_8859_1))
                    .isEqualTo(body);
        }
        assertThat(text(client, bodylessPost(client, "/next"))).isEqualTo("hello");
        assertThat(upstream.connectionsOfRequests())
                .as("a new connection for the next call")
                .containsExactly(0, 1);
    }

    @Test
    void http10WithContentLengthButWithoutKeepAliveIsNotReused() throws Exception {
        // the server would answer a second request on the same connection: only the client's choice decides
        assertTwoCallsGoOnConnections("HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello", 0, 1);
    }

    @Test
    void http10WithKeepAliveAndContentLengthIsReused() throws Exception {
        assertTwoCallsGoOnConnections(
                "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 5\r\n\r\nhello", 0, 0);
    }

    @Test
    void connectionCloseOnHttp11IsNotReused() throws Exception {
        assertTwoCallsGoOnConnections("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello", 0, 1);
    }

    /** Two GETs to an upstream that answers {@code response} to every request, on any connection. */
    private void assertTwoCallsGoOnConnections(String response, Integer... connections) throws Exception {
        ScriptedUpstream upstream = upstream(ScriptedUpstream.keepAnswering(response));
        Http1UpstreamClient client = client(upstream);
        assertThat(text(client, get(client, "/1"))).isEqualTo("hello");
        assertThat(text(client, get(client, "/2"))).isEqualTo("hello");
        assertThat(upstream.connectionsOfRequests()).containsExactly(connections);
    }

    @Test
    void http11WithoutLengthOrTransferEncodingIsDelimitedByTheClose() throws Exception {
        String body = pattern(20_000);
        ScriptedUpstream upstream = upstream(ScriptedUpstream.perConnection(
                ScriptedUpstream.answerOnceThenClose("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n" + body),
                ScriptedUpstream.keepAnswering(HELLO)));
        Http1UpstreamClient client = client(upstream);
        try (UpstreamResponse response = client.send(get(client, "/stream"))) {
            assertThat(response.contentLength()).isEqualTo(-1);
            assertThat(new String(UpstreamClientContract.readAll(response), ISO_8859_1))
                    .isEqualTo(body);
        }
        assertThat(text(client, bodylessPost(client, "/next"))).isEqualTo("hello");
        assertThat(upstream.connectionsOfRequests()).containsExactly(0, 1);
    }

    @Test
    void chunkedWithExtensionsAndTrailersIsExactAndReused() throws Exception {
        String big = pattern(1000); // 3e8: read straight into the caller's array
        String response = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;name=value\r\nhello\r\n"
                + "6 ; quoted=\"a;b\"\r\n world\r\n"
                + "3E8\r\n" + big + "\r\n"
                + "0;last\r\nX-Checksum: abc\r\nX-Other: t\r\n\r\n";
        ScriptedUpstream upstream = upstream(ScriptedUpstream.keepAnswering(response));
        Http1UpstreamClient client = client(upstream);
        for (int i = 0; i < 2; i++) {
            try (UpstreamResponse r = client.send(get(client, "/chunked/" + i))) {
                assertThat(r.contentLength()).isEqualTo(-1);
                assertThat(new String(UpstreamClientContract.readAll(r), ISO_8859_1))
                        .isEqualTo("hello world" + big);
            }
        }
        assertThat(upstream.connectionsOfRequests())
                .as("trailers consumed: the connection is in step")
                .containsExactly(0, 0);
    }

    @Test
    void chunkedWithContentLengthIsBadResponse() {
        // RFC 9112 lets a recipient decode it as chunked; a gateway refuses it (ResponseHeadCheck)
        assertBadResponse(
                "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
    }

    // ---- 2. strictness ----------------------------------------------------------------------------

    @Test
    void twoDifferentContentLengthsAreBadResponse() {
        assertBadResponse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!");
    }

    @Test
    void aContentLengthListOfDifferentValuesIsBadResponse() {
        assertBadResponse("HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\nhe");
    }

    @Test
    void aFoldedHeaderLineIsBadResponse() {
        assertBadResponse("HTTP/1.1 200 OK\r\nX-Folded: one\r\n two\r\nContent-Length: 5\r\n\r\nhello");
    }

    @Test
    void whitespaceBetweenHeaderNameAndColonIsRemoved() throws Exception {
        // RFC 9112 section 5.1: a proxy removes it before forwarding the response
        ScriptedUpstream upstream = upstream(
                ScriptedUpstream.keepAnswering("HTTP/1.1 200 OK\r\nX-A \t: b\r\nContent-Length : 5\r\n\r\nhello"));
        Http1UpstreamClient client = client(upstream);
        try (UpstreamResponse response = client.send(get(client, "/ws"))) {
            assertThat(response.header("X-A")).isEqualTo("b");
            assertThat(response.headerName(0)).isEqualTo("X-A");
            assertThat(new String(UpstreamClientContract.readAll(response), ISO_8859_1))
                    .isEqualTo("hello");
        }
    }

    @Test
    void anHttp2StatusLineIsBadResponse() {
        assertBadResponse("HTTP/2 200\r\ncontent-length: 5\r\n\r\nhello");
    }

    @Test
    void aResponseHeadOver32KbIsBadResponse() {
        assertBadResponse("HTTP/1.1 200 OK\r\n" + padding(34) + "Content-Length: 5\r\n\r\nhello");
    }

    @Test
    void aOneMegabyteHeadIsBadResponse() {
        assertBadResponse("HTTP/1.1 200 OK\r\n" + padding(1024) + "Content-Length: 5\r\n\r\nhello");
    }

    @Test
    void aResponseHeadJustUnder32KbIsAccepted() throws Exception {
        // larger than the 8 KB read buffer: the head limit, not the buffer, decides
        String pad = padding(30);
        ScriptedUpstream upstream = upstream(
                ScriptedUpstream.keepAnswering("HTTP/1.1 200 OK\r\n" + pad + "Content-Length: 5\r\n\r\nhello"));
        Http1UpstreamClient client = client(upstream);
        try (UpstreamResponse response = client.send(get(client, "/big-head"))) {
            assertThat(response.header("X-Pad-29")).hasSize(1000);
            assertThat(new String(UpstreamClientContract.readAll(response), ISO_8859_1))
                    .isEqualTo("hello");
        }
        assertThat(text(client, get(client, "/next"))).isEqualTo("hello");
        assertThat(upstream.connectionsOfRequests()).containsExactly(0, 0);
    }

    /** {@code lines} header lines of about 1 KB each. */
    private static String padding(int lines) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < lines; i++) {
            s.append("X-Pad-").append(i).append(": ").append("x".repeat(1000)).append("\r\n");
        }
        return s.toString();
    }

    @Test
    void anInvalidChunkSizeLineIsBadResponse() throws Exception {
        ScriptedUpstream upstream = upstream(ScriptedUpstream.keepAnswering(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"));
        Http1UpstreamClient client = client(upstream);
        try (UpstreamResponse response = client.send(get(client, "/"))) {
            assertThat(response.status()).isEqualTo(200);
            assertFailure(() -> response.read(new byte[100], 0, 100), UpstreamFailure.BAD_RESPONSE);
        }
    }

    @Test
    void aContentLengthGivenTwiceIsRefusedEvenWhenEqual() {
        // as Netty's decoder in the reactive engine: every engine frames a response the same way
        assertBadResponse("HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\nhello");
        assertBadResponse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello");
    }

    // ---- 3. truncation ----------------------------------------------------------------------------

    @Test
    void aBodyShortOfItsContentLengthIsResetAndTheConnectionDropped() throws Exception {
        ScriptedUpstream upstream = upstream(ScriptedUpstream.perConnection(
                ScriptedUpstream.answerOnceThenClose("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + "x".repeat(50)),
                ScriptedUpstream.keepAnswering(HELLO)));
        Http1UpstreamClient client = client(upstream);
        try (UpstreamResponse response = client.send(get(client, "/short"))) {
            assertThat(response.contentLength()).isEqualTo(100);
            assertFailure(() -> UpstreamClientContract.readAll(response), UpstreamFailure.RESET);
        }
        assertThat(text(client, bodylessPost(client, "/next"))).isEqualTo("hello");
        assertThat(upstream.connectionsOfRequests())
                .as("a new connection for the next call")
                .containsExactly(0, 1);
    }

    @Test
    void aChunkedBodyCutInsideAChunkIsReset() throws Exception {
        ScriptedUpstream upstream = upstream(ScriptedUpstream.perConnection(
                ScriptedUpstream.answerOnceThenClose(
                        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\na\r\nworld"),
                ScriptedUpstream.keepAnswering(HELLO)));
        Http1UpstreamClient client = client(upstream);
        try (UpstreamResponse response = client.send(get(client, "/cut"))) {
            assertFailure(() -> UpstreamClientContract.readAll(response), UpstreamFailure.RESET);
        }
        assertThat(text(client, bodylessPost(client, "/next"))).isEqualTo("hello");
        assertThat(upstream.connectionsOfRequests()).containsExactly(0, 1);
    }

    // ---- 4. retry of connections the upstream closed while idle ------------------------------------

    /** Connection 0 answers once with keep-alive, then the upstream closes it; later connections serve on. */
    private ScriptedUpstream closesTheFirstConnectionWhenIdle() {
        return upstream(ScriptedUpstream.perConnection(
                ScriptedUpstream.answerOnceThenClose(HELLO), ScriptedUpstream.keepAnswering(HELLO)));
    }

    @Test
    void aGetOnAConnectionClosedWhileIdleIsRetriedOnANewOne() throws Exception {
        ScriptedUpstream upstream = closesTheFirstConnectionWhenIdle();
        Http1UpstreamClient client = uncheckedClient(upstream);
        assertThat(text(client, get(client, "/first"))).isEqualTo("hello");
        assertThat(upstream.awaitFinished(1, PROMPT))
                .as("the upstream closed the idle connection")
                .isTrue();
        assertThat(text(client, get(client, "/second"))).isEqualTo("hello");
        assertThat(upstream.seen())
                .containsExactly(
                        new ScriptedUpstream.Seen(
                                0,
                                "GET /first HTTP/1.1\r\nHost: "
                                        + client.config().authority() + "\r\n\r\n"),
                        new ScriptedUpstream.Seen(
                                1,
                                "GET /second HTTP/1.1\r\nHost: "
                                        + client.config().authority() + "\r\n\r\n"));
        assertThat(upstream.accepted()).isEqualTo(2);
    }

    @Test
    void aPostWithABodyOnAConnectionClosedWhileIdleIsNotRetried() throws Exception {
        ScriptedUpstream upstream = closesTheFirstConnectionWhenIdle();
        Http1UpstreamClient client = uncheckedClient(upstream);
        assertThat(text(client, get(client, "/first"))).isEqualTo("hello");
        assertThat(upstream.awaitFinished(1, PROMPT)).isTrue();
        UpstreamRequest post =
                request(client, "POST", "/order").body(new ByteArrayInputStream("data".getBytes(ISO_8859_1)), 4);
        assertFailure(() -> client.send(post), UpstreamFailure.RESET);
        assertThat(upstream.heads())
                .as("no second copy of the POST")
                .hasSize(1)
                .allMatch(h -> h.startsWith("GET /first "));
        assertThat(upstream.accepted()).isEqualTo(1);
    }

    @Test
    void aBodylessPostOnAConnectionClosedWhileIdleIsNotRetried() throws Exception {
        ScriptedUpstream upstream = closesTheFirstConnectionWhenIdle();
        Http1UpstreamClient client = uncheckedClient(upstream);
        assertThat(text(client, get(client, "/first"))).isEqualTo("hello");
        assertThat(upstream.awaitFinished(1, PROMPT)).isTrue();
        assertFailure(() -> client.send(bodylessPost(client, "/trigger")), UpstreamFailure.RESET);
        assertThat(upstream.heads()).hasSize(1).allMatch(h -> h.startsWith("GET /first "));
        assertThat(upstream.accepted()).isEqualTo(1);
    }

    @Test
    void theRetryGoesToAFreshConnectionEvenWhenMoreStaleOnesArePooled() throws Exception {
        // an upstream restart closes every pooled connection at once; the retry must not take another of them
        ScriptedUpstream upstream = upstream(ScriptedUpstream.perConnection(
                ScriptedUpstream.answerOnceThenClose(HELLO),
                ScriptedUpstream.answerOnceThenClose(HELLO),
                ScriptedUpstream.keepAnswering(HELLO)));
        Http1UpstreamClient client = client(upstream);
        try (UpstreamResponse a = client.send(get(client, "/a"));
                UpstreamResponse b = client.send(get(client, "/b"))) {
            assertThat(UpstreamClientContract.readAll(a)).hasSize(5);
            assertThat(UpstreamClientContract.readAll(b)).hasSize(5);
        }
        assertThat(upstream.connectionsOfRequests())
                .as("two pooled connections")
                .containsExactly(0, 1);
        assertThat(upstream.awaitFinished(2, PROMPT))
                .as("the upstream closed both")
                .isTrue();
        assertThat(text(client, get(client, "/c"))).isEqualTo("hello");
        assertThat(upstream.connectionsOfRequests()).containsExactly(0, 1, 2);
    }

    // ---- 5. request writing -----------------------------------------------------------------------

    /** Reads one request with a Content-Length body per turn, keeps its body, answers HELLO. */
    private static Script recordingLengthBodies(List<byte[]> bodies) {
        return conn -> {
            for (String head; (head = conn.readHead()) != null; ) {
                long length = headerLines(head).stream()
                        .filter(l -> l.startsWith("content-length:"))
                        .mapToLong(l -> Long.parseLong(
                                l.substring("content-length:".length()).trim()))
                        .findFirst()
                        .orElse(0);
                bodies.add(conn.readBytes((int) length));
                conn.write(HELLO);
            }
        };
    }

    @Test
    void aBodyOfKnownLengthIsSentWithOneContentLengthAndNoTransferEncoding() throws Exception {
        List<byte[]> bodies = new CopyOnWriteArrayList<>();
        ScriptedUpstream upstream = upstream(recordingLengthBodies(bodies));
        Http1UpstreamClient client = client(upstream);
        byte[] body = pattern(30_000).getBytes(ISO_8859_1); // larger than the write buffer
        assertThat(text(client, request(client, "PUT", "/doc").body(new ByteArrayInputStream(body), body.length)))
                .isEqualTo("hello");
        assertThat(text(client, request(client, "POST", "/empty").body(InputStream.nullInputStream(), 0)))
                .isEqualTo("hello");

        assertThat(upstream.heads().get(0)).startsWith("PUT /doc HTTP/1.1\r\n");
        assertThat(upstream.heads().get(1))
                .as("nothing stray between the requests")
                .startsWith("POST /empty HTTP/1.1\r\n");
        List<String> first = headerLines(upstream.heads().get(0));
        assertThat(count(first, "content-length:")).isEqualTo(1);
        assertThat(first).contains("content-length: 30000").noneMatch(l -> l.startsWith("transfer-encoding:"));
        assertThat(bodies.get(0)).isEqualTo(body);
        List<String> second = headerLines(upstream.heads().get(1));
        assertThat(second).contains("content-length: 0").noneMatch(l -> l.startsWith("transfer-encoding:"));
        assertThat(count(second, "content-length:")).isEqualTo(1);
        assertThat(bodies.get(1)).isEmpty();
        assertThat(upstream.connectionsOfRequests())
                .as("the body was sent exactly: the connection stays in step")
                .containsExactly(0, 0);
    }

    @Test
    void aBodyOfUnknownLengthIsSentChunked() throws Exception {
        List<byte[]> bodies = new CopyOnWriteArrayList<>();
        ScriptedUpstream upstream = upstream(conn -> {
            while (conn.readHead() != null) {
                bodies.add(conn.readChunked());
                conn.write(HELLO);
            }
        });
        Http1UpstreamClient client = client(upstream);
        byte[] body = pattern(30_000).getBytes(ISO_8859_1);
        InputStream trickle = new ByteArrayInputStream(body) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, 777)); // many chunks of an odd size
            }
        };
        assertThat(text(client, request(client, "POST", "/upload").body(trickle, -1)))
                .isEqualTo("hello");
        assertThat(text(client, request(client, "POST", "/nothing").body(InputStream.nullInputStream(), -1)))
                .isEqualTo("hello");

        assertThat(upstream.heads().get(0)).startsWith("POST /upload HTTP/1.1\r\n");
        assertThat(upstream.heads().get(1))
                .as("the last chunk ended the body exactly")
                .startsWith("POST /nothing HTTP/1.1\r\n");
        for (String head : upstream.heads()) {
            List<String> lines = headerLines(head);
            assertThat(count(lines, "transfer-encoding:")).isEqualTo(1);
            assertThat(lines).contains("transfer-encoding: chunked").noneMatch(l -> l.startsWith("content-length:"));
        }
        assertThat(bodies).hasSize(2);
        assertThat(bodies.get(0)).isEqualTo(body);
        assertThat(bodies.get(1)).isEmpty();
        assertThat(upstream.failures())
                .as("the chunked framing was strict HTTP/1.1")
                .isEmpty();
        assertThat(upstream.connectionsOfRequests()).containsExactly(0, 0);
    }

    @Test
    void aRequestLeftToTheEndpointsHostGetsTheUpstreamsAuthorityAndAGivenHostIsTheOnlyOne() throws Exception {
        ScriptedUpstream upstream = upstream(ScriptedUpstream.keepAnswering(HELLO));
        Http1UpstreamClient client = client(upstream);
        text(
                client,
                new UpstreamRequest("GET", "/no-host").header("Accept", "*/*").hostFromEndpoint(true));
        text(client, new UpstreamRequest("GET", "/own-host").header("host", "api.example.test"));

        List<String> defaulted = headerLines(upstream.heads().get(0));
        assertThat(count(defaulted, "host:")).isEqualTo(1);
        assertThat(defaulted).contains("host: " + client.config().authority(), "accept: */*");
        List<String> kept = headerLines(upstream.heads().get(1));
        assertThat(count(kept, "host:"))
                .as("the caller's Host, not a second one")
                .isEqualTo(1);
        assertThat(kept).contains("host: api.example.test");
        assertThat(upstream.heads().get(0)).startsWith("GET /no-host HTTP/1.1\r\n");
    }

    @Test
    void aRequestHeadWithCrOrLfIsRefusedAndNothingOfItIsSent() throws Exception {
        ScriptedUpstream upstream = upstream(ScriptedUpstream.keepAnswering(HELLO));
        Http1UpstreamClient client = client(upstream);
        List<UpstreamRequest> smuggling = List.of(
                get(client, "/v").header("X-Evil", "a\r\nX-Injected: yes"),
                get(client, "/v").header("X-Evil", "a\nX-Injected: yes"),
                get(client, "/n").header("X-Evil\r\nX-Injected", "yes"),
                get(client, "/t HTTP/1.1\r\nX-Injected: yes\r\nX-Rest:"),
                new UpstreamRequest("GET", "/h").header("Host", "a\r\nX-Injected: yes"));
        for (UpstreamRequest bad : smuggling) {
            assertThatThrownBy(() -> client.send(bad)).isInstanceOf(UpstreamException.class);
            // the client is still usable: the permit and slot came back
            assertThat(text(client, get(client, "/ok"))).isEqualTo("hello");
        }
        client.close();
        assertThat(upstream.awaitFinished(upstream.accepted(), PROMPT)).isTrue();
        assertThat(upstream.heads())
                .as("only the good requests arrived")
                .hasSize(smuggling.size())
                .allMatch(h -> h.startsWith("GET /ok "));
        for (int i = 0; i < upstream.accepted(); i++) {
            int connection = i;
            long heads = upstream.seen().stream()
                    .filter(s -> s.connection() == connection)
                    .mapToLong(s -> s.head().length())
                    .sum();
            assertThat(upstream.received(i))
                    .as("bytes on connection %d beyond the good requests' heads", i)
                    .isEqualTo(heads);
        }
        assertThat(String.join("", upstream.heads())).doesNotContainIgnoringCase("x-injected");
    }

    // ---- 6. idle connections ----------------------------------------------------------------------

    @Test
    void anIdleConnectionIsClosedByTheSweepAndTheNextCallOpensANewOne() throws Exception {
        AtomicReference<Boolean> closedByClient = new AtomicReference<>();
        ScriptedUpstream upstream = upstream(ScriptedUpstream.perConnection(
                conn -> {
                    conn.readHead();
                    conn.write(HELLO);
                    closedByClient.set(conn.awaitClientClose(Duration.ofSeconds(10)));
                },
                ScriptedUpstream.keepAnswering(HELLO)));
        Http1UpstreamClient client =
                client(UpstreamSpec.of("idle", upstream.url()).idleTimeout(Duration.ofMillis(300)));
        assertThat(text(client, get(client, "/1"))).isEqualTo("hello");
        assertThat(upstream.awaitFinished(1, PROMPT))
                .as("the idle connection was closed within a few seconds")
                .isTrue();
        assertThat(closedByClient.get())
                .as("the upstream saw the client's close, not a request or a timeout")
                .isTrue();
        assertThat(text(client, get(client, "/2"))).isEqualTo("hello");
        assertThat(upstream.connectionsOfRequests()).containsExactly(0, 1);
    }

    @Test
    void aSlotWhoseReadTimedOutServesItsNextCallOnAFreshConnection() throws Exception {
        // the read watchdog ends the first call's read by closing its socket: the slot's next call
        // (one slot) must find neither that socket nor a read still marked as timed out
        ScriptedUpstream upstream = upstream(ScriptedUpstream.perConnection(
                conn -> {
                    conn.readHead();
                    conn.pause(Duration.ofSeconds(40));
                },
                ScriptedUpstream.keepAnswering("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")));
        Http1UpstreamClient client = new Http1UpstreamClient(UpstreamSpec.of("wire", upstream.url())
                .pool(1, Duration.ofSeconds(5), 10)
                .readTimeout(Duration.ofMillis(200))
                .build());
        opened.add(client);
        long start = System.nanoTime();
        assertFailure(() -> client.send(get(client, "/silent")), UpstreamFailure.READ_TIMEOUT);
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .as("read-timeout plus at most the watchdog's tick, with room for a loaded machine")
                .isLessThan(Duration.ofSeconds(10));
        for (int i = 0; i < 3; i++) {
            assertThat(text(client, get(client, "/" + i))).isEqualTo("hello");
        }
        assertThat(upstream.accepted()).isEqualTo(2);
    }

    @Test
    void theReadWatchdogLooksTenTimesPerReadTimeoutWithinBounds() {
        assertThat(Http1UpstreamClient.readWatchTick(Duration.ofSeconds(30).toNanos()))
                .isEqualTo(Duration.ofSeconds(1).toNanos());
        assertThat(Http1UpstreamClient.readWatchTick(Duration.ofSeconds(2).toNanos()))
                .isEqualTo(Duration.ofMillis(200).toNanos());
        assertThat(Http1UpstreamClient.readWatchTick(Duration.ofMillis(10).toNanos()))
                .isEqualTo(Duration.ofMillis(5).toNanos());
    }

    @Test
    void anUpstreamThatStopsReadingTheRequestBodyIsAReadTimeout() throws Exception {
        // reads the head, then nothing: the body (far beyond the socket buffers) cannot be written
        try (ScriptedUpstream upstream = ScriptedUpstream.start(conn -> {
            conn.readHead();
            Thread.sleep(40_000);
        })) {
            Http1UpstreamClient client =
                    client(UpstreamSpec.of("deaf", upstream.url()).readTimeout(Duration.ofMillis(300)));
            UpstreamRequest post =
                    request(client, "POST", "/upload").body(new ByteArrayInputStream(new byte[64 << 20]), 64 << 20);
            long start = System.nanoTime();
            assertFailure(() -> client.send(post), UpstreamFailure.READ_TIMEOUT);
            // not prompt: the kernel's buffers take the first megabytes, slowly at the end; but no hang
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
        }
    }

    @Test
    void aClientThatSendsItsBodySlowlyIsNotTimedOut() throws Exception {
        // the request body trickles in slower than read-timeout: waiting for it is not a stalled write
        try (ScriptedUpstream upstream = ScriptedUpstream.start(
                ScriptedUpstream.keepAnswering("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))) {
            Http1UpstreamClient client =
                    client(UpstreamSpec.of("patient", upstream.url()).readTimeout(Duration.ofMillis(300)));
            java.io.InputStream slow = new java.io.InputStream() {
                private int left = 3;

                @Override
                public int read() {
                    throw new UnsupportedOperationException();
                }

                @Override
                public int read(byte[] b, int off, int len) {
                    if (left == 0) {
                        return -1;
                    }
                    try {
                        Thread.sleep(700);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    left--;
                    b[off] = 'x';
                    return 1;
                }
            };
            assertThat(text(client, request(client, "POST", "/slow").body(slow, 3)))
                    .isEqualTo("ok");
        }
    }
}
