package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ComposeTarget.Order;
import dev.sluice.config.Http2Settings;
import dev.sluice.config.ServerLimits;
import dev.sluice.config.TlsConfig;
import dev.sluice.config.TlsConfig.CertificateFiles;
import dev.sluice.tck.TestCertificates.Issued;
import dev.sluice.tck.TestCertificates.KeyType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTP/2 on the listener ({@code server.http2}) in every engine, with real clients on loopback: the
 * JDK's HttpClient (h2 through ALPN over TLS with a CA made in the test, h2c by upgrade) and curl (h2
 * over TLS, h2c by prior knowledge and by upgrade). Each stream is one HTTP/1.1 exchange with the
 * upstream; bodies stream both ways under flow control, a composition's parts leave as they arrive,
 * and one stream whose client stops reading holds up none of the others on its connection.
 */
public abstract class Http2Contract extends ContractFixture {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private final TestCertificates ca = TestCertificates.authority("sluice h2 test CA");

    private TlsConfig tls() {
        Issued server = ca.server(KeyType.EC, "gateway.test");
        return TlsConfig.of(new CertificateFiles(
                server.writeCertificate(dir.resolve("server.pem")), server.writeKey(dir.resolve("server-key.pem"))));
    }

    private HttpClient h2Client() {
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_2)
                .sslContext(ca.clientContext(Optional.empty()))
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    @Test
    void h2ChosenByAlpnIsTranslatedToHttp11AndStreamsARequestBodyLargerThanItsWindow() throws Exception {
        try (TestGateway gw =
                        gateway().tls(tls()).route("all", on("/**"), proxy(APP)).start();
                HttpClient client = h2Client()) {
            HttpResponse<byte[]> get = send(client, HttpRequest.newBuilder(gw.httpsUri("/inspect/h2?x=1")));
            assertThat(get.version()).as("ALPN chose h2").isEqualTo(HttpClient.Version.HTTP_2);
            Map<String, Object> seen = inspected(get);
            assertThat(seen.get("path")).isEqualTo("/inspect/h2");
            assertThat(seen.get("query")).isEqualTo("x=1");
            assertThat(headerValues(seen, "x-forwarded-proto")).containsExactly("https");
            assertThat(headerValues(seen, "x-forwarded-host"))
                    .as(":authority is the client's Host")
                    .containsExactly(gw.authority());

            // 3 MiB: many times the stream's 64 KiB window and the connection's 1 MiB one
            GeneratedBody body = GeneratedBody.binary(3 << 20);
            HttpResponse<byte[]> post = send(
                    client,
                    HttpRequest.newBuilder(gw.httpsUri("/inspect/upload"))
                            .POST(HttpRequest.BodyPublishers.ofByteArray(body.bytes())));
            assertThat(post.version()).isEqualTo(HttpClient.Version.HTTP_2);
            Map<String, Object> uploaded = inspected(post);
            assertThat(((Number) uploaded.get("length")).longValue()).isEqualTo(body.length());
            assertThat(uploaded.get("sha256")).isEqualTo(body.sha256());
        }
    }

    @Test
    void curlSpeaksH2OverTlsAndH2cByPriorKnowledgeAndByUpgrade() throws Exception {
        Path curl = Path.of("/usr/bin/curl");
        Assumptions.assumeTrue(Files.isExecutable(curl) && curlHasHttp2(curl), "curl with HTTP2 is not installed");
        Path caFile = ca.writeCertificate(dir.resolve("ca.pem"));
        try (TestGateway tls =
                        gateway().tls(tls()).route("all", on("/**"), proxy(APP)).start();
                TestGateway plain =
                        gateway().route("all", on("/**"), proxy(APP)).start()) {
            assertThat(curl(
                            curl,
                            "--http2",
                            "--cacert",
                            caFile.toString(),
                            tls.httpsUri("/json/20").toString()))
                    .isEqualTo("200 2 " + json(20));
            assertThat(curl(
                            curl,
                            "--http2-prior-knowledge",
                            plain.uri("/json/21").toString()))
                    .isEqualTo("200 2 " + json(21));
            assertThat(curl(curl, "--http2", plain.uri("/json/22").toString()))
                    .as("HTTP/1.1 Upgrade: h2c")
                    .isEqualTo("200 2 " + json(22));
        }
    }

    @Test
    void theJdkClientUpgradesAPlainConnectionToH2c() throws Exception {
        try (TestGateway gw = gateway().route("all", on("/**"), proxy(APP)).start();
                HttpClient client = h2Client()) {
            for (int i = 0; i < 3; i++) { // the first by Upgrade: h2c, the others as streams of that connection
                HttpResponse<byte[]> response = send(client, HttpRequest.newBuilder(gw.uri("/json/7")));
                assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_2);
                assertThat(response.body()).isEqualTo(GeneratedBody.json(7).bytes());
            }
        }
    }

    /**
     * The slow part answers only when the test, having read the fast part through the gateway, calls
     * it: a gateway that held the composition back until every part was in would never let that
     * happen, and the slow part would answer {@code "met":false} after its 5 s.
     */
    @Test
    void aCompositionStreamsItsPartsAsDataFramesAsTheyArrive() throws Exception {
        String key = "h2-" + Long.toString(System.nanoTime(), 36);
        try (TestGateway gw = gateway()
                        .tls(tls())
                        .route(
                                "page",
                                on("/page"),
                                compose()
                                        .order(Order.ARRIVAL)
                                        .part("slow", APP, "/rendezvous/" + key + "/2")
                                        .part("fast", APP, "/json/40"))
                        .start();
                HttpClient client = h2Client()) {
            HttpResponse<InputStream> response = client.send(
                    HttpRequest.newBuilder(gw.httpsUri("/page"))
                            .timeout(TIMEOUT)
                            .build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_2);
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            try (InputStream in = response.body()) {
                String fast = json(40);
                byte[] buffer = new byte[4096];
                while (!received.toString(StandardCharsets.UTF_8).contains(fast)) {
                    int n = in.read(buffer);
                    assertThat(n)
                            .as("the fast part arrives before the body ends")
                            .isPositive();
                    received.write(buffer, 0, n);
                }
                try (HttpClient direct = HttpClient.newHttpClient()) { // the slow part's other half
                    HttpResponse<String> met = direct.send(
                            HttpRequest.newBuilder(URI.create(upstream.url() + "/rendezvous/" + key + "/2"))
                                    .timeout(TIMEOUT)
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
                    assertThat(met.body()).contains("\"met\":true");
                }
                received.write(in.readAllBytes());
            }
            String page = received.toString(StandardCharsets.UTF_8);
            assertThat(page).contains("\"met\":true");
            assertThat(Json.object(received.toByteArray())).containsKeys("slow", "fast");
        }
    }

    /**
     * Fifty compositions at once as streams of one h2c connection (the JDK client's first request
     * upgrades it, the others share it), each byte-exact. On h2 the frame writer slices what a
     * composition writes into DATA frames and the flow controller queues them, so its buffers are
     * written later and in pieces; a buffer that gathers a part's key and its first bytes (a composite
     * without one memory address) was written from a wrong address by the io_uring transport once
     * sliced (the write failed with EFAULT and the connection with it), where NIO and TLS copied it.
     */
    @Test
    void fiftyCompositionsAtOnceOnOneH2cConnectionAreEachWhole() throws Exception {
        try (TestGateway gw = gateway()
                        .route(
                                "page",
                                on("/page"),
                                compose()
                                        .order(Order.DECLARED) // one body, byte for byte
                                        .part("a", APP, "/json/3000")
                                        .part("b", APP, "/json/20000")
                                        .part("c", APP, "/json/700"))
                        .start();
                HttpClient client = h2Client()) {
            HttpResponse<byte[]> first = send(client, HttpRequest.newBuilder(gw.uri("/page")));
            assertThat(first.version()).isEqualTo(HttpClient.Version.HTTP_2);
            List<CompletableFuture<HttpResponse<byte[]>>> pages = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                pages.add(client.sendAsync(
                        HttpRequest.newBuilder(gw.uri("/page")).timeout(TIMEOUT).build(),
                        HttpResponse.BodyHandlers.ofByteArray()));
            }
            for (CompletableFuture<HttpResponse<byte[]>> page : pages) {
                HttpResponse<byte[]> response = page.get(60, TimeUnit.SECONDS);
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_2);
                assertThat(Json.object(response.body())).containsOnlyKeys("a", "b", "c", "_meta");
                assertThat(withoutMeta(response.body()))
                        .as("the parts, byte for byte")
                        .isEqualTo(withoutMeta(first.body()));
            }
            String page = new String(first.body(), StandardCharsets.UTF_8);
            assertThat(page).contains(json(3000)).contains(json(20000)).contains(json(700));
            assertThat(Json.object(first.body())).containsOnlyKeys("a", "b", "c", "_meta");
        }
    }

    /** A composed body up to its {@code _meta} (whose latencies differ from one response to the next). */
    private static String withoutMeta(byte[] body) {
        String text = new String(body, StandardCharsets.UTF_8);
        int meta = text.indexOf(",\"_meta\":");
        assertThat(meta).as("_meta in %s", text).isPositive();
        return text.substring(0, meta);
    }

    /**
     * One connection, 100 streams (the advertised maximum): one asks for 24 MiB and reads none of it,
     * which fills its stream's window and leaves it stalled, and the other 99 are answered all the same;
     * then the stalled one is read to its end, whole.
     */
    @Test
    void aHundredStreamsOnOneConnectionWithOneStalledReaderAllComplete() throws Exception {
        long big = 24L << 20; // beyond the JDK client's own 16 MiB stream window: the gateway must wait
        try (TestGateway gw =
                        gateway().tls(tls()).route("all", on("/**"), proxy(APP)).start();
                HttpClient client = h2Client()) {
            // one stream first, so that every later one shares its connection
            assertThat(send(client, HttpRequest.newBuilder(gw.httpsUri("/json/2")))
                            .version())
                    .isEqualTo(HttpClient.Version.HTTP_2);
            HttpResponse<InputStream> stalled = client.send(
                    HttpRequest.newBuilder(gw.httpsUri("/bytes/" + big)).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            List<CompletableFuture<HttpResponse<byte[]>>> others = new ArrayList<>();
            for (int i = 0; i < 99; i++) {
                others.add(client.sendAsync(
                        HttpRequest.newBuilder(gw.httpsUri("/json/" + (1000 + i)))
                                .timeout(TIMEOUT)
                                .build(),
                        HttpResponse.BodyHandlers.ofByteArray()));
            }
            for (int i = 0; i < others.size(); i++) {
                HttpResponse<byte[]> response = others.get(i).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_2);
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.body())
                        .isEqualTo(GeneratedBody.json(1000 + i).bytes());
            }
            MessageDigest digest = GeneratedBody.sha256Digest();
            long length = 0;
            try (InputStream in = stalled.body()) {
                byte[] buffer = new byte[64 * 1024];
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    digest.update(buffer, 0, n);
                    length += n;
                }
            }
            assertThat(length).isEqualTo(big);
            assertThat(HexFormat.of().formatHex(digest.digest()))
                    .isEqualTo(GeneratedBody.binary(big).sha256());
        }
    }

    @Test
    void aStreamsHeadIsHeldToTheListenersHeaderLimits() throws Exception {
        ServerLimits d = ServerLimits.defaults();
        ServerLimits limits = new ServerLimits(
                d.maxRequestLine(),
                d.maxHeaderBytes(),
                20,
                10_000,
                d.headerTimeout(),
                d.idleTimeout(),
                d.maxConnections(),
                d.maxRequests());
        try (TestGateway gw = gateway()
                        .tls(tls())
                        .limits(limits)
                        .route("all", on("/**"), proxy(APP))
                        .start();
                HttpClient client = h2Client()) {
            HttpRequest.Builder many = HttpRequest.newBuilder(gw.httpsUri("/json/2"));
            for (int i = 0; i < 30; i++) {
                many.header("x-field-" + i, "v");
            }
            HttpResponse<byte[]> tooMany = send(client, many);
            assertThat(tooMany.version()).isEqualTo(HttpClient.Version.HTTP_2);
            assertError(
                    431,
                    tooMany.headers().firstValue("content-type").orElse(null),
                    tooMany.body(),
                    "headers_too_large");

            HttpResponse<byte[]> after = send(client, HttpRequest.newBuilder(gw.httpsUri("/json/3")));
            assertThat(after.statusCode())
                    .as("the connection serves on after a refused stream")
                    .isEqualTo(200);
        }
    }

    /**
     * A stream that declares a body over the limit is answered 413 from its head, before any DATA. The
     * server then resets the stream whose body it will not read (RFC 9113 §8.1); that RST_STREAM follows
     * the whole answer on the wire, which is why this is read frame by frame: a client that takes the
     * reset as the stream's end (the JDK's does, when the reset is processed before the answer's
     * completion is handed over) would make this a race.
     */
    @Test
    void aStreamThatDeclaresABodyOverTheLimitIsAnswered413BeforeItsBody() throws Exception {
        ServerLimits d = ServerLimits.defaults();
        ServerLimits limits = new ServerLimits(
                d.maxRequestLine(),
                d.maxHeaderBytes(),
                d.maxHeaders(),
                10_000,
                d.headerTimeout(),
                d.idleTimeout(),
                d.maxConnections(),
                d.maxRequests(),
                d.websocketIdleTimeout());
        try (TestGateway gw = gateway()
                        .limits(limits)
                        .route("all", on("/**"), proxy(APP))
                        .start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            wire.post(1, gw.authority(), "/inspect/big", 50_000);
            wire.flush();
            H2Wire.Frame head = wire.readUntil(H2Wire.HEADERS).orElseThrow();
            assertThat(head.stream()).isEqualTo(1);
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            H2Wire.Frame frame = head;
            while (!frame.endsStream()) {
                frame = wire.read().orElseThrow(() -> new AssertionError("closed before the 413's end"));
                assertThat(frame.type())
                        .as("the answer ends before anything resets stream 1")
                        .isNotEqualTo(H2Wire.RST_STREAM);
                if (frame.type() == H2Wire.DATA && frame.stream() == 1) {
                    body.write(frame.payload());
                }
            }
            assertError(413, head.header("content-type"), body.toByteArray(), "content_too_large");
            assertThat(head.status()).isEqualTo(413);

            wire.get(3, gw.authority(), "/json/3");
            wire.flush();
            H2Wire.Frame next = wire.readUntil(H2Wire.HEADERS).orElseThrow();
            while (next.stream() != 3) {
                next = wire.readUntil(H2Wire.HEADERS).orElseThrow();
            }
            assertThat(next.status())
                    .as("the connection serves on after the refused stream")
                    .isEqualTo(200);
        }
    }

    /**
     * h2c by upgrade is taken on a connection's first request only (RFC 9113 deprecates it; a server
     * may ignore an Upgrade header, RFC 9110 section 7.8): a connection that began in HTTP/1.1 stays
     * so, and a later request asking to upgrade is answered in HTTP/1.1 like any other.
     */
    @Test
    void aLaterRequestAskingForH2cIsAnsweredInHttp11() throws Exception {
        try (TestGateway gw = gateway().route("all", on("/**"), proxy(APP)).start()) {
            String requests = "GET /json/11 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    + "GET /json/12 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                    + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n";
            WireClient.RawExchange exchange = WireClient.to(gw.port())
                    .timeout(Duration.ofSeconds(2)) // the wait for a close that does not come
                    .sendRaw(requests.getBytes(StandardCharsets.US_ASCII), 2);
            assertThat(exchange.responses()).extracting(WireResponse::status).containsExactly(200, 200);
            assertThat(exchange.responses().get(0).body())
                    .isEqualTo(GeneratedBody.json(11).bytes());
            assertThat(exchange.responses().get(1).body())
                    .isEqualTo(GeneratedBody.json(12).bytes());
            assertThat(exchange.closed())
                    .as("the connection serves on in HTTP/1.1")
                    .isFalse();
        }
    }

    @Test
    void withHttp2OffTheListenerSpeaksHttp11Only() throws Exception {
        try (TestGateway gw = gateway()
                        .tls(tls())
                        .http2(Http2Settings.disabled())
                        .route("all", on("/**"), proxy(APP))
                        .start();
                HttpClient client = h2Client()) {
            HttpResponse<byte[]> response = send(client, HttpRequest.newBuilder(gw.httpsUri("/json/5")));
            assertThat(response.version()).as("ALPN offers no h2").isEqualTo(HttpClient.Version.HTTP_1_1);
            assertThat(response.body()).isEqualTo(GeneratedBody.json(5).bytes());
        }
        try (TestGateway gw = gateway()
                        .http2(Http2Settings.disabled())
                        .route("all", on("/**"), proxy(APP))
                        .start();
                HttpClient client = h2Client()) {
            HttpResponse<byte[]> response = send(client, HttpRequest.newBuilder(gw.uri("/json/6")));
            assertThat(response.version()).as("Upgrade: h2c is not taken").isEqualTo(HttpClient.Version.HTTP_1_1);
            assertThat(response.body()).isEqualTo(GeneratedBody.json(6).bytes());
        }
    }

    /** The bounds a client learns from the server's first SETTINGS frame, on an h2c connection. */
    @Test
    void theServersSettingsBoundStreamsAndTheStreamWindow() throws Exception {
        try (TestGateway gw = gateway().route("all", on("/**"), proxy(APP)).start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            H2Wire.Frame settings = wire.read().orElseThrow();
            assertThat(settings.type())
                    .as("the server's preface is a SETTINGS frame")
                    .isEqualTo(H2Wire.SETTINGS);
            assertThat(settings.settings())
                    .containsEntry(H2Wire.SETTINGS_MAX_CONCURRENT_STREAMS, 100L)
                    .containsEntry(H2Wire.SETTINGS_INITIAL_WINDOW_SIZE, 65_536L);
            ServerLimits limits = ServerLimits.defaults();
            long headerList = settings.settings().getOrDefault(H2Wire.SETTINGS_MAX_HEADER_LIST_SIZE, -1L);
            assertThat(headerList)
                    .as("the header list bound, when announced, is the HTTP/1.1 head's")
                    .isIn(-1L, (long) limits.maxHeaderBytes() + limits.maxRequestLine());
            assertThat(settings.settings().getOrDefault(H2Wire.SETTINGS_ENABLE_CONNECT_PROTOCOL, 0L))
                    .as("no extended CONNECT offered (RFC 8441): the gateway refuses CONNECT on h2, and a"
                            + " WebSocket client that saw it offered would not fall back to HTTP/1.1's Upgrade")
                    .isZero();
            wire.get(1, gw.authority(), "/json/2");
            wire.flush();
            assertThat(wire.readUntil(H2Wire.HEADERS).orElseThrow().stream()).isEqualTo(1);
        }
    }

    /**
     * The rapid-reset attack (CVE-2023-44487): streams opened and reset at once, so the server starts
     * work the client never waits for. Up to 200 resets in 30 s a connection serves on; beyond, it is
     * told to go away (ENHANCE_YOUR_CALM) and closed. The flood is one reset past the bound and no
     * more, so the server has read all of it when it closes and its GOAWAY is always there to read.
     * Its streams ask an upstream that never answers (a listening socket nobody accepts on), so each
     * is still open when its reset comes: a reset of a stream the gateway had already answered and
     * closed is ignored (RFC 9113 section 5.1), and counting it or not would depend on how the
     * flood's bytes were split into reads.
     */
    @Test
    void aConnectionThatResetsStreamsFasterThanAllowedIsClosed() throws Exception {
        int allowed = Http2Settings.defaults().maxResetsPerWindow();
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                TestGateway gw = gateway()
                        .upstream("silent", URI.create("http://127.0.0.1:" + silent.getLocalPort()))
                        .route("app", on("/app/**"), proxy(APP))
                        .route("held", on("/held/**"), proxy("silent"))
                        .start()) {
            try (H2Wire calm = H2Wire.connect(gw.port())) {
                for (int i = 0; i < 50; i++) {
                    calm.get(1 + 2 * i, gw.authority(), "/elsewhere");
                    calm.reset(1 + 2 * i);
                }
                calm.get(101, gw.authority(), "/elsewhere");
                calm.flush();
                Optional<H2Wire.Frame> answer = calm.readUntil(H2Wire.HEADERS);
                while (answer.isPresent() && answer.get().stream() != 101) { // reset ones may be answered too
                    answer = calm.readUntil(H2Wire.HEADERS);
                }
                assertThat(answer).as("50 resets: the connection serves on").isPresent();
            }
            try (H2Wire flood = H2Wire.connect(gw.port())) {
                try {
                    for (int i = 0; i <= allowed; i++) {
                        flood.get(1 + 2 * i, gw.authority(), "/held/" + i);
                        flood.reset(1 + 2 * i);
                    }
                    flood.flush();
                } catch (IOException closedWhileWriting) {
                    // the server may close before the flood is all written: that is the defence
                }
                Optional<H2Wire.Frame> goAway = flood.readUntil(H2Wire.GOAWAY);
                assertThat(goAway).as("a GOAWAY after %d resets", allowed + 1).isPresent();
                assertThat(goAway.get().errorCode()).as("ENHANCE_YOUR_CALM").isEqualTo(0xBL);
                while (flood.read().isPresent()) { // a connection left open times out here and fails
                }
            }
        }
    }

    /**
     * The CONTINUATION flood (CVE-2024-27316 and its kin): a HEADERS frame without END_HEADERS, then
     * CONTINUATION frames that never end the block, each with 16,000 bytes of header fields. The server
     * must give up on the block by the time it is twice the listener's header bound ({@code
     * max-header-bytes} + {@code max-request-line}, the SETTINGS_MAX_HEADER_LIST_SIZE it announces):
     * the client writes that much and no more, and the connection must then close (GOAWAY {@code
     * PROTOCOL_ERROR}), not wait for an idle timeout; nothing reaches the upstream and a new connection
     * is served.
     */
    @Test
    void aHeaderBlockGrowingPastTheHeaderBoundClosesTheConnection() throws Exception {
        ServerLimits limits = ServerLimits.defaults();
        byte[] fields = H2Wire.literalField("x-flood", "a".repeat(15_980));
        int frames = 2 * (limits.maxHeaderBytes() + limits.maxRequestLine()) / fields.length + 1;
        try (RecordingUpstream recording = RecordingUpstream.start();
                TestGateway gw = proxyingAllTo(recording).start()) {
            assertThat(flood(gw, fields, frames).errorCode())
                    .as("GOAWAY's error: a header block past the bound")
                    .isEqualTo(H2Wire.PROTOCOL_ERROR);
            assertServedAfterTheFlood(gw, recording);
        }
    }

    /**
     * The CONTINUATION flood's other half: CONTINUATION frames of no bytes, then of one, which grow no
     * header block but would have the server parse frames for ever. A header block spans at most
     * {@link Http2Settings#MAX_HEADER_BLOCK_FRAMES} frames, its HEADERS included: the client writes that
     * many CONTINUATIONs, one too many, and no more, and the connection must then close (GOAWAY {@code
     * ENHANCE_YOUR_CALM}); a block of exactly that many frames is served.
     */
    @Test
    void aHeaderBlockOfEndlessTinyContinuationsClosesTheConnection() throws Exception {
        try (RecordingUpstream recording = RecordingUpstream.start();
                TestGateway gw = proxyingAllTo(recording).start()) {
            try (H2Wire wire = H2Wire.connect(gw.port())) { // the longest block allowed is served
                wire.headersWithoutEnd(1, gw.authority(), "/longest");
                for (int i = 2; i < Http2Settings.MAX_HEADER_BLOCK_FRAMES; i++) {
                    wire.continuation(1, new byte[0], false);
                }
                wire.continuation(1, new byte[0], true);
                wire.flush();
                assertThat(wire.readUntil(H2Wire.HEADERS).orElseThrow().status())
                        .as("a header block of %d frames", Http2Settings.MAX_HEADER_BLOCK_FRAMES)
                        .isEqualTo(200);
            }
            for (byte[] fragment : List.of(new byte[0], new byte[] {(byte) 0x86})) { // (:scheme http, indexed)
                assertThat(flood(gw, fragment, Http2Settings.MAX_HEADER_BLOCK_FRAMES)
                                .errorCode())
                        .as("GOAWAY's error after %d-byte CONTINUATIONs", fragment.length)
                        .isEqualTo(H2Wire.ENHANCE_YOUR_CALM);
                assertServedAfterTheFlood(gw, recording);
            }
        }
    }

    /**
     * Stream 1's head (a GET of {@code /flood}) and then {@code frames} CONTINUATION frames of {@code
     * fragment} on it, none ending the block (fewer when writing fails: the server closed the
     * connection already), then the connection read to its end; its GOAWAY. Fails if the connection
     * is still open after the socket's 20 s read timeout (far below the idle timeout), ends without a
     * GOAWAY, or the stream is answered.
     */
    private static H2Wire.Frame flood(TestGateway gw, byte[] fragment, int frames) throws Exception {
        try (H2Wire wire = H2Wire.connect(gw.port())) {
            try {
                wire.headersWithoutEnd(1, gw.authority(), "/flood");
                for (int i = 0; i < frames; i++) {
                    wire.continuation(1, fragment, false);
                }
            } catch (IOException closedWhileWriting) {
                // the server closed the connection before the flood was all written: the defence
            }
            Optional<H2Wire.Frame> goAway = Optional.empty();
            try {
                for (Optional<H2Wire.Frame> f = wire.read(); f.isPresent(); f = wire.read()) {
                    H2Wire.Frame frame = f.get();
                    if (frame.type() == H2Wire.GOAWAY) {
                        goAway = f;
                    }
                    assertThat(frame.type() == H2Wire.HEADERS && frame.stream() == 1)
                            .as("the flooding stream is never answered")
                            .isFalse();
                }
            } catch (java.net.SocketTimeoutException open) {
                throw new AssertionError(
                        "the connection is still open after " + frames + " CONTINUATION frames of " + fragment.length
                                + " bytes" + goAway.map(g -> " and a GOAWAY").orElse(""),
                        open);
            }
            return goAway.orElseThrow(() -> new AssertionError("the connection closed without a GOAWAY"));
        }
    }

    /** A new connection is served right after a flood, and no flooding stream ever reached the upstream. */
    private static void assertServedAfterTheFlood(TestGateway gw, RecordingUpstream recording) throws Exception {
        try (H2Wire wire = H2Wire.connect(gw.port())) {
            wire.get(1, gw.authority(), "/after");
            wire.flush();
            H2Wire.Frame head = wire.readUntil(H2Wire.HEADERS).orElseThrow();
            assertThat(head.status()).as("a new connection after the flood").isEqualTo(200);
        }
        assertThat(recording.received())
                .as("what the upstream received")
                .isNotEmpty()
                .noneSatisfy(received -> assertThat(received.head()).startsWith("GET /flood "));
    }

    private static String json(int length) {
        return new String(GeneratedBody.json(length).bytes(), StandardCharsets.UTF_8);
    }

    private static HttpResponse<byte[]> send(HttpClient client, HttpRequest.Builder request) {
        try {
            return client.send(request.timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException("client: " + request.build() + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("client: interrupted", e);
        }
    }

    private static boolean curlHasHttp2(Path curl) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(curl.toString(), "-V")
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return p.waitFor(10, TimeUnit.SECONDS) && out.contains("HTTP2");
    }

    /** {@code "<status> <HTTP version> <body>"} of one curl request. */
    private static String curl(Path curl, String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(
                List.of(curl.toString(), "-sS", "--max-time", "20", "-w", " %{http_code} %{http_version}", "-o", "-"));
        command.addAll(List.of(arguments));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        int status = out.lastIndexOf(' ', out.lastIndexOf(' ') - 1);
        assertThat(status).as("curl's output: %s", out).isPositive();
        return out.substring(status + 1) + " " + out.substring(0, status);
    }
}
