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
                TestGateway gw = proxyingAllTo(recording).start();
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
                TestGateway gw = proxyingAllTo(recording).start();
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
            // the RFC's code is STREAM_CLOSED; Jetty ends the connection with PROTOCOL_ERROR instead
            // (a connection error, which h2spec 5.1/6 accepts too; ENGINE-CONTRACT.md lists it)
            assertThat(errorOn(wire, 1)).isIn(H2Wire.STREAM_CLOSED, H2Wire.PROTOCOL_ERROR);
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
                    .isIn(H2Wire.STREAM_CLOSED, H2Wire.PROTOCOL_ERROR); // Jetty: PROTOCOL_ERROR while it still
            // holds the stream it just ended (a race with its own cleanup), a connection error either way
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
            // section 5.1.1 names PROTOCOL_ERROR; the skipped stream is closed (section 5.1), whose
            // connection error is STREAM_CLOSED, which Jetty sends: both are the RFC's
            assertThat(wire.readUntil(H2Wire.GOAWAY)
                            .orElseThrow(() -> new AssertionError("no GOAWAY"))
                            .errorCode())
                    .isIn(H2Wire.PROTOCOL_ERROR, H2Wire.STREAM_CLOSED);
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
                TestGateway gw = proxyingAllTo(recording).start();
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
     * nothing of the stream between but resets (no DATA or HEADERS after the gateway's RST_STREAM); or
     * the GOAWAY's code when the server ended the connection instead. A CANCEL reset is not the error:
     * Jetty cancels the stream's exchange as it fails it and sends the protocol's code right after
     * (docs/ENGINE-CONTRACT.md, HTTP/2), so the frames that follow it within a second are read for that
     * code; a CANCEL alone is returned as CANCEL. Fails when neither comes.
     */
    private static long errorOn(H2Wire wire, int stream) throws Exception {
        boolean cancelled = false;
        for (Optional<H2Wire.Frame> f = read(wire, cancelled); f.isPresent(); f = read(wire, cancelled)) {
            H2Wire.Frame frame = f.get();
            if (frame.type() == H2Wire.GOAWAY) {
                return frame.errorCode();
            }
            if (frame.type() == H2Wire.RST_STREAM && frame.stream() == stream) {
                if (frame.resetCode() == H2Wire.CANCEL && !cancelled) {
                    cancelled = true;
                    continue;
                }
                wire.timeout(Duration.ofSeconds(20));
                wire.ping(PING_DATA);
                wire.flush();
                for (Optional<H2Wire.Frame> g = wire.read(); g.isPresent(); g = wire.read()) {
                    H2Wire.Frame after = g.get();
                    if (after.type() == H2Wire.PING && (after.flags() & 0x1) != 0) {
                        return frame.resetCode();
                    }
                    if (after.type() != H2Wire.RST_STREAM) {
                        assertThat(after.stream())
                                .as("a frame of type %d after the RST_STREAM of stream %d", after.type(), stream)
                                .isNotEqualTo(stream);
                    }
                }
                return frame.resetCode();
            }
            assertThat(!cancelled || frame.stream() != stream || frame.type() == H2Wire.WINDOW_UPDATE)
                    .as("a frame of type %d after the CANCEL of stream %d", frame.type(), stream)
                    .isTrue();
        }
        if (cancelled) {
            return H2Wire.CANCEL;
        }
        throw new AssertionError("the connection closed without an error for stream " + stream);
    }

    /** The next frame; after a CANCEL, none when a second passes without one. */
    private static Optional<H2Wire.Frame> read(H2Wire wire, boolean cancelled) throws Exception {
        if (!cancelled) {
            return wire.read();
        }
        wire.timeout(Duration.ofSeconds(1));
        try {
            return wire.read();
        } catch (java.net.SocketTimeoutException quiet) {
            return Optional.empty();
        }
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
