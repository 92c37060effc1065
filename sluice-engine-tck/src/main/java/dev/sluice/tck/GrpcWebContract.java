package dev.sluice.tck;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.FilterConfig;
import dev.sluice.config.UpstreamProtocol;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * gRPC-Web (binary and text) translated to gRPC by the gateway ({@link dev.sluice.http.GrpcWeb}), in every
 * engine: an HTTP/1.1 client sends {@code application/grpc-web[-text]} to a route whose upstream is a real
 * grpc-java service over h2c, and reads the messages and the trailer frame (flag {@code 0x80}) from the
 * body as they arrive; the gateway's own refusals arrive as gRPC-Web; a browser's CORS preflight passes.
 */
public abstract class GrpcWebContract extends ContractFixture {

    /** Room for an h2 session to a live grpc-java service to open on a loaded machine (the default is 1 s). */
    private static final java.time.Duration LIVE_CONNECT = java.time.Duration.ofSeconds(10);

    private static final String GRPC = "grpc";
    private static final String WEB = "application/grpc-web";
    private static final String TEXT = "application/grpc-web-text";
    private static final String GATED_SERVICE = "sluice.test.Gated";
    private static final MethodDescriptor<String, String> GATED =
            GrpcUpstream.method(GATED_SERVICE, "Two", MethodDescriptor.MethodType.SERVER_STREAMING);

    private GrpcUpstream service;
    private Server gated;
    private volatile CountDownLatch firstSeen = new CountDownLatch(1);

    @BeforeAll
    void startServices() throws IOException {
        service = GrpcUpstream.start();
        // server streaming whose second message waits until the client has read the first one
        ServerServiceDefinition definition = ServerServiceDefinition.builder(GATED_SERVICE)
                .addMethod(GATED, ServerCalls.asyncServerStreamingCall((request, reply) -> {
                    reply.onNext("first " + request);
                    try {
                        if (!firstSeen.await(20, TimeUnit.SECONDS)) {
                            reply.onError(io.grpc.Status.ABORTED
                                    .withDescription("the first message never reached the client")
                                    .asRuntimeException());
                            return;
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    reply.onNext("second " + request);
                    reply.onCompleted();
                }))
                .build();
        gated = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .addService(definition)
                .build()
                .start();
    }

    @AfterAll
    void stopServices() throws InterruptedException {
        service.close();
        gated.shutdownNow();
        gated.awaitTermination(5, TimeUnit.SECONDS);
    }

    private TestGateway.Builder webGateway() {
        return gateway()
                .upstream(Routes.upstream(GRPC, service.url())
                        .connectTimeout(LIVE_CONNECT)
                        .protocol(UpstreamProtocol.H2C))
                .upstream(Routes.upstream("gated", java.net.URI.create("http://127.0.0.1:" + gated.getPort()))
                        .connectTimeout(LIVE_CONNECT)
                        .protocol(UpstreamProtocol.H2C))
                .route("echo", on("/" + GrpcUpstream.SERVICE + "/**"), proxy(GRPC))
                .route("gated", on("/" + GATED_SERVICE + "/**"), proxy("gated"));
    }

    /** A gRPC message: flag 0, a 4-byte length, the UTF-8 text. */
    private static byte[] message(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(5 + bytes.length)
                .put((byte) 0)
                .putInt(bytes.length)
                .put(bytes)
                .array();
    }

    /** What a gRPC-Web body held: its messages and the trailer frame's fields. */
    private record Answer(List<String> messages, Map<String, String> trailers) {}

    /** Reads gRPC-Web frames from {@code in} (binary) as they come, each message told to {@code each}. */
    private static Answer read(InputStream in, java.util.function.Consumer<String> each) throws IOException {
        DataInputStream data = new DataInputStream(in);
        List<String> messages = new ArrayList<>();
        Map<String, String> trailers = new LinkedHashMap<>();
        while (true) {
            int flag = data.read();
            if (flag < 0) {
                return new Answer(messages, trailers);
            }
            byte[] payload = new byte[data.readInt()];
            data.readFully(payload);
            String text = new String(payload, StandardCharsets.UTF_8);
            if ((flag & 0x80) != 0) {
                assertThat(trailers).as("one trailer frame").isEmpty();
                for (String line : text.split("\r\n")) {
                    int colon = line.indexOf(':');
                    assertThat(line.substring(0, colon)).as("a lowercase name").isLowerCase();
                    trailers.put(
                            line.substring(0, colon), line.substring(colon + 1).strip());
                }
            } else {
                assertThat(trailers).as("no message after the trailers").isEmpty();
                messages.add(text);
                each.accept(text);
            }
        }
    }

    /** Text mode's body decoded with java.util.Base64, 4 characters at a time (padding at any group's end). */
    private static final class Base64Groups extends InputStream {
        private final InputStream in;
        private final byte[] group = new byte[4];
        private byte[] decoded = new byte[0];
        private int at;

        Base64Groups(InputStream in) {
            this.in = in;
        }

        /** A whole text body, decoded. */
        static byte[] decodeAll(byte[] text) {
            try (InputStream in = new Base64Groups(new java.io.ByteArrayInputStream(text))) {
                return in.readAllBytes();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        @Override
        public int read() throws IOException {
            while (at == decoded.length) {
                int n = in.readNBytes(group, 0, 4);
                if (n == 0) {
                    return -1;
                }
                assertThat(n).as("whole base64 groups").isEqualTo(4);
                decoded = Base64.getDecoder().decode(group);
                at = 0;
            }
            return decoded[at++] & 0xff;
        }
    }

    private HttpResponse<InputStream> call(TestGateway gw, String path, String type, byte[] body, String... headers)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(gw.uri(path))
                .version(java.net.http.HttpClient.Version.HTTP_1_1)
                .timeout(Duration.ofSeconds(30))
                .header("content-type", type)
                .header("x-grpc-web", "1")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return gw.http().send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    }

    private static Answer answer(HttpResponse<InputStream> response, boolean text) throws IOException {
        try (InputStream body = response.body()) {
            return read(text ? new Base64Groups(body) : body, m -> {});
        }
    }

    @Test
    void aUnaryBinaryCallIsTranslatedToGrpcAndBack() throws Exception {
        try (TestGateway gw = webGateway().start()) {
            HttpResponse<InputStream> response =
                    call(gw, "/" + GrpcUpstream.SERVICE + "/Say", WEB + "+proto", message("web"));
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("content-type")).hasValue(WEB + "+proto");
            Answer answer = answer(response, false);
            assertThat(answer.messages()).containsExactly("hello web");
            assertThat(answer.trailers()).containsEntry("grpc-status", "0");
        }
    }

    @Test
    void aUnaryTextCallIsDecodedAndItsAnswerEncoded() throws Exception {
        try (TestGateway gw = webGateway().start()) {
            HttpResponse<InputStream> response = call(
                    gw,
                    "/" + GrpcUpstream.SERVICE + "/Say",
                    TEXT,
                    Base64.getEncoder().encode(message("text")),
                    "accept",
                    TEXT);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("content-type")).hasValue(TEXT);
            Answer answer = answer(response, true);
            assertThat(answer.messages()).containsExactly("hello text");
            assertThat(answer.trailers()).containsEntry("grpc-status", "0");
        }
    }

    /** Over HTTP/2 (h2c by prior knowledge) as over HTTP/1.1: the answer's DATA frames hold the gRPC-Web body. */
    @Test
    void aUnaryCallOverHttp2IsTranslatedToo() throws Exception {
        try (TestGateway gw = webGateway().start();
                H2Wire h2 = H2Wire.connect(gw.port())) {
            h2.headers(
                    1,
                    false,
                    ":method",
                    "POST",
                    ":scheme",
                    "http",
                    ":authority",
                    gw.authority(),
                    ":path",
                    "/" + GrpcUpstream.SERVICE + "/Say",
                    "content-type",
                    WEB,
                    "x-grpc-web",
                    "1");
            h2.data(1, message("h2"), true);
            h2.flush();
            H2Wire.Frame head = h2.readUntil(H2Wire.HEADERS).orElseThrow();
            assertThat(head.status()).isEqualTo(200);
            assertThat(head.header("content-type")).isEqualTo(WEB);
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            boolean ended = head.endsStream();
            while (!ended) {
                H2Wire.Frame frame = h2.read().orElseThrow();
                if (frame.stream() != 1 || frame.type() == H2Wire.WINDOW_UPDATE) {
                    continue;
                }
                assertThat(frame.type()).as("DATA only, no HTTP trailers").isEqualTo(H2Wire.DATA);
                body.writeBytes(frame.payload());
                ended = frame.endsStream();
            }
            Answer answer = read(new java.io.ByteArrayInputStream(body.toByteArray()), m -> {});
            assertThat(answer.messages()).containsExactly("hello h2");
            assertThat(answer.trailers()).containsEntry("grpc-status", "0");
        }
    }

    /**
     * The service sends its second message only once the client has read the first: the call ends only
     * if the gateway relays each message as it arrives, in binary and in text mode.
     */
    @Test
    void aServerStreamReachesTheClientMessageByMessage() throws Exception {
        try (TestGateway gw = webGateway().start()) {
            for (String type : List.of(WEB, TEXT)) {
                boolean text = type.equals(TEXT);
                firstSeen = new CountDownLatch(1);
                byte[] body = text ? Base64.getEncoder().encode(message(type)) : message(type);
                HttpResponse<InputStream> response = call(gw, "/" + GATED_SERVICE + "/Two", type, body);
                assertThat(response.statusCode()).isEqualTo(200);
                Answer answer;
                try (InputStream in = response.body()) {
                    answer = read(text ? new Base64Groups(in) : in, m -> firstSeen.countDown());
                }
                assertThat(answer.messages()).containsExactly("first " + type, "second " + type);
                assertThat(answer.trailers()).as(type).containsEntry("grpc-status", "0");
            }
            // and many messages, in order
            Answer many = answer(call(gw, "/" + GrpcUpstream.SERVICE + "/Count", WEB, message("500")), false);
            assertThat(many.messages()).hasSize(500).startsWith("1").endsWith("500");
            assertThat(many.trailers()).containsEntry("grpc-status", "0");
        }
    }

    @Test
    void theServicesErrorStatusArrivesInTheTrailerFrame() throws Exception {
        try (TestGateway gw = webGateway().start()) {
            for (String type : List.of(WEB, TEXT)) {
                boolean text = type.equals(TEXT);
                byte[] body = message("no such greeting");
                HttpResponse<InputStream> response = call(
                        gw,
                        "/" + GrpcUpstream.SERVICE + "/Fail",
                        type,
                        text ? Base64.getEncoder().encode(body) : body);
                assertThat(response.statusCode()).isEqualTo(200);
                Map<String, String> status =
                        new LinkedHashMap<>(answer(response, text).trailers());
                response.headers().firstValue("grpc-status").ifPresent(s -> status.put("grpc-status", s));
                response.headers().firstValue("grpc-message").ifPresent(s -> status.put("grpc-message", s));
                assertThat(status).as(type).containsEntry("grpc-status", "5"); // NOT_FOUND
                assertThat(status.get("grpc-message")).isEqualTo("no such greeting");
            }
        }
    }

    @Test
    void theGatewaysRefusalArrivesAsGrpcWeb() throws Exception {
        try (TestGateway gw = gateway()
                .upstream(Routes.upstream(GRPC, service.url())
                        .connectTimeout(LIVE_CONNECT)
                        .protocol(UpstreamProtocol.H2C))
                .route(
                        "keyed",
                        on("/" + GrpcUpstream.SERVICE + "/**"),
                        proxy(GRPC),
                        new FilterConfig.ApiKey(
                                Optional.of("x-api-key"), Optional.empty(), Map.of("ci", "0".repeat(64))))
                .start()) {
            for (String type : List.of(WEB, TEXT)) {
                HttpResponse<InputStream> response = call(
                        gw,
                        "/" + GrpcUpstream.SERVICE + "/Say",
                        type,
                        Base64.getEncoder().encode(message("x")));
                response.body().close();
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.headers().firstValue("content-type")).hasValue(type);
                assertThat(response.headers().firstValue("grpc-status"))
                        .as(type)
                        .hasValue("16"); // UNAUTHENTICATED
            }
        }
    }

    /** A text body that is not base64 ends the call with an error status, as gRPC-Web, never a 200 with OK. */
    @Test
    void aTextBodyThatIsNotBase64EndsTheCallWithAnErrorStatus() throws Exception {
        try (TestGateway gw = webGateway().start()) {
            HttpResponse<InputStream> response =
                    call(gw, "/" + GrpcUpstream.SERVICE + "/Say", TEXT, "AAAA!!!!".getBytes(StandardCharsets.US_ASCII));
            byte[] body;
            try (InputStream in = response.body()) {
                body = in.readAllBytes();
            }
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("content-type")).hasValue(TEXT);
            assertThat(body).isEmpty();
            assertThat(response.headers().firstValue("grpc-status"))
                    .isPresent()
                    .get()
                    .isNotEqualTo("0");
        }
    }

    @Test
    void aBrowsersPreflightPassesWithTheRoutesCorsPolicy() throws Exception {
        String page = "https://app.example.com";
        try (TestGateway gw = gateway()
                .upstream(Routes.upstream(GRPC, service.url())
                        .connectTimeout(LIVE_CONNECT)
                        .protocol(UpstreamProtocol.H2C))
                .route(
                        "echo",
                        on("/" + GrpcUpstream.SERVICE + "/**"),
                        proxy(GRPC),
                        new FilterConfig.Cors(
                                List.of(page),
                                List.of("POST"),
                                List.of("content-type", "x-grpc-web", "x-user-agent", "grpc-timeout"),
                                List.of("grpc-status", "grpc-message"),
                                false,
                                Optional.of(Duration.ofMinutes(10))))
                .start()) {
            HttpResponse<byte[]> preflight = send(
                    gw,
                    HttpRequest.newBuilder(gw.uri("/" + GrpcUpstream.SERVICE + "/Say"))
                            .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                            .header("Origin", page)
                            .header("Access-Control-Request-Method", "POST")
                            .header(
                                    "Access-Control-Request-Headers",
                                    "content-type,x-grpc-web,x-user-agent,grpc-timeout"));
            assertThat(preflight.statusCode()).isBetween(200, 204);
            assertThat(preflight.headers().firstValue("access-control-allow-origin"))
                    .hasValue(page);
            assertThat(preflight
                            .headers()
                            .firstValue("access-control-allow-headers")
                            .orElse("")
                            .toLowerCase())
                    .contains("x-grpc-web", "x-user-agent", "grpc-timeout", "content-type");
            HttpResponse<InputStream> response =
                    call(gw, "/" + GrpcUpstream.SERVICE + "/Say", WEB, message("cors"), "origin", page);
            assertThat(response.headers().firstValue("access-control-allow-origin"))
                    .hasValue(page);
            assertThat(response.headers()
                            .firstValue("access-control-expose-headers")
                            .orElse(""))
                    .contains("grpc-status", "grpc-message");
            assertThat(answer(response, false).messages()).containsExactly("hello cors");
        }
    }

    /**
     * A text body sent chunk by chunk, cut inside base64 groups and inside the message's frame, with
     * padding between the frame's header and its payload: the gateway decodes across the cuts.
     */
    @Test
    void aTextBodySplitAtAwkwardPointsIsDecodedAcrossThem() throws Exception {
        try (TestGateway gw = webGateway().start();
                Socket socket = new Socket()) {
            byte[] whole = message("split across pieces");
            String body = Base64.getEncoder().encodeToString(java.util.Arrays.copyOfRange(whole, 0, 5))
                    + Base64.getEncoder().encodeToString(java.util.Arrays.copyOfRange(whole, 5, whole.length));
            assertThat(body).contains("=");
            socket.connect(new InetSocketAddress("127.0.0.1", gw.port()), 5_000);
            socket.setSoTimeout(20_000);
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            out.write(
                    ("POST /" + GrpcUpstream.SERVICE + "/Say HTTP/1.1\r\nHost: " + gw.authority() + "\r\ncontent-type: "
                                    + TEXT + "\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            int[] cuts = {1, 3, 6, 7, 9, 11, body.length()};
            int from = 0;
            for (int cut : cuts) {
                String piece = body.substring(from, cut);
                out.write((Integer.toHexString(piece.length()) + "\r\n" + piece + "\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                from = cut;
            }
            out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = new java.io.BufferedInputStream(socket.getInputStream());
            String head = ChunkedWire.head(in);
            assertThat(head).startsWith("HTTP/1.1 200");
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            if (head.toLowerCase(java.util.Locale.ROOT).contains("transfer-encoding: chunked")) {
                for (byte[] chunk = ChunkedWire.chunk(in); chunk.length > 0; chunk = ChunkedWire.chunk(in)) {
                    all.writeBytes(chunk);
                }
            } else {
                in.transferTo(all);
            }
            Answer answer = read(new Base64Groups(new java.io.ByteArrayInputStream(all.toByteArray())), m -> {});
            assertThat(answer.messages()).containsExactly("hello split across pieces");
            assertThat(answer.trailers()).containsEntry("grpc-status", "0");
        }
    }

    /** How a gRPC-Web answer reached a client: the status, whether its body ended normally, the body decoded. */
    private record Outcome(int status, boolean endedNormally, byte[] body, String how) {}

    /** The call over HTTP/1.1 on a raw socket ({@code Connection: close} when {@code close}). */
    private static Outcome overHttp11(TestGateway gw, String type, boolean close) {
        boolean text = type.equals(TEXT);
        byte[] request = text ? Base64.getEncoder().encode(message("cut")) : message("cut");
        WireRequest wire = WireRequest.of("POST", "/" + GrpcUpstream.SERVICE + "/Cut")
                .header("content-type", type)
                .header("x-grpc-web", "1");
        if (close) {
            wire.header("Connection", "close");
        }
        WireResponse r =
                WireClient.to(gw.port()).timeout(Duration.ofSeconds(10)).send(wire.body(request));
        byte[] body = r.kept().orElse(new byte[0]);
        return new Outcome(
                r.status(),
                r.complete(),
                text && r.complete() ? Base64Groups.decodeAll(body) : body,
                "HTTP/1.1" + (close ? " Connection: close" : "") + ", framing " + r.framing() + ", "
                        + r.failure().orElse("no failure"));
    }

    /** The call over h2c (prior knowledge). */
    private static Outcome overHttp2(TestGateway gw, String type) throws IOException {
        boolean text = type.equals(TEXT);
        try (H2Wire h2 = H2Wire.connect(gw.port())) {
            h2.headers(
                    1,
                    false,
                    ":method",
                    "POST",
                    ":scheme",
                    "http",
                    ":authority",
                    gw.authority(),
                    ":path",
                    "/" + GrpcUpstream.SERVICE + "/Cut",
                    "content-type",
                    type,
                    "x-grpc-web",
                    "1");
            h2.data(1, text ? Base64.getEncoder().encode(message("cut")) : message("cut"), true);
            h2.flush();
            int status = -1;
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            String outcome = null;
            while (outcome == null) {
                Optional<H2Wire.Frame> read = h2.read();
                if (read.isEmpty()) {
                    outcome = "connection closed";
                    break;
                }
                H2Wire.Frame frame = read.get();
                if (frame.type() == H2Wire.GOAWAY) {
                    outcome = "goaway";
                } else if (frame.stream() != 1) {
                    continue;
                } else if (frame.type() == H2Wire.RST_STREAM) {
                    outcome = "reset";
                } else if (frame.type() == H2Wire.HEADERS && status < 0) {
                    status = frame.status();
                    outcome = frame.endsStream() ? "ended" : null;
                } else if (frame.type() == H2Wire.HEADERS) {
                    outcome = "ended"; // HTTP trailers
                } else if (frame.type() == H2Wire.DATA) {
                    body.writeBytes(frame.payload());
                    outcome = frame.endsStream() ? "ended" : null;
                }
            }
            boolean ended = outcome.equals("ended");
            return new Outcome(
                    status,
                    ended,
                    text && ended ? Base64Groups.decodeAll(body.toByteArray()) : body.toByteArray(),
                    "h2, " + outcome);
        }
    }

    /**
     * A gRPC upstream that resets its stream (RST_STREAM NO_ERROR or CANCEL) before its trailers has
     * failed, and the gRPC-Web client must learn it: never a body that ends normally with an OK trailer
     * frame or with none. Cut between two messages, the client gets the whole messages and then a
     * trailer frame of {@code grpc-status: 14} (UNAVAILABLE) with a {@code grpc-message} ({@link
     * dev.sluice.http.GrpcWeb#cutShort}); cut inside a message, where no frame could follow, the response
     * itself fails (HTTP/1.1: no last chunk; h2: RST_STREAM), or is a 5xx. Binary and text, over
     * HTTP/1.1 (kept alive and {@code Connection: close}) and h2.
     */
    @Test
    void anUpstreamsResetBeforeItsTrailersEndsTheCallWithAnErrorStatusOrACut() throws Exception {
        byte[] first = message("first");
        byte[] second = message("second");
        byte[] third = message("x".repeat(2000));
        ByteArrayOutputStream whole = new ByteArrayOutputStream();
        whole.writeBytes(first);
        whole.writeBytes(second);
        whole.writeBytes(third);
        int between = first.length + second.length;
        List<String> problems = new ArrayList<>();
        for (int sent : new int[] {between, between + 7}) {
            for (int code : new int[] {0x0, 0x8}) { // NO_ERROR, CANCEL
                try (AnswerThenResetUpstream upstream =
                                AnswerThenResetUpstream.grpcIncomplete(whole.toByteArray(), sent, code);
                        TestGateway gw = gateway()
                                .upstream(Routes.upstream("cut", upstream.url()).protocol(UpstreamProtocol.H2C))
                                .route("cut", on("/" + GrpcUpstream.SERVICE + "/**"), proxy("cut"))
                                .start()) {
                    for (String type : List.of(WEB, TEXT)) {
                        List<Outcome> outcomes =
                                List.of(overHttp11(gw, type, false), overHttp11(gw, type, true), overHttp2(gw, type));
                        for (Outcome o : outcomes) {
                            String what = type + ", " + (sent == between ? "between messages" : "inside a message")
                                    + ", reset code " + code + ", " + o.how() + ", status " + o.status() + ", "
                                    + o.body().length + " body bytes";
                            String problem = problem(o, sent == between);
                            if (problem != null) {
                                problems.add(what + ": " + problem);
                            }
                        }
                    }
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    /** What is wrong with how a call cut short reached the client, or null. */
    private static String problem(Outcome o, boolean betweenMessages) {
        if (!o.endedNormally() || o.status() >= 500) {
            return betweenMessages ? "a cut between messages must end with an error trailer frame, not a cut" : null;
        }
        if (!betweenMessages) {
            return "a body cut inside a message ended normally";
        }
        Answer answer;
        try {
            answer = read(new java.io.ByteArrayInputStream(o.body()), m -> {});
        } catch (IOException | AssertionError e) {
            return "a body that is no gRPC-Web frames: " + e;
        }
        if (!answer.messages().equals(List.of("first", "second"))) {
            return "messages " + answer.messages();
        }
        if (!"14".equals(answer.trailers().get("grpc-status"))
                || !answer.trailers().containsKey("grpc-message")) {
            return "trailer frame " + answer.trailers();
        }
        return null;
    }
}
