package dev.sluice.tck;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.FilterConfig;
import dev.sluice.config.ServerLimits;
import dev.sluice.config.UpstreamProtocol;
import dev.sluice.config.UpstreamResilience;
import dev.sluice.config.UpstreamTlsConfig;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * HTTP/2 to upstreams ({@code protocol: h2c}) and gRPC proxying, in every engine: a real grpc-java
 * service behind the gateway and a grpc-java client in front of it (plaintext h2c on loopback), the
 * gateway's own refusals answered as gRPC statuses ({@link dev.sluice.http.GrpcStatus}), and plain HTTP
 * to an h2c-only Jetty upstream, bodies byte for byte and trailers relayed.
 */
public abstract class GrpcContract extends ContractFixture {

    /** Room for an h2 session to a live grpc-java service to open on a loaded machine (the default is 1 s). */
    private static final java.time.Duration LIVE_CONNECT = java.time.Duration.ofSeconds(10);

    private static final String GRPC = "grpc";
    private static final String H2C = "h2c";

    @org.junit.jupiter.api.io.TempDir
    java.nio.file.Path dir;

    private GrpcUpstream service;
    private H2cUpstream plain;

    @BeforeAll
    void startServices() {
        service = GrpcUpstream.start();
        plain = H2cUpstream.start();
    }

    @AfterAll
    void stopServices() {
        service.close();
        plain.close();
    }

    private TestGateway.Builder grpcGateway() {
        return gateway()
                .upstream(Routes.upstream(GRPC, service.url())
                        .connectTimeout(LIVE_CONNECT)
                        .protocol(UpstreamProtocol.H2C))
                .upstream(Routes.upstream(H2C, plain.url())
                        .connectTimeout(LIVE_CONNECT)
                        .readTimeout(Duration.ofSeconds(20))
                        .protocol(UpstreamProtocol.H2C));
    }

    private static <T> T withChannel(TestGateway gw, java.util.function.Function<ManagedChannel, T> call)
            throws InterruptedException {
        ManagedChannel channel = GrpcUpstream.channel(gw.port());
        try {
            return call.apply(channel);
        } finally {
            channel.shutdownNow();
            channel.awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aUnaryCallIsProxiedToAnH2cUpstreamWithItsMessageAndStatus() throws Exception {
        try (TestGateway gw = grpcGateway()
                .route("echo", on("/" + GrpcUpstream.SERVICE + "/**"), proxy(GRPC))
                .start()) {
            String reply = withChannel(
                    gw, ch -> ClientCalls.blockingUnaryCall(ch, GrpcUpstream.SAY, GrpcUpstream.options(), "sluice"));
            assertThat(reply).isEqualTo("hello sluice");
            // several calls multiplexed on the gateway's connection to the service
            List<String> replies = withChannel(gw, ch -> {
                List<String> all = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    all.add(ClientCalls.blockingUnaryCall(ch, GrpcUpstream.SAY, GrpcUpstream.options(), "n" + i));
                }
                return all;
            });
            assertThat(replies).hasSize(20).first().isEqualTo("hello n0");
        }
    }

    @Test
    void aServerStreamingCallReceivesEveryMessage() throws Exception {
        try (TestGateway gw = grpcGateway()
                .route("echo", on("/" + GrpcUpstream.SERVICE + "/**"), proxy(GRPC))
                .start()) {
            List<String> received = withChannel(gw, ch -> {
                List<String> all = new ArrayList<>();
                Iterator<String> stream =
                        ClientCalls.blockingServerStreamingCall(ch, GrpcUpstream.COUNT, GrpcUpstream.options(), "2000");
                stream.forEachRemaining(all::add);
                return all;
            });
            assertThat(received).hasSize(2000);
            assertThat(received.getFirst()).isEqualTo("1");
            assertThat(received.getLast()).isEqualTo("2000");
        }
    }

    @Test
    void theServicesErrorStatusAndMessageReachTheClient() throws Exception {
        try (TestGateway gw = grpcGateway()
                .route("echo", on("/" + GrpcUpstream.SERVICE + "/**"), proxy(GRPC))
                .start()) {
            StatusRuntimeException failure = withChannel(
                    gw,
                    ch -> catchStatus(() -> ClientCalls.blockingUnaryCall(
                            ch, GrpcUpstream.FAIL, GrpcUpstream.options(), "no such greeting")));
            assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
            assertThat(failure.getStatus().getDescription()).isEqualTo("no such greeting");
        }
    }

    /**
     * A client stream (one message of 300 KB among small ones) reaches the service whole and in order,
     * and the service's answer and its own trailer come back.
     */
    @Test
    void aClientStreamingCallIsProxiedWithItsTrailers() throws Exception {
        String big = "0123456789abcdef".repeat(300 * 1024 / 16);
        try (TestGateway gw = grpcGateway()
                .route("echo", on("/" + GrpcUpstream.SERVICE + "/**"), proxy(GRPC))
                .start()) {
            Recorded call = withChannel(gw, ch -> {
                Recorded recorded = Recorded.start(ch, GrpcUpstream.COLLECT);
                recorded.call.sendMessage("a");
                recorded.call.sendMessage(big);
                recorded.call.sendMessage("c");
                recorded.call.halfClose();
                return recorded.awaitClose();
            });
            assertThat(call.status.getCode()).isEqualTo(Status.Code.OK);
            assertThat(call.messages).containsExactly("a," + big + ",c");
            assertThat(call.trailers.get(GrpcUpstream.COUNT_TRAILER)).isEqualTo("3");
        }
    }

    /**
     * Bidi streaming: the client sends its second message only after the answer to its first has come
     * back, so a gateway that held either direction until its end would stall the call.
     */
    @Test
    void aBidiStreamingCallIsRelayedMessageByMessageBothWays() throws Exception {
        try (TestGateway gw = grpcGateway()
                .route("echo", on("/" + GrpcUpstream.SERVICE + "/**"), proxy(GRPC))
                .start()) {
            Recorded call = withChannel(gw, ch -> {
                Recorded recorded = Recorded.start(ch, GrpcUpstream.CHAT);
                recorded.call.sendMessage("one");
                assertThat(recorded.next())
                        .as("the answer to the first message")
                        .isEqualTo("echo one");
                recorded.call.sendMessage("two");
                assertThat(recorded.next())
                        .as("the answer to the second message")
                        .isEqualTo("echo two");
                recorded.call.halfClose();
                return recorded.awaitClose();
            });
            assertThat(call.status.getCode()).isEqualTo(Status.Code.OK);
            assertThat(call.trailers.get(GrpcUpstream.COUNT_TRAILER)).isEqualTo("2");
        }
    }

    /**
     * The client asks for 64 messages of 1 KiB at a time and reads them slowly: the service, sending only
     * while its call is ready, is never more than a bounded number of messages (windows and socket buffers
     * on the way) ahead of what the client has taken, far below the whole 64 MiB stream.
     */
    @Test
    void aSlowReaderSlowsTheServicesStream() throws Exception {
        int messages = 64 * 1024;
        long bound = 16 * 1024; // 16 MiB of 1 KiB messages
        service.resetFlood();
        try (TestGateway gw = grpcGateway()
                .route("echo", on("/" + GrpcUpstream.SERVICE + "/**"), proxy(GRPC))
                .start()) {
            ManagedChannel channel = io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder.forAddress(
                            "127.0.0.1", gw.port())
                    .usePlaintext()
                    .flowControlWindow(64 * 1024) // fixed: no window tuning on the client
                    .build();
            try {
                Recorded recorded = Recorded.start(channel, GrpcUpstream.FLOOD, 0);
                recorded.call.sendMessage(messages + ":1024");
                recorded.call.halfClose();
                long read = 0;
                long mostAhead = 0;
                while (read < messages) {
                    recorded.call.request(64);
                    for (int i = 0; i < 64; i++) {
                        assertThat(recorded.next()).hasSize(1024);
                    }
                    read += 64;
                    long ahead = service.floodSent() - read;
                    mostAhead = Math.max(mostAhead, ahead);
                    assertThat(ahead)
                            .as("messages the service sent ahead of the client at %d", read)
                            .isLessThan(bound);
                    if (read % 1024 == 0) {
                        Thread.sleep(2); // a slow reader: the service has time to run ahead if nothing holds it
                    }
                }
                assertThat(mostAhead)
                        .as("the service ran ahead at least a little")
                        .isPositive();
                Recorded done = recorded.awaitClose();
                assertThat(done.status.getCode()).isEqualTo(Status.Code.OK);
                assertThat(done.count).isEqualTo(messages);
            } finally {
                channel.shutdownNow();
                channel.awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * 100,000 messages of 1 KiB (100 MB) from the service through a gateway in a child JVM with a 64 MB
     * heap: every message arrives and the gateway lives, so nothing of the stream piles up in it.
     */
    @Test
    void aServerStreamOf100000MessagesPassesAGatewayWithASmallHeap() throws Exception {
        int messages = 100_000;
        java.nio.file.Path config = dir.resolve("grpc-child.yaml");
        java.nio.file.Files.writeString(
                config, """
                server: { host: 127.0.0.1, port: 0, engine: %s, transport: %s }
                upstreams:
                  grpc: { url: "%s", protocol: h2c }
                routes:
                  - id: echo
                    match: { path: "/%s/**" }
                    proxy: { upstream: grpc }
                logging: { level: warn }
                """.formatted(mode().key(), transport().key(), service.url(), GrpcUpstream.SERVICE));
        try (ChildGateway child = ChildGateway.start(config)) {
            ManagedChannel channel = GrpcUpstream.channel(child.port());
            try {
                Recorded recorded = Recorded.start(channel, GrpcUpstream.FLOOD, 0);
                recorded.countOnly = true; // 100 MB: counted, not kept
                recorded.call.sendMessage(messages + ":1024");
                recorded.call.halfClose();
                recorded.call.request(Integer.MAX_VALUE);
                Recorded done = recorded.awaitClose(Duration.ofSeconds(120), true);
                assertThat(child.isAlive())
                        .as("the 64 MB gateway survived; stderr:%n%s", child.stderr())
                        .isTrue();
                assertThat(done.status.getCode()).as("%s", done.status).isEqualTo(Status.Code.OK);
                assertThat(done.count).isEqualTo(messages);
                for (String output : List.of(child.stderr(), child.stdout())) {
                    assertThat(output)
                            .doesNotContain("OutOfMemoryError", "OutOfDirectMemoryError", "Exception in thread");
                }
            } finally {
                channel.shutdownNow();
                channel.awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * The upstream never answers and the route has no timeout: only the call's {@code grpc-timeout}
     * ends it, answered DEADLINE_EXCEEDED long before the upstream's 20 s read timeout.
     */
    @Test
    void grpcTimeoutIsTheCallsDeadline() throws Exception {
        try (TestGateway gw =
                grpcGateway().route("stall", on("/stall"), proxy(H2C)).start()) {
            long began = System.nanoTime();
            HttpResponse<byte[]> response = send(
                    gw,
                    HttpRequest.newBuilder(gw.uri("/stall"))
                            .timeout(Duration.ofSeconds(15))
                            .header("content-type", "application/grpc")
                            .header("grpc-timeout", "300m")
                            .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[] {0, 0, 0, 0, 0})));
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("content-type")).hasValue("application/grpc");
            assertThat(response.headers().firstValue("grpc-status")).hasValue("4"); // DEADLINE_EXCEEDED
            assertThat(millis).as("answered at the call's deadline").isBetween(250L, 10_000L);
        }
    }

    @Test
    void theGatewaysRefusalsArriveAsGrpcStatuses() throws Exception {
        String key = "grpc-contract-key";
        try (TestGateway gw = grpcGateway()
                .upstream(Routes.upstream("down", refusedUrl()).protocol(UpstreamProtocol.H2C))
                .route(
                        "keyed",
                        on("/" + GrpcUpstream.SERVICE + "/**"),
                        proxy(GRPC),
                        new FilterConfig.ApiKey(Optional.of("x-api-key"), Optional.empty(), Map.of("ci", sha256(key))))
                .route("down", on("/sluice.test.Down/**"), proxy("down"))
                .route(
                        "denied",
                        on("/sluice.test.Denied/**"),
                        proxy(GRPC),
                        new FilterConfig.IpFilter(List.of(), List.of("127.0.0.1"), List.of()))
                .route(
                        "limited",
                        on("/sluice.test.Limited/**"),
                        proxy(GRPC),
                        new FilterConfig.RateLimit(
                                FilterConfig.RateKey.route(),
                                1,
                                Duration.ofHours(1),
                                0,
                                FilterConfig.RateLimit.Store.LOCAL,
                                false))
                .start()) {
            MethodDescriptor<String, String> unrouted =
                    GrpcUpstream.method("sluice.test.Nowhere", "Call", MethodDescriptor.MethodType.UNARY);
            MethodDescriptor<String, String> down =
                    GrpcUpstream.method("sluice.test.Down", "Call", MethodDescriptor.MethodType.UNARY);
            MethodDescriptor<String, String> denied =
                    GrpcUpstream.method("sluice.test.Denied", "Call", MethodDescriptor.MethodType.UNARY);
            MethodDescriptor<String, String> limited =
                    GrpcUpstream.method("sluice.test.Limited", "Call", MethodDescriptor.MethodType.UNARY);
            withChannel(gw, ch -> {
                io.grpc.Metadata withKey = new io.grpc.Metadata();
                withKey.put(io.grpc.Metadata.Key.of("x-api-key", io.grpc.Metadata.ASCII_STRING_MARSHALLER), key);
                io.grpc.Channel keyed = io.grpc.ClientInterceptors.intercept(
                        ch, io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(withKey));
                assertThat(ClientCalls.blockingUnaryCall(keyed, GrpcUpstream.SAY, GrpcUpstream.options(), "key"))
                        .as("the API key policy applies to a gRPC route as to any")
                        .isEqualTo("hello key");
                assertThat(code(() -> ClientCalls.blockingUnaryCall(ch, denied, GrpcUpstream.options(), "x")))
                        .as("ip-filter: 403")
                        .isEqualTo(Status.Code.PERMISSION_DENIED);
                // the first call takes the one permit (the service answers UNIMPLEMENTED: no such method)
                assertThat(code(() -> ClientCalls.blockingUnaryCall(ch, limited, GrpcUpstream.options(), "x")))
                        .as("the service's own answer")
                        .isEqualTo(Status.Code.UNIMPLEMENTED);
                assertThat(code(() -> ClientCalls.blockingUnaryCall(ch, limited, GrpcUpstream.options(), "x")))
                        .as("rate-limit: 429")
                        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                assertThat(code(() -> ClientCalls.blockingUnaryCall(ch, unrouted, GrpcUpstream.options(), "x")))
                        .as("no route: 404")
                        .isEqualTo(Status.Code.UNIMPLEMENTED);
                assertThat(code(() -> ClientCalls.blockingUnaryCall(ch, GrpcUpstream.SAY, GrpcUpstream.options(), "x")))
                        .as("no API key: 401")
                        .isEqualTo(Status.Code.UNAUTHENTICATED);
                assertThat(code(() -> ClientCalls.blockingUnaryCall(ch, down, GrpcUpstream.options(), "x")))
                        .as("connection refused: 502")
                        .isEqualTo(Status.Code.UNAVAILABLE);
                return null;
            });
        }
    }

    /** The observer's exchange event (the access log's line) carries the status the client got. */
    @Test
    void theExchangeEventCarriesTheGrpcStatusTheClientGot() throws Exception {
        java.util.concurrent.LinkedBlockingQueue<dev.sluice.observe.ExchangeEvent> events =
                new java.util.concurrent.LinkedBlockingQueue<>();
        dev.sluice.observe.GatewayObserver recorder = new dev.sluice.observe.GatewayObserver() {
            @Override
            public void exchange(dev.sluice.observe.ExchangeEvent event) {
                events.add(event);
            }
        };
        try (TestGateway gw = grpcGateway()
                .observer(recorder)
                .route("echo", on("/" + GrpcUpstream.SERVICE + "/**"), proxy(GRPC))
                .start()) {
            MethodDescriptor<String, String> unrouted =
                    GrpcUpstream.method("sluice.test.Nowhere", "Call", MethodDescriptor.MethodType.UNARY);
            withChannel(gw, ch -> {
                ClientCalls.blockingUnaryCall(ch, GrpcUpstream.SAY, GrpcUpstream.options(), "x");
                catchStatus(() -> ClientCalls.blockingUnaryCall(ch, GrpcUpstream.FAIL, GrpcUpstream.options(), "x"));
                catchStatus(() -> ClientCalls.blockingUnaryCall(ch, unrouted, GrpcUpstream.options(), "x"));
                return null;
            });
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                dev.sluice.observe.ExchangeEvent event = events.poll(10, TimeUnit.SECONDS);
                assertThat(event).as("exchange event %d", i).isNotNull();
                statuses.add(event.grpcStatus());
            }
            assertThat(statuses).containsExactly(0, 5, 12); // OK, the service's NOT_FOUND, no route
        }
    }

    @Test
    void aPlainRequestBodyOfSeveralMegabytesIsProxiedOverH2cByteForByte() throws Exception {
        GeneratedBody body = GeneratedBody.binary(6 << 20);
        try (TestGateway gw =
                grpcGateway().route("echo", on("/echo"), proxy(H2C)).start()) {
            HttpResponse<byte[]> response = send(
                    gw,
                    HttpRequest.newBuilder(gw.uri("/echo"))
                            .POST(HttpRequest.BodyPublishers.ofInputStream(body::stream)));
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body().length).isEqualTo(body.length());
            assertThat(response.body()).isEqualTo(body.bytes());
        }
    }

    @Test
    void anH2cUpstreamsTrailersReachAnHttp2ClientAndAnHttp11ClientThatAsksForThem() throws Exception {
        try (TestGateway gw =
                grpcGateway().route("trailers", on("/trailers"), proxy(H2C)).start()) {
            try (H2Wire h2 = H2Wire.connect(gw.port())) {
                h2.get(1, gw.authority(), "/trailers");
                H2Wire.Frame head = h2.readUntil(H2Wire.HEADERS).orElseThrow();
                assertThat(head.status()).isEqualTo(200);
                H2Wire.Frame trailers = h2.readUntil(H2Wire.HEADERS).orElseThrow();
                assertThat(trailers.endsStream()).isTrue();
                assertThat(trailers.header("x-trailer")).isEqualTo("yes");
            }
            String http11 = rawHttp11(
                    gw.port(),
                    "GET /trailers HTTP/1.1\r\nHost: " + gw.authority()
                            + "\r\nTE: trailers\r\nConnection: close\r\n\r\n");
            assertThat(http11).startsWith("HTTP/1.1 200").containsIgnoringCase("transfer-encoding: chunked");
            assertThat(http11.substring(http11.indexOf("\r\n0\r\n"))).containsIgnoringCase("x-trailer: yes");
        }
    }

    /**
     * Whether an HTTP/1.1 client takes trailers is the core's {@code ClientTrailers}: the {@code
     * trailers} token in any {@code TE} field (the reactive engine read only the first field), never a
     * token that merely contains the word (both engines matched a substring).
     */
    @Test
    void anHttp11ClientTakesTrailersOnlyWhenATeFieldListsTheToken() throws Exception {
        try (TestGateway gw =
                grpcGateway().route("trailers", on("/trailers"), proxy(H2C)).start()) {
            String secondField = rawHttp11(
                    gw.port(),
                    "GET /trailers HTTP/1.1\r\nHost: " + gw.authority()
                            + "\r\nTE: gzip\r\nTE: trailers\r\nConnection: close\r\n\r\n");
            assertThat(secondField).startsWith("HTTP/1.1 200").containsIgnoringCase("transfer-encoding: chunked");
            assertThat(secondField.substring(secondField.indexOf("\r\n0\r\n")))
                    .as("TE: trailers in a second field")
                    .containsIgnoringCase("x-trailer: yes");
            String lookalike = rawHttp11(
                    gw.port(),
                    "GET /trailers HTTP/1.1\r\nHost: " + gw.authority()
                            + "\r\nTE: x-trailers\r\nConnection: close\r\n\r\n");
            assertThat(lookalike).startsWith("HTTP/1.1 200").endsWith("body"); // framed as the engine likes
            assertThat(lookalike)
                    .as("TE: x-trailers is not the trailers token")
                    .doesNotContainIgnoringCase("x-trailer");
        }
    }

    /**
     * An h2c upstream may answer whole (END_STREAM, or its trailers) and then end the request half it no
     * longer needs with RST_STREAM(NO_ERROR) (RFC 9113 8.1): the client gets the whole answer, not a
     * reset. The request's body is still being sent (the client never ends it; the upstream grants it
     * no window), so the reset comes while the gateway's request half is open. The body is one DATA
     * frame, or three (48 KiB, within the initial window): with the reset they may come before the
     * gateway has read them, and must not be discarded. Each round is a new client connection, while
     * the gateway's connection to the upstream carries stream after stream (the upstream keeps the
     * connection's window, which the earlier streams' answers leave below 48 KiB until the gateway
     * updates it). Once the clients are gone, the gateway's close is prompt (well within 5 s): no
     * connection those calls used is left for it to wait out.
     */
    @Test
    void anUpstreamsResetAfterItsWholeAnswerLeavesTheClientTheWholeAnswer() throws Exception {
        wholeAnswersThenResets(4 * 1024, 48 * 1024);
    }

    /**
     * As {@link #anUpstreamsResetAfterItsWholeAnswerLeavesTheClientTheWholeAnswer}, for an answer larger
     * than the initial window (256 KiB): the upstream sends it as the gateway's WINDOW_UPDATEs allow (the
     * client grants the gateway window as it reads), the reset right after its last frame.
     */
    @Test
    void anUpstreamsResetAfterAWholeAnswerLargerThanItsWindowLeavesTheClientTheWholeAnswer() throws Exception {
        wholeAnswersThenResets(256 * 1024);
    }

    /**
     * As {@link #anUpstreamsResetAfterItsWholeAnswerLeavesTheClientTheWholeAnswer}, at {@code
     * max-connections: 1}: a client that leaves once it has its answer (its request body never ended)
     * frees its connection then, so the next client, on a connection of its own, is served. The
     * reactive engine kept such a connection open, half-closed, until the gateway closed.
     */
    @Test
    void aClientThatLeavesAfterAnAnswerWhoseRequestTheUpstreamResetFreesItsConnection() throws Exception {
        ServerLimits d = ServerLimits.defaults();
        wholeAnswersThenResets(
                new ServerLimits(
                        d.maxRequestLine(),
                        d.maxHeaderBytes(),
                        d.maxHeaders(),
                        d.maxBody(),
                        d.headerTimeout(),
                        d.idleTimeout(),
                        1,
                        d.maxRequests()),
                4 * 1024);
    }

    private void wholeAnswersThenResets(int... sizes) throws Exception {
        wholeAnswersThenResets(ServerLimits.defaults(), sizes);
    }

    private void wholeAnswersThenResets(ServerLimits limits, int... sizes) throws Exception {
        for (int size : sizes) {
            for (boolean withTrailers : new boolean[] {false, true}) {
                byte[] expected = GeneratedBody.binary(size).bytes();
                try (AnswerThenResetUpstream upstream = AnswerThenResetUpstream.start(size, withTrailers);
                        TestGateway gw = gateway()
                                .limits(limits)
                                .upstream(Routes.upstream("resets", upstream.url())
                                        .protocol(UpstreamProtocol.H2C))
                                .route("resets", on("/upload"), proxy("resets"))
                                .start()) {
                    for (int round = 0; round < 10; round++) {
                        try (H2Wire h2 = H2Wire.connect(gw.port())) {
                            h2.openRequest(1, "POST", gw.authority(), "/upload");
                            h2.data(1, new byte[16 * 1024], false);
                            String what = size + " bytes " + (withTrailers ? "with trailers" : "ended by DATA")
                                    + ", round " + round;
                            java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
                            H2Wire.Frame head = null;
                            H2Wire.Frame last = null;
                            while (last == null) {
                                H2Wire.Frame frame = h2.read()
                                        .orElseThrow(() -> new AssertionError(
                                                "the gateway closed the connection before the answer ended: " + what));
                                if (frame.type() == H2Wire.GOAWAY
                                        || frame.stream() == 1 && frame.type() == H2Wire.RST_STREAM) {
                                    last = frame;
                                } else if (frame.stream() == 1 && frame.type() == H2Wire.HEADERS && head == null) {
                                    head = frame;
                                    last = frame.endsStream() ? frame : null;
                                } else if (frame.stream() == 1 && frame.type() == H2Wire.HEADERS) {
                                    last = frame;
                                } else if (frame.stream() == 1 && frame.type() == H2Wire.DATA) {
                                    body.writeBytes(frame.payload());
                                    last = frame.endsStream() ? frame : null;
                                    if (last == null && frame.payload().length > 0) { // read: more window
                                        h2.windowUpdate(0, frame.payload().length);
                                        h2.windowUpdate(1, frame.payload().length);
                                        h2.flush();
                                    }
                                }
                            }
                            assertThat(last.type())
                                    .as(
                                            "how the answer ended (%s): frame type %d, reset code %s, after %s and %d body bytes",
                                            what,
                                            last.type(),
                                            last.type() == H2Wire.RST_STREAM ? last.resetCode() : "-",
                                            head == null ? "no head" : "status " + head.status(),
                                            body.size())
                                    .isIn(H2Wire.DATA, H2Wire.HEADERS);
                            assertThat(head).as(what).isNotNull();
                            assertThat(head.status()).as(what).isEqualTo(200);
                            assertThat(body.toByteArray()).as(what).isEqualTo(expected);
                            if (withTrailers) {
                                assertThat(last.type()).as(what).isEqualTo(H2Wire.HEADERS);
                                assertThat(last.header("x-trailer")).as(what).isEqualTo("yes");
                            }
                        }
                    }
                    long closing = System.nanoTime();
                    gw.close(); // the clients are gone: nothing is left for the close to wait for
                    assertThat(Duration.ofNanos(System.nanoTime() - closing))
                            .as("the gateway's close after %d-byte answers the upstream reset", size)
                            .isLessThan(Duration.ofSeconds(5));
                }
            }
        }
    }

    /**
     * An h2c upstream that resets its stream before its answer ended (no END_STREAM, no trailers), with
     * NO_ERROR or CANCEL, has failed: the client learns it as a failure (a RST_STREAM or a 5xx to an h2
     * client; a cut connection, no last chunk, or a 5xx to an HTTP/1.1 client, kept alive or one that
     * sent {@code Connection: close}), never as an answer that ended normally with the part that came.
     */
    @Test
    void anUpstreamsResetBeforeItsAnswerEndedReachesTheClientAsAFailure() throws Exception {
        int size = 48 * 1024;
        int sent = 20 * 1024;
        for (int code : new int[] {0x0, 0x8}) { // NO_ERROR, CANCEL
            try (AnswerThenResetUpstream upstream = AnswerThenResetUpstream.incomplete(size, sent, code);
                    TestGateway gw = gateway()
                            .upstream(Routes.upstream("resets", upstream.url()).protocol(UpstreamProtocol.H2C))
                            .route("resets", on("/upload"), proxy("resets"))
                            .start()) {
                for (int round = 0; round < 5; round++) {
                    String what = "reset code " + code + ", round " + round;
                    try (H2Wire h2 = H2Wire.connect(gw.port())) {
                        h2.openRequest(1, "POST", gw.authority(), "/upload");
                        h2.data(1, new byte[16 * 1024], false);
                        H2Wire.Frame head = null;
                        int bodyBytes = 0;
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
                            } else if (frame.type() == H2Wire.HEADERS && head == null) {
                                head = frame;
                                outcome = frame.endsStream() ? "ended after the head" : null;
                            } else if (frame.type() == H2Wire.HEADERS) {
                                outcome = "ended by trailers";
                            } else if (frame.type() == H2Wire.DATA) {
                                bodyBytes += frame.payload().length;
                                outcome = frame.endsStream() ? "ended by DATA" : null;
                            }
                        }
                        boolean failed = outcome.equals("connection closed")
                                || outcome.equals("goaway")
                                || outcome.equals("reset")
                                || head != null && head.status() >= 500;
                        assertThat(failed)
                                .as(
                                        "h2 client, %s: the answer %s with status %s after %d of %d body bytes",
                                        what, outcome, head == null ? "-" : head.status(), bodyBytes, size)
                                .isTrue();
                    }
                    for (boolean close : new boolean[] {false, true}) { // Connection: close, chunked to it too
                        WireRequest request = WireRequest.get("/upload");
                        WireResponse h1 = WireClient.to(gw.port())
                                .timeout(Duration.ofSeconds(10))
                                .send(close ? request.header("Connection", "close") : request);
                        assertThat(!h1.complete() || h1.status() >= 500)
                                .as(
                                        "HTTP/1.1 client%s, %s: status %d, framing %s, complete %s, %d body bytes, %s",
                                        close ? " (Connection: close)" : "",
                                        what,
                                        h1.status(),
                                        h1.framing(),
                                        h1.complete(),
                                        h1.length(),
                                        h1.failure())
                                .isTrue();
                    }
                }
            }
        }
    }

    /**
     * An upstream that breaks HTTP/2 fails the call as any upstream failure does, and leaves no stack
     * trace in the gateway's log (logs are an attack surface; the failure is the call's event and its
     * 5xx): an {@code h2c} upstream that speaks HTTP/1.1 (a misconfiguration) is 502 with a JSON reason;
     * one that commits a connection error mid-answer (a WINDOW_UPDATE of 0 on the connection) is a cut
     * answer, never a whole one. The log is read after the gateway closed, so late lines count too.
     */
    @Test
    void anUpstreamThatBreaksHttp2FailsTheCallAndLogsNoStackTrace() throws Exception {
        int size = 48 * 1024;
        try (LogCapture log = LogCapture.start()) {
            try (AnswerThenResetUpstream broken = AnswerThenResetUpstream.connectionError(size, 20 * 1024);
                    TestGateway gw = gateway()
                            .upstream(
                                    Routes.upstream("speaks-h1", upstream.url()).protocol(UpstreamProtocol.H2C))
                            .upstream(Routes.upstream("breaks-h2", broken.url()).protocol(UpstreamProtocol.H2C))
                            .route("h1", on("/h1/**"), proxy("speaks-h1").stripPrefix("/h1"))
                            .route("broken", on("/broken"), proxy("breaks-h2"))
                            .start()) {
                for (int round = 0; round < 3; round++) {
                    HttpResponse<byte[]> misconfigured = get(gw, "/h1/json/2");
                    assertThat(misconfigured.statusCode()).as("round %d", round).isEqualTo(502);
                    assertThat(misconfigured.headers().firstValue("content-type"))
                            .hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
                    WireResponse cut = WireClient.to(gw.port())
                            .timeout(Duration.ofSeconds(10))
                            .send(WireRequest.get("/broken"));
                    assertThat(!cut.complete() || cut.status() >= 500)
                            .as(
                                    "round %d: status %d, framing %s, complete %s, %d of %d body bytes",
                                    round, cut.status(), cut.framing(), cut.complete(), cut.length(), size)
                            .isTrue();
                }
            }
            for (var event : log.events()) {
                assertThat(event.getThrowableProxy())
                        .as("a stack trace in the log: %s %s", event.getLoggerName(), event.getFormattedMessage())
                        .isNull();
            }
        }
    }

    @Test
    void anHttpsUpstreamIsSpokenToOverH2ChosenByAlpnItsCertificateVerified() throws Exception {
        TestCertificates ca = TestCertificates.authority("sluice h2 upstream CA");
        TestCertificates.Issued identity = ca.serverNamedOnly("upstream.test");
        java.nio.file.Path caFile = ca.writeCertificate(dir.resolve("h2-ca.pem"));
        GeneratedBody body = GeneratedBody.binary(300 * 1024);
        try (H2cUpstream secure = H2cUpstream.start(TestCertificates.serverContext(identity, Optional.empty()));
                TestGateway gw = gateway()
                        .upstream(Routes.upstream("named", secure.url())
                                .tls(UpstreamTlsConfig.trusting(caFile).withServerName("upstream.test"))
                                .protocol(UpstreamProtocol.H2))
                        .upstream(Routes.upstream("misnamed", secure.url())
                                .tls(UpstreamTlsConfig.trusting(caFile).withServerName("elsewhere.test"))
                                .protocol(UpstreamProtocol.H2))
                        .route("named", on("/named/**"), proxy("named").stripPrefix("/named"))
                        .route("misnamed", on("/misnamed/**"), proxy("misnamed").stripPrefix("/misnamed"))
                        .start()) {
            HttpResponse<byte[]> echoed = send(
                    gw,
                    HttpRequest.newBuilder(gw.uri("/named/echo"))
                            .POST(HttpRequest.BodyPublishers.ofByteArray(body.bytes())));
            assertThat(echoed.statusCode()).isEqualTo(200);
            assertThat(echoed.body()).isEqualTo(body.bytes());
            assertError(get(gw, "/misnamed/echo"), 502, "tls_handshake");
        }
    }

    /** A refused endpoint's call is tried again on the next, over h2c as over HTTP/1.1 (the core's UpstreamCall). */
    @Test
    void aRefusedEndpointIsRetriedOnTheNextOverH2c() throws Exception {
        UpstreamResilience resilience = new UpstreamResilience(
                List.of(refusedUrl(), plain.url()),
                UpstreamResilience.Balance.ROUND_ROBIN,
                Optional.empty(),
                Optional.empty(),
                Optional.of(new UpstreamResilience.Retry(
                        2,
                        Optional.empty(),
                        Duration.ofMillis(1),
                        Duration.ofMillis(5),
                        java.util.Set.of("connect-failure"),
                        false,
                        100,
                        3,
                        64 * 1024)),
                Optional.empty());
        try (TestGateway gw = gateway()
                .upstream(Routes.upstream("pair", refusedUrl())
                        .resilience(resilience)
                        .protocol(UpstreamProtocol.H2C))
                .route("pair", on("/trailers"), proxy("pair"))
                .start()) {
            for (int i = 0; i < 4; i++) { // round robin: every other call begins on the refused endpoint
                HttpResponse<byte[]> response = get(gw, "/trailers");
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(text(response)).isEqualTo("body");
            }
        }
    }

    /** An answer the retry policy names (503) is dropped and the call tried again, over h2c too. */
    @Test
    void a503IsRetriedOverH2c() throws Exception {
        UpstreamResilience resilience = new UpstreamResilience(
                List.of(plain.url()),
                UpstreamResilience.Balance.ROUND_ROBIN,
                Optional.empty(),
                Optional.empty(),
                Optional.of(new UpstreamResilience.Retry(
                        2,
                        Optional.empty(),
                        Duration.ofMillis(1),
                        Duration.ofMillis(5),
                        java.util.Set.of("503"),
                        false,
                        100,
                        3,
                        64 * 1024)),
                Optional.empty());
        try (TestGateway gw = gateway()
                .upstream(Routes.upstream("flaky", plain.url())
                        .connectTimeout(LIVE_CONNECT)
                        .resilience(resilience)
                        .protocol(UpstreamProtocol.H2C))
                .route("flaky", on("/flaky"), proxy("flaky"))
                .start()) {
            for (int i = 0; i < 3; i++) {
                HttpResponse<byte[]> response = get(gw, "/flaky");
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(text(response)).isEqualTo("recovered");
            }
        }
    }

    /**
     * An h2c upstream's body of unknown length goes chunked to every HTTP/1.1 client, one that sent
     * {@code Connection: close} too, so that a cut would show; to an HTTP/1.0 client, even one that
     * asked to keep the connection, without chunked coding, ended by the close ({@code
     * ResponseHeadCheck.chunksUnknownLength}). The reactive engine chunked by keep-alive: never to an
     * HTTP/1.1 client that asked to close, and to an HTTP/1.0 one that asked to keep the connection.
     */
    @Test
    void aBodyOfUnknownLengthIsChunkedToEveryHttp11ClientAndNeverToHttp10() {
        int size = 40_000;
        byte[] expected = GeneratedBody.binary(size).bytes();
        try (TestGateway gw = grpcGateway().route("big", on("/big"), proxy(H2C)).start()) {
            WireClient wire = WireClient.to(gw.port()).timeout(Duration.ofSeconds(10));
            WireClient.RawExchange old = wire.sendRaw(
                    ("GET /big?" + size + " HTTP/1.0\r\nHost: " + gw.authority() + "\r\nConnection: keep-alive\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII),
                    1);
            WireResponse http10 = old.responses().getFirst();
            assertThat(http10.status()).as("%s", http10).isEqualTo(200);
            assertThat(http10.header("transfer-encoding")).as("%s", http10).isEmpty();
            assertThat(http10.framing()).isEqualTo("close");
            assertThat(http10.body()).isEqualTo(expected);
            assertThat(old.closed()).as("the close ends the body").isTrue();

            WireResponse closing = wire.send(WireRequest.get("/big?" + size).header("Connection", "close"));
            assertThat(closing.status()).isEqualTo(200);
            assertThat(closing.framing()).as("%s", closing).isEqualTo("chunked");
            assertThat(closing.complete()).isTrue();
            assertThat(closing.body()).isEqualTo(expected);
        }
    }

    /**
     * The client reads a 48 MiB response 64 KiB at a time: at every read the upstream has written at
     * most a bounded amount more (the stream's 1 MiB window, and the socket buffers on the way), so the
     * gateway demands the upstream's DATA only as the client takes it.
     */
    @Test
    void aSlowClientSlowsTheUpstreamsStream() throws Exception {
        long size = 48L << 20;
        long bound = 16L << 20; // window, socket buffers both sides, the gateway's buffer: well under the body
        GeneratedBody expected = GeneratedBody.binary(size);
        try (TestGateway gw = grpcGateway().route("big", on("/big"), proxy(H2C)).start();
                Socket socket = new Socket()) {
            long before = plain.bigWritten();
            socket.setReceiveBufferSize(64 * 1024);
            socket.connect(new InetSocketAddress("127.0.0.1", gw.port()), 5_000);
            socket.setSoTimeout(20_000);
            socket.getOutputStream()
                    .write(("GET /big?" + size + " HTTP/1.1\r\nHost: " + gw.authority()
                                    + "\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            InputStream raw = new java.io.BufferedInputStream(socket.getInputStream(), 64 * 1024);
            String head = ChunkedWire.head(raw);
            assertThat(head).startsWith("HTTP/1.1 200");
            // chunked to an HTTP/1.1 client, Connection: close or not (ResponseHeadCheck.chunksUnknownLength)
            assertThat(head.toLowerCase(java.util.Locale.ROOT)).contains("transfer-encoding: chunked");
            InputStream in = ChunkedWire.dechunked(raw);
            byte[] buffer = new byte[64 * 1024];
            byte[] want = new byte[buffer.length];
            long read = 0;
            long mostAhead = 0;
            while (read < size) {
                int n = in.read(buffer, 0, (int) Math.min(buffer.length, size - read));
                assertThat(n).as("the body ended at %d", read).isPositive();
                expected.fill(read, want, n);
                assertThat(java.util.Arrays.equals(buffer, 0, n, want, 0, n))
                        .as("bytes at %d", read)
                        .isTrue();
                read += n;
                long ahead = plain.bigWritten() - before - read;
                mostAhead = Math.max(mostAhead, ahead);
                assertThat(ahead)
                        .as("upstream bytes ahead of the client at %d", read)
                        .isLessThan(bound);
                if ((read & ((1 << 20) - 1)) == 0) {
                    Thread.sleep(2); // a slow client: the upstream has time to run ahead if nothing holds it
                }
            }
            assertThat(mostAhead).as("the upstream ran ahead at least a little").isPositive();
        }
    }

    private static String rawHttp11(int port, String request) throws Exception {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            in.transferTo(all);
            return all.toString(StandardCharsets.ISO_8859_1);
        }
    }

    private static String sha256(String key) throws java.security.NoSuchAlgorithmException {
        return java.util.HexFormat.of()
                .formatHex(java.security.MessageDigest.getInstance("SHA-256")
                        .digest(key.getBytes(StandardCharsets.UTF_8)));
    }

    private static Status.Code code(Runnable call) {
        return catchStatus(call).getStatus().getCode();
    }

    private static StatusRuntimeException catchStatus(Runnable call) {
        try {
            call.run();
        } catch (StatusRuntimeException e) {
            return e;
        }
        throw new AssertionError("the call succeeded");
    }

    /** A call made with grpc-java's ClientCall, its answer recorded as it comes. */
    private static final class Recorded extends io.grpc.ClientCall.Listener<String> {
        final java.util.concurrent.LinkedBlockingQueue<String> queue = new java.util.concurrent.LinkedBlockingQueue<>();
        final java.util.concurrent.CompletableFuture<Void> closed = new java.util.concurrent.CompletableFuture<>();
        final List<String> messages = new java.util.concurrent.CopyOnWriteArrayList<>();
        volatile boolean countOnly;
        volatile long count;
        volatile Status status;
        volatile io.grpc.Metadata trailers;
        io.grpc.ClientCall<String, String> call;

        static Recorded start(io.grpc.Channel channel, MethodDescriptor<String, String> method) {
            return start(channel, method, Integer.MAX_VALUE);
        }

        /** Starts the call with {@code request} messages asked for (the client's own flow control). */
        static Recorded start(io.grpc.Channel channel, MethodDescriptor<String, String> method, int request) {
            Recorded recorded = new Recorded();
            recorded.call = channel.newCall(method, GrpcUpstream.options().withDeadlineAfter(120, TimeUnit.SECONDS));
            recorded.call.start(recorded, new io.grpc.Metadata());
            if (request > 0) {
                recorded.call.request(request);
            }
            return recorded;
        }

        @Override
        public void onMessage(String message) {
            count++;
            if (!countOnly) {
                queue.add(message);
            }
        }

        @Override
        public void onClose(Status status, io.grpc.Metadata trailers) {
            this.status = status;
            this.trailers = trailers;
            closed.complete(null);
        }

        String next() {
            try {
                String message = queue.poll(20, TimeUnit.SECONDS);
                assertThat(message)
                        .as("a message within 20 s (closed: %s)", status)
                        .isNotNull();
                return message;
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }

        Recorded awaitClose() {
            return awaitClose(Duration.ofSeconds(60), false);
        }

        Recorded awaitClose(Duration within, boolean countOnly) {
            this.countOnly = countOnly;
            try {
                closed.get(within.toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                throw new AssertionError("the call did not end within " + within, e);
            }
            queue.drainTo(messages);
            return this;
        }
    }
}
