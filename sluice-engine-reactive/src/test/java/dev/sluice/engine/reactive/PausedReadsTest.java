package dev.sluice.engine.reactive;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ComposeTarget.Order;
import dev.sluice.config.EngineMode;
import dev.sluice.tck.GeneratedBody;
import dev.sluice.tck.Routes;
import dev.sluice.tck.TestGateway;
import dev.sluice.tck.TestUpstream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code read-timeout} counts only while the gateway waits for upstream bytes it asked for. When it
 * stops reading an upstream because of backpressure (a slow client, or a composition part waiting
 * for its turn), the silence is the gateway's, and must not fail the upstream. A plain Netty {@code
 * ReadTimeoutHandler} would fail both tests below.
 */
@ExtendWith(LeakGuard.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PausedReadsTest {

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(1);
    private static final long KEEP = 16L << 20; // response bytes kept for inspection

    private TestUpstream upstream;

    @BeforeAll
    void startUpstream() throws Exception {
        upstream = TestUpstream.start();
        // Warm the upstream's body generator, so that its own slowness is never what times out.
        try (HttpClient http = HttpClient.newHttpClient()) {
            for (String path : List.of("/bytes/" + (8 << 20), "/json/" + (8 << 20))) {
                http.send(
                        HttpRequest.newBuilder(upstream.url().resolve(path)).build(),
                        HttpResponse.BodyHandlers.discarding());
            }
        }
    }

    @AfterAll
    void stopUpstream() {
        upstream.close();
    }

    private TestGateway.Builder gateway() {
        return TestGateway.builder(EngineMode.REACTIVE)
                .upstream(Routes.upstream("app", upstream.url()).readTimeout(READ_TIMEOUT));
    }

    @Test
    void aClientPausingLongerThanTheReadTimeoutStillGetsTheWholeBody() throws Exception {
        long size = 8L << 20;
        try (TestGateway gw = gateway()
                .route("pass", on("/p/**"), proxy("app").stripPrefix("/p"))
                .start()) {
            Download download = download(gw.port(), "/p/bytes/" + size, 512 * 1024, Duration.ofMillis(2500));
            assertThat(download.status).isEqualTo(200);
            assertThat(download.contentLength).isEqualTo(size);
            assertThat(download.bodyLength)
                    .as("every byte arrived, none after a premature close")
                    .isEqualTo(size);
            assertThat(download.sha256).isEqualTo(GeneratedBody.binary(size).sha256());
        }
    }

    @Test
    void partsWaitingLongerThanTheReadTimeoutAreNotFailed() throws Exception {
        long sizeA = 8L << 20;
        long sizeB = 1L << 20;
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .order(Order.DECLARED)
                                .part("a", "app", "/json/" + sizeA)
                                .part("b", "app", "/json/" + sizeB + "?chunked=1"))
                .start()) {
            // The client stops reading for 2.5 s early in part a: part a's read-ahead fills and waits for
            // the client, part b's fills and waits for its turn, both longer than the read timeout.
            Download download = download(gw.port(), "/page", 512 * 1024, Duration.ofMillis(2500));
            assertThat(download.status).isEqualTo(200);
            byte[] body = dechunk(download.body);
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            expected.write("{\"a\":".getBytes(StandardCharsets.US_ASCII));
            expected.write(GeneratedBody.json(sizeA).bytes());
            expected.write(",\"b\":".getBytes(StandardCharsets.US_ASCII));
            expected.write(GeneratedBody.json(sizeB).bytes());
            expected.write(",\"_meta\":".getBytes(StandardCharsets.US_ASCII));
            byte[] prefix = expected.toByteArray();
            assertThat(body.length).as("the body is longer than both parts").isGreaterThan(prefix.length);
            assertThat(Arrays.equals(body, 0, prefix.length, prefix, 0, prefix.length))
                    .as(
                            "both parts relayed whole, in declared order; the end is %s",
                            new String(
                                    body,
                                    Math.max(0, body.length - 300),
                                    Math.min(300, body.length),
                                    StandardCharsets.UTF_8))
                    .isTrue();
            assertThat(new String(body, prefix.length, body.length - prefix.length, StandardCharsets.UTF_8))
                    .contains("\"failed\":[]");
        }
    }

    /** Decodes a chunked body; fails if the final chunk is missing. */
    private static byte[] dechunk(byte[] raw) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length);
        int pos = 0;
        while (true) {
            int lineEnd = indexOfCrlf(raw, pos);
            assertThat(lineEnd).as("a chunk-size line at %d", pos).isGreaterThanOrEqualTo(0);
            String size = new String(raw, pos, lineEnd - pos, StandardCharsets.US_ASCII);
            int semi = size.indexOf(';');
            int n = Integer.parseInt((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
            pos = lineEnd + 2;
            if (n == 0) {
                return out.toByteArray();
            }
            assertThat(pos + n + 2).as("a whole chunk at %d", pos).isLessThanOrEqualTo(raw.length);
            out.write(raw, pos, n);
            pos += n + 2;
        }
    }

    private static int indexOfCrlf(byte[] raw, int from) {
        for (int i = from; i + 1 < raw.length; i++) {
            if (raw[i] == '\r' && raw[i + 1] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /**
     * A GET on a raw socket with a small receive buffer, paused once after {@code pauseAfter} body
     * bytes; the body is digested and kept (raw, as framed) up to {@link #KEEP}.
     */
    private static Download download(int port, String target, long pauseAfter, Duration pause) throws Exception {
        try (Socket socket = new Socket()) {
            socket.setReceiveBufferSize(64 * 1024);
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String head = head(in);
            int status = Integer.parseInt(head.substring(9, 12));
            long contentLength = -1;
            for (String line : head.split("\r\n")) {
                if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                    contentLength = Long.parseLong(line.substring(15).trim());
                }
            }
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            ByteArrayOutputStream kept = new ByteArrayOutputStream();
            byte[] buffer = new byte[16 * 1024];
            long read = 0;
            boolean paused = false;
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                digest.update(buffer, 0, n);
                if (read < KEEP) {
                    kept.write(buffer, 0, n);
                }
                read += n;
                if (!paused && read >= pauseAfter) {
                    paused = true;
                    Thread.sleep(pause.toMillis());
                }
            }
            return new Download(
                    status, contentLength, read, HexFormat.of().formatHex(digest.digest()), kept.toByteArray());
        }
    }

    private static String head(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed inside the response head: " + head);
            }
            head.write(b);
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toString(StandardCharsets.US_ASCII);
    }

    private record Download(int status, long contentLength, long bodyLength, String sha256, byte[] body) {}
}
