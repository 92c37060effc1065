package dev.sluice.tck;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A client's request body that breaks its framing after the gateway began to stream it upstream: the
 * upstream must never see a request end the client did not send. The gateway aborts the upstream
 * exchange (its connection ends with the request incomplete) and answers the client 400, or closes.
 */
public abstract class RequestBodyContract extends ContractFixture {

    private static final String UP = "up";

    static Stream<Arguments> brokenChunkedBodies() {
        return Stream.of(
                Arguments.of("an invalid chunk size", "zz\r\nworld\r\n0\r\n\r\n"),
                Arguments.of("chunk data without its CRLF", "5\r\nworldXX0\r\n\r\n"),
                Arguments.of("a chunk longer than its size", "3\r\nworld\r\n0\r\n\r\n"),
                Arguments.of("a 100 KB chunk extension", "5;" + "a".repeat(100 * 1024) + "\r\nworld\r\n0\r\n\r\n"),
                Arguments.of("a negative chunk size", "-5\r\nworld\r\n0\r\n\r\n"),
                Arguments.of("a chunk size past 2^63", "1ffffffffffffffff\r\nworld\r\n0\r\n\r\n"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenChunkedBodies")
    void aBrokenChunkedBodyNeverReachesTheUpstreamAsAWholeRequest(String what, String brokenRest) throws Exception {
        try (RecordingUpstream recording = RecordingUpstream.start();
                TestGateway gw = gateway()
                        .upstream(UP, recording.url())
                        .route("up", on("/up/**"), proxy(UP).stripPrefix("/up"))
                        .start();
                Socket client = new Socket()) {
            client.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), gw.port()), 10_000);
            client.setSoTimeout(20_000);
            OutputStream out = client.getOutputStream();
            out.write(("POST /up/sink HTTP/1.1\r\nHost: " + gw.authority()
                            + "\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            assertThat(recording.awaitHead(Duration.ofSeconds(20)))
                    .as("the gateway began the upstream request before the body ended")
                    .isTrue();
            try {
                out.write(brokenRest.getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            } catch (IOException closedEarly) {
                // the gateway may close as soon as it sees the framing break
            }

            String answer = readUntilClosed(client.getInputStream());
            RecordingUpstream.Received upstreamSaw = recording.next(Duration.ofSeconds(20));
            assertThat(upstreamSaw)
                    .as("the upstream's request ended (its connection was aborted), %s", what)
                    .isNotNull();
            assertThat(upstreamSaw.whole())
                    .as("the upstream saw a whole request after %s: %s", what, upstreamSaw.bodyText())
                    .isFalse();
            assertThat(answer)
                    .as("the client is told its request was bad, or the connection just closes")
                    .satisfiesAnyOf(
                            a -> assertThat(a).isEmpty(),
                            a -> assertThat(a).startsWith("HTTP/1.1 400 ").contains("application/json"));
            assertThat(recording.received()).noneMatch(RecordingUpstream.Received::whole);
        }
    }

    /** Everything the gateway sends until it closes the connection (or a reset ends it). */
    private static String readUntilClosed(InputStream in) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                bytes.write(buffer, 0, n);
            }
        } catch (IOException reset) {
            // a reset ends it as well
        }
        return bytes.toString(StandardCharsets.ISO_8859_1);
    }
}
