package dev.sluice.tck;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * HTTP/2 streams the client gets wrong, in raw frames on h2c ({@link H2Wire}): a malformed request
 * (RFC 9113 section 8.1.1) and a frame its stream's state forbids (sections 5.1, 6.9, 8.1) end that
 * stream with RST_STREAM of the error's own code (or the connection with GOAWAY of it, which the RFC
 * allows for any stream error); a malformed request never reaches the upstream; nothing of the stream
 * follows the gateway's RST_STREAM; and the connection serves on. Also: the names an HTTP/2 library
 * adds when it turns a stream into a request ({@code x-http2-*}) never reach the upstream.
 */
public abstract class Http2StreamStateContract extends ContractFixture {

    private static final long PING_DATA = 0x736c7569636521L;

    /** RFC 9113 section 8.3.1: a request without {@code :method}, {@code :scheme} or {@code :path}. */
    @ParameterizedTest
    @ValueSource(strings = {":method", ":scheme", ":path"})
    void aRequestWithoutAPseudoHeaderIsResetAndNotForwarded(String missing) throws Exception {
        try (RecordingUpstream recording = RecordingUpstream.start();
                TestGateway gw = gateway()
                        .upstream("recording", recording.url())
                        .route("all", on("/**"), proxy("recording"))
                        .start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            String[] fields = {":method", "GET", ":scheme", "http", ":path", "/malformed", ":authority", gw.authority()
            };
            String[] kept = new String[fields.length - 2];
            for (int i = 0, k = 0; i < fields.length; i += 2) {
                if (!fields[i].equals(missing)) {
                    kept[k++] = fields[i];
                    kept[k++] = fields[i + 1];
                }
            }
            wire.headers(1, true, kept);
            wire.flush();
            assertThat(errorOn(wire, 1))
                    .as("the error for a head without %s", missing)
                    .isEqualTo(H2Wire.PROTOCOL_ERROR);
            assertThat(recording.awaitHead(Duration.ofMillis(300)))
                    .as("a head without %s reaches no upstream", missing)
                    .isFalse();
            assertServesOn(gw);
        }
    }

    /** RFC 9113 section 8.1: a second header block that does not end the stream. */
    @Test
    void aSecondHeaderBlockWithoutEndStreamIsAProtocolError() throws Exception {
        try (TestGateway gw = gateway().route("all", on("/**"), proxy(APP)).start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            wire.post(1, gw.authority(), "/echo", 4);
            wire.headers(1, false, "x-late", "1");
            wire.flush();
            assertThat(errorOn(wire, 1)).isEqualTo(H2Wire.PROTOCOL_ERROR);
        }
    }

    /** RFC 9113 section 8.1.2.1 (8.3 in 9113's numbering): no pseudo-header in trailers. */
    @Test
    void aPseudoHeaderInTrailersIsAProtocolError() throws Exception {
        try (TestGateway gw = gateway().route("all", on("/**"), proxy(APP)).start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            wire.post(1, gw.authority(), "/echo", 4);
            wire.data(1, "abcd".getBytes(StandardCharsets.US_ASCII), false);
            wire.headers(1, true, ":method", "POST", "x-trailer", "1");
            wire.flush();
            assertThat(errorOn(wire, 1)).isEqualTo(H2Wire.PROTOCOL_ERROR);
        }
    }

    /** RFC 9113 section 8.1.1: DATA that does not add up to the request's content-length. */
    @Test
    void dataPastTheContentLengthIsAProtocolError() throws Exception {
        try (RecordingUpstream recording = RecordingUpstream.start();
                TestGateway gw = gateway()
                        .upstream("recording", recording.url())
                        .route("all", on("/**"), proxy("recording"))
                        .start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            wire.post(1, gw.authority(), "/short", 1);
            wire.data(1, "abcd".getBytes(StandardCharsets.US_ASCII), true);
            wire.flush();
            assertThat(errorOn(wire, 1)).isEqualTo(H2Wire.PROTOCOL_ERROR);
            assertServesOn(gw);
        }
    }

    /** RFC 9113 section 5.1, half-closed (remote): a header block after the client ended its stream. */
    @Test
    void aHeaderBlockOnAStreamTheClientEndedIsStreamClosed() throws Exception {
        try (TestGateway gw = gateway().route("all", on("/**"), proxy(APP)).start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            // the upstream holds its answer (a rendezvous of two that one request never completes)
            wire.get(1, gw.authority(), "/rendezvous/half-closed/2");
            wire.get(1, gw.authority(), "/rendezvous/half-closed/2");
            wire.flush();
            assertThat(errorOn(wire, 1)).isEqualTo(H2Wire.STREAM_CLOSED);
        }
    }

    /**
     * RFC 9113 section 5.1, closed: a header block on a stream the client ended and the gateway
     * answered is a connection error STREAM_CLOSED (GOAWAY).
     */
    @Test
    void aHeaderBlockOnAnAnsweredStreamClosesTheConnection() throws Exception {
        try (TestGateway gw = gateway().route("all", on("/**"), proxy(APP)).start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            wire.get(1, gw.authority(), "/json/2");
            wire.flush();
            H2Wire.Frame frame = wire.readUntil(H2Wire.HEADERS).orElseThrow();
            while (!frame.endsStream()) {
                frame = wire.read().orElseThrow();
            }
            wire.get(1, gw.authority(), "/json/2");
            wire.flush();
            assertThat(wire.readUntil(H2Wire.GOAWAY)
                            .orElseThrow(() -> new AssertionError("no GOAWAY"))
                            .errorCode())
                    .isEqualTo(H2Wire.STREAM_CLOSED);
        }
    }

    /**
     * RFC 9113 section 5.1.1: a stream id lower than one the client opened already (the skipped
     * one is closed) is a connection error PROTOCOL_ERROR (GOAWAY).
     */
    @Test
    void aStreamIdBelowAnOpenedOneClosesTheConnection() throws Exception {
        try (TestGateway gw = gateway().route("all", on("/**"), proxy(APP)).start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            wire.get(5, gw.authority(), "/json/2");
            wire.get(3, gw.authority(), "/json/2");
            wire.flush();
            assertThat(wire.readUntil(H2Wire.GOAWAY)
                            .orElseThrow(() -> new AssertionError("no GOAWAY"))
                            .errorCode())
                    .isEqualTo(H2Wire.PROTOCOL_ERROR);
        }
    }

    /** RFC 9113 section 6.9: a WINDOW_UPDATE of 0 on a stream. */
    @Test
    void aStreamWindowUpdateOfZeroIsAProtocolError() throws Exception {
        try (TestGateway gw = gateway().route("all", on("/**"), proxy(APP)).start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            wire.post(1, gw.authority(), "/echo", 4);
            wire.windowUpdate(1, 0);
            wire.flush();
            assertThat(errorOn(wire, 1)).isEqualTo(H2Wire.PROTOCOL_ERROR);
        }
    }

    /** RFC 9113 section 6.9.1: a stream's window past 2^31-1. */
    @Test
    void aStreamWindowPastTheMaximumIsAFlowControlError() throws Exception {
        try (TestGateway gw = gateway().route("all", on("/**"), proxy(APP)).start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            wire.post(1, gw.authority(), "/echo", 4);
            wire.windowUpdate(1, 0x7FFFFFFFL);
            wire.windowUpdate(1, 0x7FFFFFFFL);
            wire.flush();
            assertThat(errorOn(wire, 1)).isEqualTo(H2Wire.FLOW_CONTROL_ERROR);
        }
    }

    /** Netty's x-http2-scheme, x-http2-stream-id and the like describe the client's hop: never forwarded. */
    @Test
    void noHttp2ConversionHeaderReachesTheUpstream() throws Exception {
        try (RecordingUpstream recording = RecordingUpstream.start();
                TestGateway gw = gateway()
                        .upstream("recording", recording.url())
                        .route("all", on("/**"), proxy("recording"))
                        .start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            wire.get(1, gw.authority(), "/over-h2");
            wire.flush();
            assertThat(wire.readUntil(H2Wire.HEADERS).orElseThrow().status()).isEqualTo(200);
            RecordingUpstream.Received received = recording.next(Duration.ofSeconds(5));
            assertThat(received).isNotNull();
            assertThat(received.head().toLowerCase(java.util.Locale.ROOT)).doesNotContain("x-http2-");
        }
    }

    /**
     * The error that ended {@code stream}: its RST_STREAM's code, after which a PING is answered with
     * nothing more of the stream between (no DATA after the gateway's RST_STREAM); or the GOAWAY's code
     * when the server ended the connection instead. Fails when neither comes.
     */
    private static long errorOn(H2Wire wire, int stream) throws Exception {
        for (Optional<H2Wire.Frame> f = wire.read(); f.isPresent(); f = wire.read()) {
            H2Wire.Frame frame = f.get();
            if (frame.type() == H2Wire.GOAWAY) {
                return frame.errorCode();
            }
            if (frame.type() == H2Wire.RST_STREAM && frame.stream() == stream) {
                wire.ping(PING_DATA);
                wire.flush();
                for (Optional<H2Wire.Frame> g = wire.read(); g.isPresent(); g = wire.read()) {
                    H2Wire.Frame after = g.get();
                    if (after.type() == H2Wire.PING && (after.flags() & 0x1) != 0) {
                        return frame.resetCode();
                    }
                    assertThat(after.stream())
                            .as("a frame of type %d after the RST_STREAM of stream %d", after.type(), stream)
                            .isNotEqualTo(stream);
                }
                return frame.resetCode();
            }
        }
        throw new AssertionError("the connection closed without an error for stream " + stream);
    }

    /** A new connection is served. */
    private static void assertServesOn(TestGateway gw) throws Exception {
        try (H2Wire wire = H2Wire.connect(gw.port())) {
            wire.get(1, gw.authority(), "/after");
            wire.flush();
            assertThat(wire.readUntil(H2Wire.HEADERS).orElseThrow().status()).isEqualTo(200);
        }
    }
}
