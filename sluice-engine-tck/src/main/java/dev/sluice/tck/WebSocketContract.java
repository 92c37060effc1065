package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static dev.sluice.tck.Routes.requestHeaders;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.FilterConfig;
import dev.sluice.config.ServerLimits;
import dev.sluice.policy.Decision;
import dev.sluice.policy.InboundPolicy;
import dev.sluice.policy.UpstreamEdits;
import dev.sluice.spi.PolicyFactory;
import dev.sluice.spi.PolicySettings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * WebSocket through a proxy route (docs/ENGINE-CONTRACT.md, "WebSocket"): the JDK's {@code
 * java.net.http.WebSocket} client against Jetty's WebSocket server ({@link WebSocketUpstream}), the
 * gateway between them relaying the handshake and then bytes it never parses.
 */
public abstract class WebSocketContract extends ContractFixture {

    private static final String WS = "ws";
    private static final Duration WAIT = Duration.ofSeconds(20);

    private WebSocketUpstream sockets;
    private HttpClient client;

    @BeforeAll
    void startSockets() {
        sockets = WebSocketUpstream.start();
        client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    void stopSockets() {
        client.shutdownNow();
        sockets.close();
    }

    @BeforeEach
    void forgetEarlierUpgrades() {
        sockets.upgrades().clear(); // every test's upgrade reaches the upstream before that test ends
    }

    private TestGateway.Builder routes() {
        return gateway()
                .upstream(WS, sockets.url())
                .route(
                        "chat",
                        on("/chat/**"),
                        proxy(WS).stripPrefix("/chat"),
                        requestHeaders(Map.of("X-Route", "chat"), List.of()))
                .route("c", on("/c"), compose().part("a", APP, "/json/10"));
    }

    private Session connect(TestGateway gw, String target) throws Exception {
        Session session = new Session();
        WebSocket socket = client.newWebSocketBuilder()
                .header("X-Client", "jdk")
                .connectTimeout(Duration.ofSeconds(5))
                .buildAsync(URI.create("ws://" + gw.authority() + target), session)
                .get(WAIT.toSeconds(), TimeUnit.SECONDS);
        session.socket = socket;
        return session;
    }

    @Test
    void theHandshakeGoesUpstreamWithTheRoutesRewritingAndAMiBCrossesBothWays() throws Exception {
        try (TestGateway gw = routes().start()) {
            Session session = connect(gw, "/chat/ws/room?x=1");
            WebSocketUpstream.Upgrade upgrade = sockets.upgrades().poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(upgrade).as("the upstream accepted an upgrade").isNotNull();
            assertThat(upgrade.pathQuery()).isEqualTo("/ws/room?x=1");
            assertThat(upgrade.headers().get("X-Route")).containsExactly("chat");
            assertThat(upgrade.headers().get("X-Client")).containsExactly("jdk");
            assertThat(upgrade.headers().get("X-Forwarded-For")).containsExactly("127.0.0.1");
            assertThat(upgrade.headers().get("Host"))
                    .containsExactly(sockets.url().getAuthority());

            String mib = text(1 << 20);
            session.socket.sendText(mib, true).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(session.next()).isEqualTo(mib);

            byte[] binary = binary(1 << 20);
            session.socket.sendBinary(ByteBuffer.wrap(binary), true).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(session.next()).isEqualTo(binary);
            session.socket.sendClose(WebSocket.NORMAL_CLOSURE, "done");
            assertThat(session.closed.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(WebSocket.NORMAL_CLOSURE);
        }
    }

    /** The {@code 101} carries the exchange's {@code X-Request-Id}, the one its upgrade went upstream with. */
    @Test
    void theSwitchCarriesTheExchangesRequestId() throws Exception {
        try (TestGateway gw = routes().start()) {
            String head = "GET /chat/ws/id HTTP/1.1\r\nHost: " + gw.authority()
                    + "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    + "Sec-WebSocket-Version: 13\r\n\r\n";
            // the tunnel stays open: the client reads the 101's head, then stops waiting after 2 s
            WireResponse switched = gw.wire()
                    .timeout(Duration.ofSeconds(2))
                    .sendRaw(head.getBytes(StandardCharsets.ISO_8859_1), 1)
                    .responses()
                    .getFirst();
            assertThat(switched.status()).isEqualTo(101);
            WebSocketUpstream.Upgrade upgrade = sockets.upgrades().poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(upgrade).isNotNull();
            assertThat(switched.headers().get("x-request-id"))
                    .isNotNull()
                    .containsExactlyElementsOf(upgrade.headers().get("X-Request-Id"));
        }
    }

    /** A Host the route sets replaces the endpoint's on the upgrade too: one Host, as on any proxied request. */
    @Test
    void aHostTheRouteSetsIsTheUpgradesOnlyHost() throws Exception {
        try (TestGateway gw = gateway()
                .upstream(WS, sockets.url())
                .route(
                        "chat",
                        on("/chat/**"),
                        proxy(WS).stripPrefix("/chat"),
                        requestHeaders(Map.of("Host", "chat.internal"), List.of()))
                .start()) {
            Session session = connect(gw, "/chat/ws/host");
            WebSocketUpstream.Upgrade upgrade = sockets.upgrades().poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(upgrade).as("the upstream accepted an upgrade").isNotNull();
            assertThat(upgrade.headers().get("Host")).containsExactly("chat.internal");
            session.socket.sendClose(WebSocket.NORMAL_CLOSURE, "done");
            assertThat(session.closed.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(WebSocket.NORMAL_CLOSURE);
        }
    }

    @Test
    void fragmentedMessagesArriveWhole() throws Exception {
        try (TestGateway gw = routes().start()) {
            Session session = connect(gw, "/chat/ws/fragments");
            session.socket.sendText("first ", false).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            session.socket.sendText("second ", false).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            session.socket.sendText("third", true).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(session.next()).isEqualTo("first second third");

            byte[] whole = binary(300_000);
            session.socket
                    .sendBinary(ByteBuffer.wrap(whole, 0, 100_000), false)
                    .get(WAIT.toSeconds(), TimeUnit.SECONDS);
            session.socket
                    .sendBinary(ByteBuffer.wrap(whole, 100_000, 200_000), true)
                    .get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(session.next()).isEqualTo(whole);
        }
    }

    @Test
    void aCloseFromTheClientReachesTheUpstream() throws Exception {
        try (TestGateway gw = routes().start()) {
            Session session = connect(gw, "/chat/ws/client-closes");
            session.socket.sendText("hello", true).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(session.next()).isEqualTo("hello");
            session.socket.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(closeOf("/ws/client-closes"))
                    .isEqualTo(new WebSocketUpstream.Close("/ws/client-closes", WebSocket.NORMAL_CLOSURE, "done"));
            assertThat(session.closed.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(WebSocket.NORMAL_CLOSURE);
        }
    }

    @Test
    void aCloseFromTheUpstreamReachesTheClient() throws Exception {
        try (TestGateway gw = routes().start()) {
            Session session = connect(gw, "/chat/ws/upstream-closes");
            session.socket.sendText("close", true).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(session.closed.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(4000);
            assertThat(session.reason).isEqualTo("bye");
            WebSocketUpstream.Close upstreamSaw = closeOf("/ws/upstream-closes");
            assertThat(upstreamSaw).isNotNull();
            assertThat(upstreamSaw.status())
                    .as("the client's answering close frame")
                    .isEqualTo(4000);
        }
    }

    @Test
    void aSilentTunnelIsClosedAfterTheIdleTimeoutAndABusyOneIsNot() throws Exception {
        Duration idle = Duration.ofMillis(1500);
        try (TestGateway gw = routes().limits(ServerLimits.defaults().withWebsocketIdleTimeout(idle))
                .start()) {
            Session session = connect(gw, "/chat/ws/idle");
            long busyUntil = System.nanoTime() + 3 * idle.toNanos();
            int sent = 0;
            while (System.nanoTime() < busyUntil) { // a message every 250 ms: never silent for the timeout
                String message = "tick " + sent++;
                session.socket.sendText(message, true).get(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertThat(session.next()).isEqualTo(message);
                Thread.sleep(250);
            }
            assertThat(session.ended.isDone())
                    .as("a busy tunnel stays open past its idle timeout")
                    .isFalse();
            // then silent: both connections are closed by the gateway, not by either side's close
            session.ended.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            WebSocketUpstream.Close upstreamSaw = closeOf("/ws/idle");
            assertThat(upstreamSaw).as("the upstream's side closed too").isNotNull();
            assertThat(upstreamSaw.status()).as("closed without a close frame").isEqualTo(1006);
        }
    }

    @Test
    void anAnswerOtherThan101IsRelayedAsAResponse() {
        try (TestGateway gw = routes().start()) {
            WireResponse response = upgrade(gw, "GET", "/chat/refused");
            assertThat(response.status()).as("%s", response).isEqualTo(403);
            assertThat(response.bodyText()).isEqualTo(WebSocketUpstream.REFUSAL);
            assertThat(response.header("upgrade")).isEmpty();
        }
    }

    @Test
    void theRoutesPoliciesDecideOnTheHandshakeAndTheirCredentialsNeverCross() throws Exception {
        String key = "ws-key-" + System.nanoTime();
        String hash = java.util.HexFormat.of()
                .formatHex(java.security.MessageDigest.getInstance("SHA-256")
                        .digest(key.getBytes(StandardCharsets.UTF_8)));
        try (TestGateway gw = routes().route(
                        "keyed",
                        on("/keyed/**"),
                        proxy(WS).stripPrefix("/keyed"),
                        new dev.sluice.config.FilterConfig.ApiKey(
                                java.util.Optional.of("x-api-key"), java.util.Optional.empty(), Map.of("ci", hash)))
                .start()) {
            assertError(upgrade(gw, "GET", "/keyed/ws/without-key"), 401, "unauthorized");
            assertThat(sockets.upgrades())
                    .as("a refused handshake reaches no upstream")
                    .isEmpty();

            Session session = new Session();
            session.socket = client.newWebSocketBuilder()
                    .header("X-Api-Key", key)
                    .buildAsync(URI.create("ws://" + gw.authority() + "/keyed/ws/with-key"), session)
                    .get(WAIT.toSeconds(), TimeUnit.SECONDS);
            WebSocketUpstream.Upgrade upgrade = sockets.upgrades().poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(upgrade).isNotNull();
            assertThat(upgrade.headers()).doesNotContainKey("x-api-key");
            session.socket.sendText("with a key", true).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(session.next()).isEqualTo("with a key");
        }
    }

    @Test
    void a101ToAnotherProtocolIsABadResponse() {
        try (RawUpstream h2c = RawUpstream.answering(
                        "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n");
                TestGateway gw = routes().upstream("h2c", h2c.url())
                        .route("h2c", on("/h2c/**"), proxy("h2c").stripPrefix("/h2c"))
                        .start()) {
            assertError(upgrade(gw, "GET", "/h2c/ws"), 502, "bad_response");
        }
    }

    /**
     * The upstream's switch to another protocol is a failed call, reported so (the core's {@code
     * WebSocketUpgrade.switchProblem}), never an answered one: the reactive engine reported it
     * answered with 101 while the blocking engines reported a bad response.
     */
    @Test
    void a101ToAnotherProtocolIsReportedAsAFailedCall() throws InterruptedException {
        BlockingQueue<dev.sluice.observe.UpstreamEvent> calls = new LinkedBlockingQueue<>();
        dev.sluice.observe.GatewayObserver observer = new dev.sluice.observe.GatewayObserver() {
            @Override
            public void upstream(dev.sluice.observe.UpstreamEvent event) {
                calls.add(event);
            }
        };
        try (RawUpstream h2c = RawUpstream.answering(
                        "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n");
                TestGateway gw = routes().upstream("h2c", h2c.url())
                        .route("h2c", on("/h2c/**"), proxy("h2c").stripPrefix("/h2c"))
                        .observer(observer)
                        .start()) {
            assertError(upgrade(gw, "GET", "/h2c/ws"), 502, "bad_response");
            dev.sluice.observe.UpstreamEvent event = calls.poll(10, TimeUnit.SECONDS);
            assertThat(event).as("an upstream event within 10 s").isNotNull();
            assertThat(event.outcome()).as("%s", event).isEqualTo(dev.sluice.observe.UpstreamOutcome.INVALID);
        }
    }

    /**
     * An upstream's refusal of an upgrade is an upstream response like any other: the core's {@code
     * ResponseHeadCheck} judges its head (a head it refuses is {@code 502 bad_response}), with the
     * same head limit ({@code ResponseHeadCheck.MAX_HEAD_BYTES}, 32 KiB) as every other response.
     */
    @Test
    void aRefusalWithABadHeadIsABadResponse() {
        List<String> bad = List.of(
                "HTTP/1.1 403 Forbidden\r\nTransfer-Encoding: gzip, chunked\r\n\r\n4\r\nnope\r\n0\r\n\r\n",
                "HTTP/1.1 204 No Content\r\nContent-Length: 4\r\n\r\n",
                "HTTP/1.1 403 Forbidden\r\n" + "X-N: v\r\n".repeat(dev.sluice.http.ResponseHeadCheck.MAX_HEADERS)
                        + "Content-Length: 4\r\n\r\nnope");
        for (String answer : bad) {
            try (RawUpstream refusing = RawUpstream.answering(answer);
                    TestGateway gw = routes().upstream("refusing", refusing.url())
                            .route(
                                    "refusing",
                                    on("/refusing/**"),
                                    proxy("refusing").stripPrefix("/refusing"))
                            .start()) {
                WireResponse response = upgrade(gw, "GET", "/refusing/ws");
                assertThat(response.status())
                        .as("%s for %s", response, answer.substring(0, Math.min(60, answer.length())))
                        .isEqualTo(502);
                assertError(response, 502, "bad_response");
            }
        }
    }

    @Test
    void aRefusalWithAHeadOfMoreThan8KiBWithinTheLimitIsRelayed() {
        String big = "b".repeat(20 * 1024); // over a default decoder's 8 KiB, within the 32 KiB limit
        try (RawUpstream refusing = RawUpstream.answering(
                        "HTTP/1.1 403 Forbidden\r\nX-Big: " + big + "\r\nContent-Length: 4\r\n\r\nnope");
                TestGateway gw = routes().upstream("refusing", refusing.url())
                        .route("refusing", on("/refusing/**"), proxy("refusing").stripPrefix("/refusing"))
                        .start()) {
            WireResponse response = upgrade(gw, "GET", "/refusing/ws");
            assertThat(response.status()).as("%s", response).isEqualTo(403);
            assertThat(response.header("X-Big")).hasValue(big);
            assertThat(response.bodyText()).isEqualTo("nope");
        }
    }

    /**
     * A header value with a CR, LF or NUL never goes into an upgrade's head, nor into any request head.
     * Client headers, route sets, claims and decoded path variables are refused before; a team's
     * policy's edits are the core's ({@code UpstreamEdits.of} refuses them, so the policy fails: {@code
     * 500 policy_failed}). Every engine sent such an upgrade before, the injected header with it.
     */
    @Test
    void anUpgradeWhoseHeadWouldHoldACrLfIsNeverSent() {
        PolicyFactory crlf = new PolicyFactory() {
            @Override
            public String name() {
                return "tck-crlf";
            }

            @Override
            public InboundPolicy create(PolicySettings settings) {
                return request -> Decision.Proceed.with( // a value made per request, as a claim's would be
                        Map.of(), UpstreamEdits.of(Map.of("X-Tenant", "a\r\nX-Injected: 1"), List.of(), List.of()));
            }
        };
        try (TestGateway gw = routes().route(
                        "crlf",
                        on("/crlf/**"),
                        proxy(WS).stripPrefix("/crlf"),
                        new FilterConfig.Custom(crlf, PolicySettings.EMPTY))
                .start()) {
            WireResponse response = upgrade(gw, "GET", "/crlf/ws/injected");
            assertError(response, 500, "policy_failed");
            assertThat(sockets.upgrades()).as("no upgrade reached the upstream").isEmpty();
        }
    }

    @Test
    void anUpgradeOnACompositionIsRefused() {
        try (TestGateway gw = routes().start()) {
            assertError(upgrade(gw, "GET", "/c"), 400, "bad_request");
        }
    }

    @Test
    void aMalformedUpgradeIsRefused() {
        try (TestGateway gw = routes().start()) {
            assertError(upgrade(gw, "POST", "/chat/ws/post"), 400, "bad_request");
            WireClient.RawExchange noKey = gw.wire()
                    .sendRaw(
                            ("GET /chat/ws/nokey HTTP/1.1\r\nHost: " + gw.authority()
                                            + "\r\nConnection: Upgrade, close\r\nUpgrade: websocket\r\n"
                                            + "Sec-WebSocket-Version: 13\r\n\r\n")
                                    .getBytes(StandardCharsets.ISO_8859_1),
                            1);
            assertError(noKey.responses().getFirst(), 400, "bad_request");
            assertThat(sockets.upgrades()).as("nothing reached the upstream").isEmpty();
        }
    }

    /** How the upstream saw the session on {@code path} end: waits for it, skipping earlier tests' sessions. */
    private WebSocketUpstream.Close closeOf(String path) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            WebSocketUpstream.Close close =
                    sockets.closes().poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (close == null || close.path().equals(path)) {
                return close;
            }
        }
    }

    /** A well-formed handshake written by hand; its {@code Connection: close} ends the exchange with the answer. */
    private static WireResponse upgrade(TestGateway gw, String method, String target) {
        String head = method + " " + target + " HTTP/1.1\r\nHost: " + gw.authority()
                + "\r\nConnection: Upgrade, close\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                + "Sec-WebSocket-Version: 13\r\n\r\n";
        return gw.wire()
                .sendRaw(head.getBytes(StandardCharsets.ISO_8859_1), 1)
                .responses()
                .getFirst();
    }

    private static byte[] binary(int length) {
        byte[] bytes = new byte[length];
        GeneratedBody.binary(length).fill(0, bytes, length);
        return bytes;
    }

    private static String text(int length) {
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; text.length() < length; i++) {
            text.append((char) ('a' + i % 26));
        }
        return text.toString();
    }

    /** A client session: whole messages as they complete, and how it ended. */
    private static final class Session implements WebSocket.Listener {
        private final BlockingQueue<Object> messages = new LinkedBlockingQueue<>();
        private final StringBuilder text = new StringBuilder();
        private final java.io.ByteArrayOutputStream binary = new java.io.ByteArrayOutputStream();
        final CompletableFuture<Integer> closed = new CompletableFuture<>();
        /** Completes when the session ends in any way: a close, an error, the connection gone. */
        final CompletableFuture<Void> ended = new CompletableFuture<>();

        volatile String reason;
        WebSocket socket;

        Object next() throws InterruptedException {
            Object message = messages.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(message).as("a message within %s", WAIT).isNotNull();
            return message;
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                messages.add(text.toString());
                text.setLength(0);
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
            byte[] bytes = new byte[data.remaining()];
            data.get(bytes);
            binary.writeBytes(bytes);
            if (last) {
                messages.add(binary.toByteArray());
                binary.reset();
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            this.reason = reason;
            closed.complete(statusCode);
            ended.complete(null);
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            closed.completeExceptionally(error);
            ended.complete(null);
        }
    }
}
