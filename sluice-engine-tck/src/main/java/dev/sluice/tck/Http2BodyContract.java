package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.FilterConfig;
import dev.sluice.config.TlsConfig;
import dev.sluice.config.TlsConfig.CertificateFiles;
import dev.sluice.tck.TestCertificates.Issued;
import dev.sluice.tck.TestCertificates.KeyType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the body of an HTTP/2 request reaches an HTTP/1.1 upstream ({@code docs/ENGINE-CONTRACT.md},
 * "HTTP/2"). END_STREAM frames an h2 body, so a request may stream one without a {@code
 * content-length} (an upload from a pipe, every gRPC client): the upstream gets it in chunked coding,
 * byte for byte, over h2c by prior knowledge (frames written by hand, {@link H2Wire}) and over TLS
 * (the JDK's client, whose {@code ofInputStream} body declares no length). A request whose only DATA
 * is an empty final frame has no body, and a streamed body is held to the route's limit.
 */
public abstract class Http2BodyContract extends ContractFixture {

    private static final Duration BOUND = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private final TestCertificates ca = TestCertificates.authority("sluice h2 body test CA");

    /** A stream's answer as read frame by frame: its status, body, and whether it was reset. */
    private record Answer(int status, String contentType, byte[] body, boolean reset) {}

    @Test
    void aStreamedUploadWithoutContentLengthReachesTheUpstreamWholeOverH2c() throws Exception {
        GeneratedBody body = GeneratedBody.binary((4 << 20) + 12_345); // many windows, an odd last frame
        try (TestGateway gw = gateway().route("all", on("/**"), proxy(APP)).start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            wire.openRequest(1, "POST", gw.authority(), "/inspect/streamed");
            Answer streamed = answer(wire, 1, wire.upload(1, body.stream()));
            assertThat(streamed.status()).as("status: %s", text(streamed)).isEqualTo(200);
            Map<String, Object> seen = Json.object(streamed.body());
            assertThat(seen.get("method")).isEqualTo("POST");
            assertThat(seen.get("framing"))
                    .as("a body of unknown length goes chunked")
                    .isEqualTo("chunked");
            assertThat(((Number) seen.get("length")).longValue()).isEqualTo(body.length());
            assertThat(seen.get("sha256")).isEqualTo(body.sha256());

            GeneratedBody declared = GeneratedBody.binary(100_000);
            wire.post(3, gw.authority(), "/inspect/declared", declared.length());
            Answer sized = answer(wire, 3, wire.upload(3, declared.stream()));
            Map<String, Object> seenSized = Json.object(sized.body());
            assertThat(seenSized.get("framing"))
                    .as("a declared content-length is kept")
                    .isEqualTo("length");
            assertThat(((Number) seenSized.get("length")).longValue()).isEqualTo(declared.length());
            assertThat(seenSized.get("sha256")).isEqualTo(declared.sha256());
        }
    }

    @Test
    void aStreamedUploadWithoutContentLengthReachesTheUpstreamWholeOverTls() throws Exception {
        GeneratedBody body = GeneratedBody.binary(3 << 20);
        try (TestGateway gw =
                        gateway().tls(tls()).route("all", on("/**"), proxy(APP)).start();
                HttpClient client = HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_2)
                        .sslContext(ca.clientContext(Optional.empty()))
                        .connectTimeout(Duration.ofSeconds(5))
                        .build()) {
            HttpResponse<byte[]> response = client.send(
                    HttpRequest.newBuilder(gw.httpsUri("/inspect/upload"))
                            .timeout(BOUND)
                            .POST(HttpRequest.BodyPublishers.ofInputStream(body::stream))
                            .build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(response.version()).as("ALPN chose h2").isEqualTo(HttpClient.Version.HTTP_2);
            Map<String, Object> seen = inspected(response);
            assertThat(seen.get("framing")).isEqualTo("chunked");
            assertThat(((Number) seen.get("length")).longValue()).isEqualTo(body.length());
            assertThat(seen.get("sha256")).isEqualTo(body.sha256());
        }
    }

    /**
     * A GET whose HEADERS leave the stream open and whose only DATA frame is empty and ends it: a
     * request without a body, which the upstream gets as one (no chunked coding, no Content-Length).
     */
    @Test
    void aGetEndedByAnEmptyDataFrameHasNoBodyUpstream() throws Exception {
        try (TestGateway gw = gateway().route("all", on("/**"), proxy(APP)).start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            wire.openRequest(1, "GET", gw.authority(), "/inspect/get");
            wire.data(1, new byte[0], true);
            wire.flush();
            Answer answer = answer(wire, 1, List.of());
            assertThat(answer.status()).as("status: %s", text(answer)).isEqualTo(200);
            Map<String, Object> seen = Json.object(answer.body());
            assertThat(seen.get("method")).isEqualTo("GET");
            assertThat(seen.get("framing"))
                    .as("how the upstream's request was framed")
                    .isEqualTo("none");
            assertThat(((Number) seen.get("length")).longValue()).isZero();

            wire.get(3, gw.authority(), "/inspect/plain"); // END_STREAM on its HEADERS
            wire.flush();
            Map<String, Object> plain = Json.object(answer(wire, 3, List.of()).body());
            assertThat(plain.get("framing")).isEqualTo("none");
        }
    }

    /**
     * A streamed body past the route's limit is answered {@code 413} (or, once an answer has begun,
     * the stream is reset), and the upstream never receives it as a whole request.
     */
    @Test
    void aStreamedUploadPastTheRoutesLimitIs413AndNeverEndsUpstream() throws Exception {
        try (RecordingUpstream recording = RecordingUpstream.start();
                TestGateway gw = gateway()
                        .upstream("rec", recording.url())
                        .route("rec", on("/**"), proxy("rec"), new FilterConfig.MaxBody(100_000))
                        .start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            wire.openRequest(1, "POST", gw.authority(), "/too-big");
            Answer answer = answer(wire, 1, wire.upload(1, GeneratedBody.binary(1 << 20).stream()));
            assertThat(answer.reset())
                    .as("answered, not reset: %s", text(answer))
                    .isFalse();
            assertError(413, answer.contentType(), answer.body(), "content_too_large");

            wire.openRequest(3, "POST", gw.authority(), "/within");
            GeneratedBody within = GeneratedBody.binary(100_000);
            Answer ok = answer(wire, 3, wire.upload(3, within.stream()));
            assertThat(ok.status())
                    .as("a body at the limit, on the same connection")
                    .isEqualTo(200);
            // recorded before it was answered; the refused one, if its head got through at all, ended cut short
            assertThat(recording.received())
                    .filteredOn(received -> received.head().startsWith("POST /within HTTP/1.1"))
                    .singleElement()
                    .satisfies(received -> {
                        assertThat(received.whole()).isTrue();
                        assertThat(received.head()).containsIgnoringCase("transfer-encoding: chunked");
                    });
            assertThat(recording.received())
                    .filteredOn(received -> received.head().startsWith("POST /too-big "))
                    .as("the upstream never takes the refused body for whole")
                    .noneMatch(RecordingUpstream.Received::whole);
        }
    }

    private TlsConfig tls() {
        Issued server = ca.server(KeyType.EC, "gateway.test");
        return TlsConfig.of(new CertificateFiles(
                server.writeCertificate(dir.resolve("server.pem")), server.writeKey(dir.resolve("server-key.pem"))));
    }

    /** The answer on {@code stream}: from {@code early} (frames read during an upload), then the wire. */
    private static Answer answer(H2Wire wire, int stream, List<H2Wire.Frame> early) throws IOException {
        int status = 0;
        String type = null;
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        java.util.Iterator<H2Wire.Frame> pending = early.iterator();
        while (true) {
            H2Wire.Frame frame = pending.hasNext()
                    ? pending.next()
                    : wire.read().orElseThrow(() -> new AssertionError("closed before stream " + stream + " ended"));
            if (frame.type() == H2Wire.GOAWAY) {
                throw new AssertionError("GOAWAY before stream " + stream + " ended");
            }
            if (frame.stream() != stream) {
                continue;
            }
            if (frame.type() == H2Wire.RST_STREAM) {
                return new Answer(status, type, body.toByteArray(), true);
            }
            if (frame.type() == H2Wire.HEADERS && status == 0) {
                status = frame.status();
                type = frame.header("content-type");
            } else if (frame.type() == H2Wire.DATA) {
                body.write(frame.payload());
            }
            if (frame.endsStream()) {
                return new Answer(status, type, body.toByteArray(), false);
            }
        }
    }

    private static String text(Answer answer) {
        return answer.status() + " " + new String(answer.body(), java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * A head that leaves its framing to the first DATA frame ({@code RequestFraming.AT_FIRST_DATA}: no
     * content-length, END_STREAM not set), followed by nothing, is answered {@code 408
     * request_timeout} at {@code header-timeout} from the head, not at the idle timeout (Jetty's) or
     * never (Netty's): until its first DATA frame it is not known whether it has a body. Nothing
     * reaches the upstream, and the connection serves its next stream.
     */
    @Test
    void aHeadWhoseFirstDataNeverComesIs408AtTheHeaderTimeout() throws Exception {
        dev.sluice.config.ServerLimits limits = headerTimeout(Duration.ofMillis(800));
        try (RecordingUpstream recording = RecordingUpstream.start();
                TestGateway gw = gateway()
                        .limits(limits)
                        .upstream("recording", recording.url())
                        .route("rec", on("/rec/**"), proxy("recording"))
                        .route("all", on("/**"), proxy(APP))
                        .start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            wire.timeout(BOUND);
            long start = System.nanoTime();
            wire.openRequest(1, "POST", gw.authority(), "/rec/silent");
            wire.flush();
            Answer answer = answer(wire, 1, List.of());
            long waited = (System.nanoTime() - start) / 1_000_000;
            assertThat(answer.status()).as("status: %s", text(answer)).isEqualTo(408);
            assertThat(Json.object(answer.body()).get("error")).isEqualTo("request_timeout");
            assertThat(waited)
                    .as("answered at the header timeout (800 ms), not before nor at the idle timeout")
                    .isBetween(700L, 20_000L);

            wire.get(3, gw.authority(), "/json/3");
            wire.flush();
            assertThat(answer(wire, 3, List.of()).status())
                    .as("the connection serves on")
                    .isEqualTo(200);
            assertThat(recording.received()).as("what reached the upstream").isEmpty();
        }
    }

    /**
     * Only a route that reads the request body waits for the first DATA frame ({@code
     * FrontDoor.Enter.readsBody}): a composition's stream left open without DATA is answered by its
     * parts, even when they take longer than {@code header-timeout} (the reactive engine answered
     * {@code 408} at the header timeout on every route).
     */
    @Test
    void aCompositionsOpenStreamWaitsForNoDataFrame() throws Exception {
        dev.sluice.config.ServerLimits limits = headerTimeout(Duration.ofMillis(300));
        try (TestGateway gw = gateway()
                        .limits(limits)
                        .route("page", on("/page"), compose().part("slow", APP, "/json/10?delay=1200"))
                        .start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            wire.timeout(BOUND);
            long start = System.nanoTime();
            wire.openRequest(1, "GET", gw.authority(), "/page");
            wire.flush();
            Answer answer = answer(wire, 1, List.of());
            long waited = (System.nanoTime() - start) / 1_000_000;
            assertThat(answer.status()).as("status: %s", text(answer)).isEqualTo(200);
            assertThat(waited)
                    .as("answered once the part answered, past the header timeout")
                    .isGreaterThan(1000L);
        }
    }

    /** The default limits with {@code header-timeout} at {@code timeout} (and a long idle timeout). */
    private static dev.sluice.config.ServerLimits headerTimeout(Duration timeout) {
        dev.sluice.config.ServerLimits d = dev.sluice.config.ServerLimits.defaults();
        return new dev.sluice.config.ServerLimits(
                d.maxRequestLine(),
                d.maxHeaderBytes(),
                d.maxHeaders(),
                d.maxBody(),
                timeout,
                Duration.ofSeconds(60),
                d.maxConnections(),
                d.maxRequests());
    }
}
