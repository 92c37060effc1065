package dev.sluice.tck;

import static dev.sluice.tck.ChunkedWire.chunk;
import static dev.sluice.tck.ChunkedWire.line;
import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.config.ComposeTarget.Order;
import dev.sluice.config.FilterConfig;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.zip.DataFormatException;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import java.util.zip.Inflater;
import org.junit.jupiter.api.Test;

/**
 * The {@code compression} filter in every engine: gzip by {@code Accept-Encoding}, streamed, bodies
 * that decompress to the upstream's exact bytes, the cases that are never compressed, and a
 * composition whose first part the client can decompress before its slow part has answered.
 */
public abstract class CompressionContract extends ContractFixture {

    private static final FilterConfig.Compression JSON =
            new FilterConfig.Compression(List.of("application/json"), 1024, 6);

    private static final FilterConfig.Compression ZSTD_FIRST =
            new FilterConfig.Compression(List.of("application/json"), 1024, 6, List.of("zstd", "gzip"), 3);

    private TestGateway proxyGateway() {
        return gateway()
                .route("api", on("/api/**"), proxy(APP).stripPrefix("/api"), JSON)
                .start();
    }

    private HttpResponse<byte[]> get(TestGateway gw, String target, String acceptEncoding) {
        HttpRequest.Builder request = HttpRequest.newBuilder(gw.uri(target)).GET();
        if (acceptEncoding != null) {
            request.header("Accept-Encoding", acceptEncoding);
        }
        return send(gw, request);
    }

    @Test
    void aProxiedJsonBodyIsGzipAndDecompressesToTheUpstreamsExactBytes() throws IOException {
        byte[] body = GeneratedBody.json(50_000).bytes();
        String fixed = upstream.respond(200, "application/json", body, Map.of("ETag", "\"v1\"", "Vary", "Origin"));
        try (TestGateway gw = proxyGateway()) {
            HttpResponse<byte[]> response = get(gw, "/api" + fixed, "br;q=1.0, gzip;q=0.8, *;q=0.1");
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("content-encoding")).hasValue("gzip");
            assertThat(response.headers().firstValue("content-length"))
                    .as("the compressed body streams")
                    .isEmpty();
            assertThat(response.headers().firstValue("etag")).hasValue("W/\"v1\"");
            assertThat(String.join(",", response.headers().allValues("vary")).toLowerCase(Locale.ROOT))
                    .contains("origin")
                    .contains("accept-encoding");
            assertThat(response.body().length).isLessThan(body.length);
            assertThat(gunzip(response.body())).isEqualTo(body);
        }
    }

    @Test
    void aMultiMegabyteStreamedBodyIsCompressedAsItStreams() throws IOException {
        long n = 4_000_000;
        try (TestGateway gw = proxyGateway()) {
            HttpResponse<byte[]> response = get(gw, "/api/json/" + n + "?chunked=1", "gzip");
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("content-encoding")).hasValue("gzip");
            byte[] decoded = gunzip(response.body());
            assertThat(decoded.length).isEqualTo(n);
            assertThat(GeneratedBody.sha256(decoded))
                    .isEqualTo(GeneratedBody.json(n).sha256());
        }
    }

    @Test
    void anUpstreamBodyAlreadyEncodedPassesUntouched() throws IOException {
        byte[] gzip = gzip(GeneratedBody.json(20_000).bytes());
        String fixed = upstream.respond(200, "application/json", gzip, Map.of("Content-Encoding", "gzip"));
        try (TestGateway gw = proxyGateway()) {
            HttpResponse<byte[]> response = get(gw, "/api" + fixed, "gzip");
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().allValues("content-encoding")).containsExactly("gzip");
            assertThat(response.headers().firstValue("content-length")).hasValue(Integer.toString(gzip.length));
            assertThat(response.body()).isEqualTo(gzip);
        }
    }

    @Test
    void nothingIsCompressedUnaskedBelowMinSizeForAnotherTypeOrForHead() {
        byte[] body = GeneratedBody.json(5000).bytes();
        try (TestGateway gw = proxyGateway()) {
            for (String refusing : new String[] {null, "identity", "gzip;q=0, *", "br, deflate", "identity;q=0"}) {
                HttpResponse<byte[]> plain = get(gw, "/api/json/5000", refusing);
                assertThat(plain.headers().firstValue("content-encoding"))
                        .as("Accept-Encoding: %s", refusing)
                        .isEmpty();
                assertThat(plain.headers().firstValue("content-length")).hasValue("5000");
                assertThat(plain.body()).isEqualTo(body);
                assertThat(plain.headers().firstValue("vary"))
                        .as("the answer would differ with another Accept-Encoding")
                        .hasValueSatisfying(v -> assertThat(v).containsIgnoringCase("accept-encoding"));
            }
            HttpResponse<byte[]> small = get(gw, "/api/json/1023", "gzip");
            assertThat(small.headers().firstValue("content-encoding")).isEmpty();
            assertThat(small.body()).isEqualTo(GeneratedBody.json(1023).bytes());
            HttpResponse<byte[]> text = get(gw, "/api/json/5000?type=text/plain", "gzip");
            assertThat(text.headers().firstValue("content-encoding")).isEmpty();
            assertThat(text.body()).isEqualTo(body);
            HttpResponse<byte[]> head = send(
                    gw,
                    HttpRequest.newBuilder(gw.uri("/api/json/5000"))
                            .method("HEAD", HttpRequest.BodyPublishers.noBody())
                            .header("Accept-Encoding", "gzip"));
            assertThat(head.statusCode()).isEqualTo(200);
            assertThat(head.headers().firstValue("content-encoding")).isEmpty();
            assertThat(head.body()).isEmpty();
            HttpResponse<byte[]> star = get(gw, "/api/json/5000", "*");
            assertThat(star.headers().firstValue("content-encoding")).hasValue("gzip");
        }
    }

    /**
     * The failure Apollo Router had (apollographql/router#1572): a compressor that holds bytes back
     * until the body ends keeps the first part from the client while the slow part is awaited. The
     * slow upstream answers only once the client has decompressed the first part.
     */
    @Test
    void aCompressedCompositionsFirstPartDecompressesBeforeTheSlowPartAnswers() throws Exception {
        firstPartDecodesBeforeTheSlowPartAnswers(JSON, "gzip", new StreamingGunzip());
    }

    /** A composition's first part, sent while its slow part is held, decodes at the client from what it has. */
    private void firstPartDecodesBeforeTheSlowPartAnswers(
            FilterConfig.Compression filter, String coding, StreamingDecoder decoder) throws Exception {
        byte[] fast = GeneratedBody.json(3000).bytes();
        try (HeldUpstream slow = new HeldUpstream(new byte[0], "{\"late\":true}".getBytes(StandardCharsets.UTF_8));
                TestGateway gw = gateway()
                        .upstream("slow", slow.url())
                        .route(
                                "page",
                                on("/page"),
                                compose()
                                        .order(Order.ARRIVAL)
                                        .timeout(Duration.ofSeconds(40)) // longer than the client waits
                                        .part("fast", APP, "/json/3000")
                                        .part("late", "slow", "/held"),
                                filter)
                        .start();
                Socket socket = new Socket(InetAddress.getLoopbackAddress(), gw.port())) {
            InputStream in = encodedResponse(socket, "/page", coding);
            ByteArrayOutputStream raw = new ByteArrayOutputStream();
            byte[] firstPart = concat("{\"fast\":".getBytes(StandardCharsets.UTF_8), fast);
            readUntilDecoded(in, decoder, raw, firstPart, "the first part");
            assertThat(slow.asked.await(10, TimeUnit.SECONDS))
                    .as("the slow part was asked for")
                    .isTrue();
            slow.release(); // only now may the slow part answer
            for (byte[] chunk = chunk(in); chunk.length > 0; chunk = chunk(in)) {
                raw.writeBytes(chunk);
            }
            byte[] body = coding.equals("gzip") ? gunzip(raw.toByteArray()) : unzstd(raw.toByteArray());
            String whole = new String(body, StandardCharsets.UTF_8);
            assertThat(whole).startsWith(new String(firstPart, StandardCharsets.UTF_8) + ",\"late\":{\"late\":true}");
            assertThat(whole).contains("\"_meta\"").endsWith("}");
        }
    }

    /**
     * A route offering {@code [zstd, gzip]} answers each client in the best coding it takes: zstd to
     * one that accepts both (as browsers now send), gzip to one that takes only gzip, nothing to one
     * that takes neither; each body decodes to the upstream's exact bytes.
     */
    @Test
    void zstdIsChosenByAcceptEncodingAndDecodesToTheUpstreamsExactBytes() throws IOException {
        long n = 3_000_000;
        try (TestGateway gw = gateway()
                .route("api", on("/api/**"), proxy(APP).stripPrefix("/api"), ZSTD_FIRST)
                .start()) {
            HttpResponse<byte[]> zstd = get(gw, "/api/json/" + n + "?chunked=1", "gzip, deflate, br, zstd");
            assertThat(zstd.statusCode()).isEqualTo(200);
            assertThat(zstd.headers().firstValue("content-encoding")).hasValue("zstd");
            byte[] decoded = unzstd(zstd.body());
            assertThat(decoded.length).isEqualTo(n);
            assertThat(GeneratedBody.sha256(decoded))
                    .isEqualTo(GeneratedBody.json(n).sha256());
            assertThat(zstd.body().length).isLessThan((int) n);

            HttpResponse<byte[]> gzip = get(gw, "/api/json/50000", "gzip");
            assertThat(gzip.headers().firstValue("content-encoding")).hasValue("gzip");
            assertThat(gunzip(gzip.body())).isEqualTo(GeneratedBody.json(50_000).bytes());

            HttpResponse<byte[]> plain = get(gw, "/api/json/50000", "br, zstd;q=0");
            assertThat(plain.headers().firstValue("content-encoding")).isEmpty();
            assertThat(plain.body()).isEqualTo(GeneratedBody.json(50_000).bytes());
        }
    }

    /** The composition of the gzip test above, in zstd: each flush ends a zstd block the client decodes at once. */
    @Test
    void aZstdCompositionsFirstPartDecodesBeforeTheSlowPartAnswers() throws Exception {
        firstPartDecodesBeforeTheSlowPartAnswers(ZSTD_FIRST, "zstd", new StreamingUnzstd());
    }

    /** A proxied body is flushed as it is relayed: its first half decompresses before the second is sent. */
    @Test
    void aCompressedProxiedBodyDecompressesAsItIsRelayed() throws Exception {
        byte[] body = GeneratedBody.json(20_000).bytes();
        byte[] first = java.util.Arrays.copyOf(body, 10_000);
        byte[] rest = java.util.Arrays.copyOfRange(body, 10_000, body.length);
        try (HeldUpstream held = new HeldUpstream(first, rest);
                TestGateway gw = gateway()
                        .upstream("held", held.url())
                        .route("api", on("/held"), proxy("held"), JSON)
                        .start();
                Socket socket = new Socket(InetAddress.getLoopbackAddress(), gw.port())) {
            InputStream in = gzipResponse(socket, "/held");
            StreamingGunzip gunzip = new StreamingGunzip();
            ByteArrayOutputStream raw = new ByteArrayOutputStream();
            readUntilDecoded(in, gunzip, raw, first, "the body's first half");
            held.release();
            for (byte[] chunk = chunk(in); chunk.length > 0; chunk = chunk(in)) {
                raw.writeBytes(chunk);
            }
            assertThat(gunzip(raw.toByteArray())).isEqualTo(body);
        }
    }

    /**
     * An upstream at {@code /held} that sends {@code first} (chunked, as a streamed JSON body), then
     * waits for {@link #release()} before it sends {@code rest}.
     */
    private static final class HeldUpstream implements AutoCloseable {
        final CountDownLatch asked = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);
        private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        private final HttpServer server;

        HeldUpstream(byte[] first, byte[] rest) throws IOException {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
            server.setExecutor(threads);
            server.createContext("/held", exchange -> {
                asked.countDown();
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                OutputStream out = exchange.getResponseBody();
                if (first.length > 0) {
                    exchange.sendResponseHeaders(200, 0);
                    out.write(first);
                    out.flush();
                }
                try {
                    released.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                if (first.length == 0) {
                    exchange.sendResponseHeaders(200, rest.length);
                }
                out.write(rest);
                exchange.close();
            });
            server.start();
        }

        URI url() {
            return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
        }

        void release() {
            released.countDown();
        }

        @Override
        public void close() {
            released.countDown();
            server.stop(0);
            threads.shutdownNow();
        }
    }

    /** Sends a GET asking for gzip and reads the head: a 200, gzip, chunked. */
    private static InputStream gzipResponse(Socket socket, String target) throws IOException {
        return encodedResponse(socket, target, "gzip");
    }

    /** Sends a GET asking for {@code coding} and reads the head: a 200 in that coding, chunked. */
    private static InputStream encodedResponse(Socket socket, String target, String coding) throws IOException {
        socket.setSoTimeout(15_000); // a gateway that holds bytes back fails in readUntilDecoded
        socket.getOutputStream()
                .write(("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: " + coding + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
        InputStream in = new BufferedInputStream(socket.getInputStream());
        Map<String, String> head = head(in);
        assertThat(head.get(":status")).startsWith("HTTP/1.1 200");
        assertThat(head.get("content-encoding")).isEqualTo(coding);
        assertThat(head.get("transfer-encoding")).isEqualTo("chunked");
        return in;
    }

    /** Reads chunks, decompressing them as they come, until what is decompressed begins with {@code prefix}. */
    private static void readUntilDecoded(
            InputStream in, StreamingDecoder decoder, ByteArrayOutputStream raw, byte[] prefix, String what)
            throws Exception {
        while (!startsWith(decoder.decoded(), prefix)) {
            byte[] chunk;
            try {
                chunk = chunk(in);
            } catch (SocketTimeoutException e) {
                throw new AssertionError(
                        what + " never reached the client while the upstream held the rest back;"
                                + " decompressed so far: " + decoder.decoded().length + " bytes",
                        e);
            }
            assertThat(chunk).as("the body ended before %s was seen", what).isNotEmpty();
            raw.writeBytes(chunk);
            decoder.feed(chunk);
        }
    }

    // ---- a client that reads the raw stream as it arrives ----

    /** The status line (key {@code :status}) and header fields (lower-case names) of a response head. */
    private static Map<String, String> head(InputStream in) throws IOException {
        Map<String, String> head = new TreeMap<>();
        head.put(":status", line(in));
        for (String line = line(in); !line.isEmpty(); line = line(in)) {
            int colon = line.indexOf(':');
            head.put(
                    line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
                    line.substring(colon + 1).trim());
        }
        return head;
    }

    /** A gzip member decompressed as its bytes arrive, with the JDK's Inflater. */
    /** A coded body decoded as its bytes arrive. */
    private interface StreamingDecoder {
        void feed(byte[] bytes) throws Exception;

        /** What the bytes fed so far decode to. */
        byte[] decoded() throws Exception;
    }

    /** A zstd frame decoded as its bytes arrive: what its ended blocks hold. */
    private static final class StreamingUnzstd implements StreamingDecoder {
        private final ByteArrayOutputStream raw = new ByteArrayOutputStream();

        @Override
        public void feed(byte[] bytes) {
            raw.writeBytes(bytes);
        }

        @Override
        public byte[] decoded() throws IOException {
            return unzstdSoFar(raw.toByteArray());
        }
    }

    private static final class StreamingGunzip implements StreamingDecoder {
        private final Inflater inflater = new Inflater(true);
        private final ByteArrayOutputStream decoded = new ByteArrayOutputStream();
        private final ByteArrayOutputStream header = new ByteArrayOutputStream();

        @Override
        public void feed(byte[] bytes) throws DataFormatException {
            int from = 0;
            if (header.size() < 10) { // the fixed gzip header (no optional fields: FLG is 0)
                from = Math.min(bytes.length, 10 - header.size());
                header.write(bytes, 0, from);
                if (header.size() == 10) {
                    byte[] h = header.toByteArray();
                    assertThat(h[0] & 0xff).isEqualTo(0x1f);
                    assertThat(h[1] & 0xff).isEqualTo(0x8b);
                    assertThat(h[3]).as("FLG").isZero();
                }
            }
            inflater.setInput(bytes, from, bytes.length - from);
            byte[] out = new byte[64 * 1024];
            for (int n = inflater.inflate(out); n > 0; n = inflater.inflate(out)) {
                decoded.write(out, 0, n);
            }
        }

        @Override
        public byte[] decoded() {
            return decoded.toByteArray();
        }
    }

    private static boolean startsWith(byte[] bytes, byte[] prefix) {
        return bytes.length >= prefix.length
                && java.util.Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    /** A whole zstd frame decoded (zstd-jni, the reference decoder). */
    private static byte[] unzstd(byte[] zstd) throws IOException {
        try (InputStream in = new com.github.luben.zstd.ZstdInputStreamNoFinalizer(new ByteArrayInputStream(zstd))) {
            return in.readAllBytes();
        }
    }

    /** What the zstd bytes so far decode to: the frame is not over, so only its ended blocks count. */
    private static byte[] unzstdSoFar(byte[] zstd) throws IOException {
        if (zstd.length == 0) {
            return zstd;
        }
        try (com.github.luben.zstd.ZstdInputStreamNoFinalizer in =
                new com.github.luben.zstd.ZstdInputStreamNoFinalizer(new ByteArrayInputStream(zstd))) {
            in.setContinuous(true);
            return in.readAllBytes();
        }
    }

    private static byte[] gunzip(byte[] gzip) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gzip))) {
            return in.readAllBytes();
        }
    }

    private static byte[] gzip(byte[] bytes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (OutputStream gz = new GZIPOutputStream(out)) {
            gz.write(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
