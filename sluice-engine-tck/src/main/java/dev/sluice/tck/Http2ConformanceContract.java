package dev.sluice.tck;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * HTTP/2 as RFC 9113 has it where a client breaks the protocol, in frames written by hand ({@link
 * H2Wire}, h2c by prior knowledge), the cases h2spec checks and their neighbours:
 *
 * <pre>
 *   the client sends                               the gateway answers
 *   a malformed head (§8.1.1, §8.2, §8.3)           RST_STREAM PROTOCOL_ERROR (or GOAWAY PROTOCOL_ERROR);
 *                                                  never a response, nothing reaches the upstream
 *   DATA on a stream it reset or that ended         RST_STREAM STREAM_CLOSED (or GOAWAY STREAM_CLOSED)
 *     both ways (§5.1, §6.1)
 *   DATA on a stream the gateway reset (§5.1)       nothing: it is ignored
 *   RST_STREAM (§5.4.2)                            no RST_STREAM back; an upload it cuts short is
 *                                                  aborted upstream at once
 * </pre>
 */
public abstract class Http2ConformanceContract extends ContractFixture {

    /** How long a test waits for the gateway's answer to one frame. */
    private static final Duration PROMPTLY = Duration.ofSeconds(5);

    /**
     * Heads RFC 9113 calls malformed (§8.1.1): each must be a stream error of type PROTOCOL_ERROR. The
     * h2spec case each stands for is in its name.
     */
    static Stream<Arguments> malformedHeads() {
        return Stream.of(
                Arguments.of(
                        "8.1.2/1 an upper-case field name",
                        List.of(
                                ":method",
                                "GET",
                                ":scheme",
                                "http",
                                ":path",
                                "/malformed",
                                ":authority",
                                "a.test",
                                "X-Upper",
                                "v")),
                Arguments.of(
                        "8.1.2.1/1 an unknown pseudo-header field",
                        List.of(
                                ":method",
                                "GET",
                                ":scheme",
                                "http",
                                ":path",
                                "/malformed",
                                ":authority",
                                "a.test",
                                ":foo",
                                "bar")),
                Arguments.of(
                        "8.1.2.1/2 a response's pseudo-header field",
                        List.of(
                                ":method",
                                "GET",
                                ":scheme",
                                "http",
                                ":path",
                                "/malformed",
                                ":authority",
                                "a.test",
                                ":status",
                                "200")),
                Arguments.of(
                        "8.1.2.1/3 a pseudo-header field after a regular one",
                        List.of(
                                ":method",
                                "GET",
                                ":scheme",
                                "http",
                                "x-early",
                                "v",
                                ":path",
                                "/malformed",
                                ":authority",
                                "a.test")),
                Arguments.of(
                        "8.1.2.2/1 a connection-specific field",
                        List.of(
                                ":method",
                                "GET",
                                ":scheme",
                                "http",
                                ":path",
                                "/malformed",
                                ":authority",
                                "a.test",
                                "connection",
                                "keep-alive")),
                Arguments.of(
                        "8.1.2.2/2 TE other than trailers",
                        List.of(
                                ":method",
                                "GET",
                                ":scheme",
                                "http",
                                ":path",
                                "/malformed",
                                ":authority",
                                "a.test",
                                "te",
                                "trailers, deflate")),
                Arguments.of(
                        "8.1.2.3/1 an empty :path",
                        List.of(":method", "GET", ":scheme", "http", ":path", "", ":authority", "a.test")),
                Arguments.of(
                        "8.1.2.3/2 no :method",
                        List.of(":scheme", "http", ":path", "/malformed", ":authority", "a.test")),
                Arguments.of(
                        "8.1.2.3/3 no :scheme",
                        List.of(":method", "GET", ":path", "/malformed", ":authority", "a.test")),
                Arguments.of(
                        "8.1.2.3/4 no :path", List.of(":method", "GET", ":scheme", "http", ":authority", "a.test")),
                Arguments.of(
                        "8.1.2.3/5 :method twice",
                        List.of(
                                ":method",
                                "GET",
                                ":method",
                                "POST",
                                ":scheme",
                                "http",
                                ":path",
                                "/malformed",
                                ":authority",
                                "a.test")),
                Arguments.of(
                        "8.1.2.3/6 :scheme twice",
                        List.of(
                                ":method",
                                "GET",
                                ":scheme",
                                "http",
                                ":scheme",
                                "https",
                                ":path",
                                "/malformed",
                                ":authority",
                                "a.test")),
                Arguments.of(
                        "8.1.2.3/7 :path twice",
                        List.of(
                                ":method",
                                "GET",
                                ":scheme",
                                "http",
                                ":path",
                                "/malformed",
                                ":path",
                                "/malformed2",
                                ":authority",
                                "a.test")));
    }

    /**
     * A malformed head is a stream error of type PROTOCOL_ERROR (RFC 9113 §8.1.1): RST_STREAM, or GOAWAY
     * for the whole connection, with that code. It is not a request: no response (no 400), nothing
     * upstream; after a RST_STREAM the connection serves its next stream.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedHeads")
    void aMalformedHeadIsAStreamErrorOfTypeProtocolError(String what, List<String> fields) throws Exception {
        Counted seen = new Counted();
        try (RecordingUpstream recording = RecordingUpstream.start();
                TestGateway gw = proxyingAllTo(recording).observer(seen).start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            wire.headers(1, H2Wire.block(fields.toArray(String[]::new)), true);
            wire.flush();
            H2Wire.Frame error = streamError(wire, 1, what);
            assertThat(error.type() == H2Wire.RST_STREAM ? error.resetCode() : error.errorCode())
                    .as(
                            "the error code of %s for %s",
                            error.type() == H2Wire.RST_STREAM ? "RST_STREAM" : "GOAWAY", what)
                    .isEqualTo(H2Wire.PROTOCOL_ERROR);
            if (error.type() == H2Wire.RST_STREAM) {
                wire.get(3, gw.authority(), "/after");
                wire.flush();
                H2Wire.Frame next = headOf(wire, 3);
                assertThat(next.status())
                        .as("the connection serves on after %s", what)
                        .isEqualTo(200);
            }
            assertThat(recording.received())
                    .as("what reached the upstream")
                    .allSatisfy(received -> assertThat(received.head()).startsWith("GET /after "));
            assertThat(seen.http2())
                    .as("the malformed head counted once as a client protocol error (http2)")
                    .isEqualTo(1);
            assertThat(seen.exchanges())
                    .as("the exchanges reported: a reset is no answer, so the malformed head is none")
                    .allSatisfy(path -> assertThat(path).isEqualTo("/after"));
        }
    }

    /**
     * Well-formed HTTP/2 heads the gateway does not serve (as over HTTP/1.1, {@code RequestFraming}):
     * a tunnel, the asterisk form, an expectation it cannot meet. Each with the status it must get.
     */
    static Stream<Arguments> refusedHeads() {
        return Stream.of(
                Arguments.of("CONNECT (RFC 9113 8.5)", 400, List.of(":method", "CONNECT", ":authority", "a.test:443")),
                Arguments.of("OPTIONS * (the asterisk form)", 400, request("OPTIONS", "*")),
                Arguments.of("an Expect other than 100-continue", 417, request("GET", "/refused", "expect", "bogus")));
    }

    /**
     * A well-formed head the gateway does not serve gets its status with a JSON reason, at once, in
     * every mode, and reaches no upstream: before, one engine routed {@code OPTIONS *} and CONNECT as
     * paths (404), another failed CONNECT inside the gateway (500), and both proxied the unmet {@code
     * Expect}.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedHeads")
    void aHeadTheGatewayDoesNotServeIsRefusedWithItsStatus(String what, int status, List<String> fields)
            throws Exception {
        H2Wire.Frame answer = answerAlone(fields, what);
        assertThat(answer.type()).as("%s is answered, not reset", what).isEqualTo(H2Wire.HEADERS);
        assertThat(answer.status()).as(what).isEqualTo(status);
        assertThat(answer.header("content-type")).as(what).startsWith("application/json");
    }

    /**
     * Heads RFC 9113 calls malformed that a codec may let through as a request: a {@code :path} that is
     * not an absolute path or holds a space (§8.3.1), a {@code host} that contradicts {@code :authority}
     * (§8.3.1), a CONNECT with {@code :scheme} and {@code :path} (§8.5). Refused
     * either as malformed (a stream error of type PROTOCOL_ERROR) or with a 400, never served; before,
     * one engine proxied the absolute URI by its path, another hung on the CONNECT.
     */
    static Stream<Arguments> malformedTargets() {
        return Stream.of(
                Arguments.of("an absolute URI as :path", request("GET", "http://elsewhere.test/x")),
                Arguments.of(":path without its leading slash", request("GET", "x/y")),
                Arguments.of("CONNECT with :scheme and :path", request("CONNECT", "/x")),
                Arguments.of("a space in :path", request("GET", "/a b")),
                Arguments.of("a host field that is not :authority", request("GET", "/h", "host", "other.test")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedTargets")
    void aMalformedTargetIsRefusedAndReachesNoUpstream(String what, List<String> fields) throws Exception {
        H2Wire.Frame answer = answerAlone(fields, what);
        if (answer.type() == H2Wire.HEADERS) {
            assertThat(answer.status()).as(what).isEqualTo(400);
        } else {
            assertThat(answer.type() == H2Wire.RST_STREAM ? answer.resetCode() : answer.errorCode())
                    .as("the error code for %s", what)
                    .isEqualTo(H2Wire.PROTOCOL_ERROR);
        }
    }

    /** A request head's fields: {@code method} and {@code path} on {@code a.test} over http, then {@code more}. */
    private static List<String> request(String method, String path, String... more) {
        List<String> fields =
                new ArrayList<>(List.of(":method", method, ":scheme", "http", ":path", path, ":authority", "a.test"));
        fields.addAll(List.of(more));
        return fields;
    }

    /**
     * Sends {@code fields} as the only request of a new connection to a gateway proxying everything to
     * a recording upstream, and gives its answer ({@link #answerOrStreamError}) once it is sure that
     * nothing reached the upstream (any call would have been made before the answer).
     */
    private H2Wire.Frame answerAlone(List<String> fields, String what) throws Exception {
        try (RecordingUpstream recording = RecordingUpstream.start();
                TestGateway gw = proxyingAllTo(recording).start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            wire.headers(1, H2Wire.block(fields.toArray(String[]::new)), true);
            wire.flush();
            H2Wire.Frame answer = answerOrStreamError(wire, 1, what);
            assertThat(recording.received())
                    .as("what reached the upstream for %s", what)
                    .isEmpty();
            return answer;
        }
    }

    /**
     * DATA on a stream the client reset is a stream error of type STREAM_CLOSED (RFC 9113 §5.1,
     * "closed"; §6.1): h2spec 5.1/8.
     */
    @Test
    void dataOnAStreamTheClientResetIsAStreamClosedError() throws Exception {
        Counted seen = new Counted();
        try (TestGateway gw = gateway()
                        .route("all", on("/**"), proxy(APP))
                        .observer(seen)
                        .start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            wire.post(1, gw.authority(), "/inspect/reset", 10);
            wire.reset(1);
            wire.data(1, "hello".getBytes(java.nio.charset.StandardCharsets.US_ASCII), false);
            wire.flush();
            assertStreamClosedError(wire, 1);
            assertThat(seen.http2()).as("the error counted once (http2)").isEqualTo(1);
        }
    }

    /**
     * DATA on a stream that ended both ways (its request with END_STREAM, its response whole) is an
     * error of type STREAM_CLOSED (RFC 9113 §5.1, §6.1): h2spec 5.1/11.
     */
    @Test
    void dataOnAStreamThatEndedBothWaysIsAStreamClosedError() throws Exception {
        Counted seen = new Counted();
        try (TestGateway gw = gateway()
                        .route("all", on("/**"), proxy(APP))
                        .observer(seen)
                        .start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            wire.get(1, gw.authority(), "/json/10");
            wire.flush();
            H2Wire.Frame frame = headOf(wire, 1);
            while (!(frame.stream() == 1 && frame.endsStream())) {
                frame = wire.read().orElseThrow(() -> new AssertionError("closed before stream 1's end"));
            }
            wire.data(1, "late".getBytes(java.nio.charset.StandardCharsets.US_ASCII), true);
            wire.flush();
            assertStreamClosedError(wire, 1);
            assertThat(seen.http2()).as("the error counted once (http2)").isEqualTo(1);
        }
    }

    /**
     * Frames the client sent before it learnt that the gateway reset the stream are ignored (RFC 9113
     * §5.1, "closed"): the stream is reset once, no STREAM_CLOSED error follows, and the connection
     * serves on.
     */
    @Test
    void dataOnAStreamTheGatewayResetIsIgnored() throws Exception {
        Counted seen = new Counted();
        try (TestGateway gw = gateway()
                        .route("all", on("/**"), proxy(APP))
                        .observer(seen)
                        .start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            // a malformed head (no :method) with a body to come, then its body without waiting
            wire.headers(1, H2Wire.block(":scheme", "http", ":path", "/malformed", ":authority", "a.test"), false);
            for (int i = 0; i < 4; i++) {
                wire.data(1, new byte[100], i == 3);
            }
            wire.get(3, gw.authority(), "/json/3");
            wire.flush();
            List<H2Wire.Frame> onStream1 = new ArrayList<>();
            H2Wire.Frame frame = wire.read().orElseThrow();
            while (!(frame.stream() == 3 && frame.endsStream())) {
                assertThat(frame.type()).as("no GOAWAY").isNotEqualTo(H2Wire.GOAWAY);
                if (frame.stream() == 1) {
                    onStream1.add(frame);
                }
                frame = wire.read().orElseThrow(() -> new AssertionError("closed before stream 3's end"));
            }
            syncWithPing(wire, onStream1);
            assertThat(onStream1)
                    .as("what the gateway sent on stream 1: its reset of the head, and no answer to the DATA after it")
                    .singleElement()
                    .satisfies(f -> assertThat(f.type()).isEqualTo(H2Wire.RST_STREAM))
                    .satisfies(f -> assertThat(f.resetCode()).isNotEqualTo(H2Wire.STREAM_CLOSED));
            assertThat(seen.http2())
                    .as("the malformed head counted once, the DATA after it not")
                    .isEqualTo(1);
        }
    }

    /**
     * An endpoint must not answer RST_STREAM with RST_STREAM (RFC 9113 §5.4.2): a client that resets
     * a stream whose request is upstream (a slow answer) or whose body is still coming hears nothing
     * more of it, and the connection serves on.
     */
    @Test
    void aClientsResetIsNotAnsweredWithAReset() throws Exception {
        Counted seen = new Counted();
        try (TestGateway gw = gateway()
                        .route("all", on("/**"), proxy(APP))
                        .observer(seen)
                        .start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            int before = upstream.exchanges();
            wire.get(1, gw.authority(), "/json/10?delay=300");
            wire.post(3, gw.authority(), "/inspect/upload", 10_000);
            wire.data(3, new byte[1_000], false);
            wire.flush();
            Await.until(
                    Duration.ofSeconds(10),
                    () -> upstream.exchanges() >= before + 2,
                    "both requests reached the upstream, the slow answer and the upload under way");
            wire.reset(1);
            wire.reset(3);
            wire.flush();
            Await.until(
                    Duration.ofSeconds(10),
                    () -> seen.exchanges().size() >= 2,
                    "the gateway ended both reset exchanges");
            wire.get(5, gw.authority(), "/json/5");
            wire.flush();
            List<H2Wire.Frame> resets = new ArrayList<>();
            H2Wire.Frame frame = wire.read().orElseThrow();
            while (!(frame.stream() == 5 && frame.endsStream())) {
                if (frame.type() == H2Wire.RST_STREAM || frame.type() == H2Wire.GOAWAY) {
                    resets.add(frame);
                }
                frame = wire.read().orElseThrow(() -> new AssertionError("closed before stream 5's end"));
            }
            syncWithPing(wire, resets);
            assertThat(resets)
                    .as("RST_STREAM or GOAWAY frames after the client reset streams 1 and 3")
                    .isEmpty();
            assertThat(seen.http2()).as("a client's reset is no protocol error").isZero();
        }
    }

    /**
     * A connection error (RFC 9113 §5.4.1; here a WINDOW_UPDATE of 0 on the connection, §6.9, h2spec
     * 6.9/2) is answered GOAWAY PROTOCOL_ERROR and counted once as a client protocol error; client
     * protocol errors, however many, log at most one line of their kind and no stack trace.
     */
    @Test
    void protocolErrorsAreCountedOnceEachAndLoggedAtMostOnceAMinute() throws Exception {
        Counted seen = new Counted();
        try (LogCapture log = LogCapture.start();
                TestGateway gw = gateway()
                        .route("all", on("/**"), proxy(APP))
                        .observer(seen)
                        .start()) {
            try (H2Wire wire = H2Wire.connect(gw.port())) {
                for (int stream = 1; stream <= 9; stream += 2) { // five malformed heads (no :method)
                    wire.headers(stream, H2Wire.block(":scheme", "http", ":path", "/m", ":authority", "a.test"), true);
                }
                wire.get(11, gw.authority(), "/json/2");
                wire.flush();
                assertThat(headOf(wire, 11).status()).isEqualTo(200);
            }
            try (H2Wire wire = H2Wire.connect(gw.port())) {
                wire.windowUpdate(0, 0);
                wire.flush();
                H2Wire.Frame error = streamError(wire, 0, "a WINDOW_UPDATE of 0 on the connection");
                assertThat(error.type()).isEqualTo(H2Wire.GOAWAY);
                assertThat(error.errorCode()).isEqualTo(H2Wire.PROTOCOL_ERROR);
            }
            long deadline = System.nanoTime() + PROMPTLY.toNanos(); // the GOAWAY's count may follow it
            while (seen.http2() < 6 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            try (H2Wire wire = H2Wire.connect(gw.port())) { // any later count of the connection's is in by now
                wire.get(1, gw.authority(), "/json/2");
                wire.flush();
                assertThat(headOf(wire, 1).status()).isEqualTo(200);
            }
            assertThat(seen.http2())
                    .as("five resets and a GOAWAY, each counted once")
                    .isEqualTo(6);
            assertThat(log.eventsContaining("(http2)"))
                    .as("one line for the kind, however many")
                    .hasSizeLessThanOrEqualTo(1);
            for (var event : log.events()) {
                assertThat(event.getThrowableProxy())
                        .as("a stack trace: " + event.getFormattedMessage())
                        .isNull();
            }
        }
    }

    /** What the gateway reported to its observer: client protocol errors of kind http2, exchanges' paths. */
    private static final class Counted implements dev.sluice.observe.GatewayObserver {
        private final java.util.concurrent.atomic.AtomicInteger http2 = new java.util.concurrent.atomic.AtomicInteger();
        private final List<String> exchanges = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void clientProtocolError(dev.sluice.observe.ClientProtocolError kind) {
            if (kind == dev.sluice.observe.ClientProtocolError.HTTP2) {
                http2.incrementAndGet();
            }
        }

        @Override
        public void exchange(dev.sluice.observe.ExchangeEvent event) {
            exchanges.add(event.path());
        }

        int http2() {
            return http2.get();
        }

        List<String> exchanges() {
            return exchanges;
        }
    }

    /**
     * A client that resets its stream in the middle of an upload ends the upstream request with it:
     * the upstream sees its connection end within seconds, the request cut short, rather than wait for
     * a body that will not come until a timeout.
     */
    @Test
    void aResetMidUploadAbortsTheUpstreamRequestAtOnce() throws Exception {
        try (RecordingUpstream recording = RecordingUpstream.start();
                TestGateway gw = proxyingAllTo(recording).start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            wire.post(1, gw.authority(), "/upload", 100_000);
            wire.data(1, new byte[1_000], false);
            wire.flush();
            assertThat(recording.awaitHead(Duration.ofSeconds(20)))
                    .as("the upstream request began before the body ended")
                    .isTrue();
            long start = System.nanoTime();
            wire.reset(1);
            wire.flush();
            RecordingUpstream.Received cut = recording.next(PROMPTLY);
            assertThat(cut)
                    .as("the upstream request ended within %s of the client's reset", PROMPTLY)
                    .isNotNull();
            assertThat(cut.whole()).as("the upstream request was cut short").isFalse();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(PROMPTLY);

            wire.post(3, gw.authority(), "/upload", 5);
            wire.data(3, "hello".getBytes(java.nio.charset.StandardCharsets.US_ASCII), true);
            wire.flush();
            assertThat(headOf(wire, 3).status()).as("the connection serves on").isEqualTo(200);
            assertThat(recording.next(PROMPTLY))
                    .as("the next upload, whole upstream")
                    .satisfies(r -> assertThat(r.whole()).isTrue())
                    .satisfies(r -> assertThat(r.bodyText()).isEqualTo("hello"));
        }
    }

    /**
     * The gateway's answer to DATA on a closed stream: RST_STREAM STREAM_CLOSED on that stream, or
     * GOAWAY STREAM_CLOSED; never a RST_STREAM of another code on it before.
     */
    private static void assertStreamClosedError(H2Wire wire, int stream) throws IOException {
        H2Wire.Frame error = streamError(wire, stream, "DATA on closed stream " + stream);
        assertThat(error.type() == H2Wire.RST_STREAM ? error.resetCode() : error.errorCode())
                .as("the error code of the %s", error.type() == H2Wire.RST_STREAM ? "RST_STREAM" : "GOAWAY")
                .isEqualTo(H2Wire.STREAM_CLOSED);
    }

    /**
     * The first RST_STREAM on {@code stream} or GOAWAY; fails if the stream is answered first (a
     * HEADERS on it), the connection closes first, or nothing comes within {@link #PROMPTLY} of the
     * last frame read.
     */
    private static H2Wire.Frame streamError(H2Wire wire, int stream, String what) throws IOException {
        wire.timeout(PROMPTLY);
        try {
            for (Optional<H2Wire.Frame> f = wire.read(); f.isPresent(); f = wire.read()) {
                H2Wire.Frame frame = f.get();
                assertThat(frame.type() == H2Wire.HEADERS && frame.stream() == stream)
                        .as("%s is answered (status %s)", what, frame.head() == null ? "" : frame.status())
                        .isFalse();
                if ((frame.type() == H2Wire.RST_STREAM && frame.stream() == stream) || frame.type() == H2Wire.GOAWAY) {
                    return frame;
                }
            }
        } catch (java.net.SocketTimeoutException silent) {
            throw new AssertionError("no RST_STREAM nor GOAWAY within " + PROMPTLY + " after " + what, silent);
        }
        throw new AssertionError("the connection closed without RST_STREAM nor GOAWAY after " + what);
    }

    /** The first HEADERS or RST_STREAM frame of {@code stream}, or a GOAWAY, within {@link #PROMPTLY}. */
    private static H2Wire.Frame answerOrStreamError(H2Wire wire, int stream, String what) throws IOException {
        wire.timeout(PROMPTLY);
        try {
            for (Optional<H2Wire.Frame> f = wire.read(); f.isPresent(); f = wire.read()) {
                H2Wire.Frame frame = f.get();
                if (((frame.type() == H2Wire.HEADERS || frame.type() == H2Wire.RST_STREAM) && frame.stream() == stream)
                        || frame.type() == H2Wire.GOAWAY) {
                    return frame;
                }
            }
        } catch (java.net.SocketTimeoutException silent) {
            throw new AssertionError("no answer, RST_STREAM nor GOAWAY within " + PROMPTLY + " after " + what, silent);
        }
        throw new AssertionError("the connection closed without an answer after " + what);
    }

    /** The HEADERS frame that answers {@code stream}, skipping every other frame. */
    private static H2Wire.Frame headOf(H2Wire wire, int stream) throws IOException {
        H2Wire.Frame frame = wire.readUntil(H2Wire.HEADERS).orElseThrow(() -> new AssertionError("closed"));
        while (frame.stream() != stream) {
            frame = wire.readUntil(H2Wire.HEADERS).orElseThrow(() -> new AssertionError("closed"));
        }
        return frame;
    }

    /**
     * Sends a PING and reads up to its answer, adding every RST_STREAM and GOAWAY before it to {@code
     * seen}: whatever the gateway sent in answer to earlier frames has been read.
     */
    private static void syncWithPing(H2Wire wire, List<H2Wire.Frame> seen) throws IOException {
        wire.ping(0x5EEDL);
        wire.flush();
        for (H2Wire.Frame f = wire.read().orElseThrow(); ; f = wire.read().orElseThrow()) {
            if (f.type() == H2Wire.PING && (f.flags() & 0x1) != 0) {
                return;
            }
            if (f.type() == H2Wire.RST_STREAM || f.type() == H2Wire.GOAWAY) {
                seen.add(f);
            }
        }
    }
}
