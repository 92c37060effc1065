package dev.sluice.tck;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.FilterConfig;
import dev.sluice.config.ServerLimits;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code server.limits}, carried out alike by every mode: a head that trickles in (slowloris) gets
 * {@code 408}, a silent connection is closed, a request over a size limit gets its JSON {@code
 * 414}/{@code 431}/{@code 413} and never reaches an upstream whole, the connection count stops the
 * accepting, and requests in flight beyond the limit get {@code 503}. Time bounds are generous: each
 * test checks what happens, and only that it happens well within a bound.
 */
public abstract class LimitsContract extends ContractFixture {

    private static final Duration BOUND = Duration.ofSeconds(15);

    private RecordingUpstream recording;

    @BeforeAll
    void startRecording() {
        recording = RecordingUpstream.start();
    }

    @AfterAll
    void stopRecording() {
        recording.close();
    }

    private static ServerLimits limits(
            int requestLine, int headerBytes, int headers, long body, Duration header, Duration idle) {
        ServerLimits d = ServerLimits.defaults();
        return new ServerLimits(
                requestLine, headerBytes, headers, body, header, idle, d.maxConnections(), d.maxRequests());
    }

    private static ServerLimits timeouts(Duration header, Duration idle) {
        ServerLimits d = ServerLimits.defaults();
        return limits(d.maxRequestLine(), d.maxHeaderBytes(), d.maxHeaders(), d.maxBody(), header, idle);
    }

    private TestGateway.Builder recorded(ServerLimits limits, FilterConfig... filters) {
        return gateway()
                .limits(limits)
                .upstream("rec", recording.url())
                .route("rec", on("/rec/**"), proxy("rec").stripPrefix("/rec"), filters)
                .route("app", on("/app/**"), proxy(APP).stripPrefix("/app"));
    }

    // ---- header-timeout and idle-timeout ----

    @Test
    void aHeadThatTricklesInIsAnswered408AtTheHeaderTimeoutAndReachesNoUpstream() throws Exception {
        int before = recording.received().size();
        try (TestGateway gw = recorded(timeouts(Duration.ofMillis(800), Duration.ofSeconds(30)))
                        .start();
                WireClient.Connection c = gw.wire().timeout(BOUND).open()) {
            long start = System.nanoTime();
            String head = "GET /rec/slow HTTP/1.1\r\nHost: h\r\nX-Trickle: " + "a".repeat(200);
            CompletableFuture<Void> trickle = CompletableFuture.runAsync(() -> {
                for (char ch : head.toCharArray()) { // a byte every 50 ms: never idle, never done
                    if (!c.write(String.valueOf(ch))) {
                        return;
                    }
                    sleep(50);
                }
            });
            WireResponse answer = c.response();
            long waited = (System.nanoTime() - start) / 1_000_000;
            assertError(answer, 408, "request_timeout");
            assertThat(answer.header("Connection")).hasValue("close");
            assertThat(waited).as("answered at the header timeout, not before").isGreaterThanOrEqualTo(700);
            assertThat(c.endedWithin(BOUND)).as("the connection closes").isTrue();
            trickle.cancel(true);
        }
        assertThat(recording.received()).as("the upstream received nothing").hasSize(before);
    }

    @Test
    void aHeadSentSlowlyButWithinTheHeaderTimeoutIsServed() {
        try (TestGateway gw = recorded(timeouts(Duration.ofSeconds(5), Duration.ofSeconds(30)))
                        .start();
                WireClient.Connection c = gw.wire().timeout(BOUND).open()) {
            String head = "GET /app/json/10 HTTP/1.1\r\nHost: h\r\n\r\n";
            for (int i = 0; i < head.length(); i += 8) {
                c.write(head.substring(i, Math.min(head.length(), i + 8)));
                sleep(40);
            }
            assertThat(c.response().status()).isEqualTo(200);
        }
    }

    @Test
    void theHeaderTimeoutCountsFromAHeadsFirstByteNotFromTheLastAnswer() {
        try (TestGateway gw = recorded(timeouts(Duration.ofMillis(600), Duration.ofSeconds(30)))
                        .start();
                WireClient.Connection c = gw.wire().timeout(BOUND).open()) {
            c.write("GET /app/json/10 HTTP/1.1\r\nHost: h\r\n\r\n");
            assertThat(c.response().status()).isEqualTo(200);
            sleep(1_500); // a keep-alive connection resting longer than the header timeout
            c.write("GET /app/json/11 HTTP/1.1\r\nHost: h\r\n\r\n");
            assertThat(c.response().status())
                    .as("the next request on the rested connection")
                    .isEqualTo(200);
        }
    }

    @Test
    void aSilentConnectionIsClosedAtTheIdleTimeoutBeforeAndBetweenRequests() {
        try (TestGateway gw = recorded(timeouts(Duration.ofSeconds(10), Duration.ofMillis(700)))
                .start()) {
            try (WireClient.Connection silent = gw.wire().timeout(BOUND).open()) {
                long start = System.nanoTime();
                assertThat(silent.endedWithin(BOUND))
                        .as("a connection that never sends")
                        .isTrue();
                assertThat((System.nanoTime() - start) / 1_000_000)
                        .as("closed at the idle timeout, not before")
                        .isGreaterThanOrEqualTo(600);
            }
            try (WireClient.Connection rested = gw.wire().timeout(BOUND).open()) {
                rested.write("GET /app/json/10 HTTP/1.1\r\nHost: h\r\n\r\n");
                assertThat(rested.response().status()).isEqualTo(200);
                assertThat(rested.endedWithin(BOUND))
                        .as("a kept-alive connection after its answer")
                        .isTrue();
            }
        }
    }

    @Test
    void aConnectionWaitingForASlowUpstreamIsNotIdle() {
        try (TestGateway gw = recorded(timeouts(Duration.ofSeconds(10), Duration.ofMillis(500)))
                .start()) {
            WireResponse slow = gw.wire().timeout(BOUND).get("/app/json/10?delay=1500");
            assertThat(slow.status())
                    .as("an answer that came after three idle timeouts of silence on the client's side")
                    .isEqualTo(200);
        }
    }

    @Test
    void aBodyThatStopsComingIsClosedAtTheIdleTimeoutAndNeverEndsUpstream() throws Exception {
        try (TestGateway gw = recorded(timeouts(Duration.ofSeconds(10), Duration.ofMillis(700)))
                        .start();
                WireClient.Connection c = gw.wire().timeout(BOUND).open()) {
            c.write("POST /rec/stalled HTTP/1.1\r\nHost: h\r\nContent-Length: 1000\r\n\r\n" + "x".repeat(100));
            assertThat(c.endedWithin(BOUND)).as("the stalled connection closes").isTrue();
            RecordingUpstream.Received got = recording.next(BOUND);
            assertThat(got).as("the upstream's view of the stalled request").isNotNull();
            assertThat(got.head()).startsWith("POST /stalled HTTP/1.1");
            assertThat(got.whole())
                    .as("the upstream never takes it for a whole request")
                    .isFalse();
        }
    }

    // ---- sizes ----

    @Test
    void headsOverTheirSizeLimitsAre414And431AndThoseWithinAreServed() {
        ServerLimits d = ServerLimits.defaults();
        try (TestGateway gw = recorded(limits(1024, 2048, 10, d.maxBody(), d.headerTimeout(), d.idleTimeout()))
                .start()) {
            WireClient wire = gw.wire().timeout(BOUND);
            assertThat(wire.get("/app/json/10?pad=" + "a".repeat(900)).status())
                    .as("a 0.9 KB target")
                    .isEqualTo(200);
            WireClient.RawExchange line = wire.sendRaw(
                    ("GET /app/json/10?pad=" + "a".repeat(1500) + " HTTP/1.1\r\nHost: h\r\n\r\n").getBytes(), 1);
            assertError(line.responses().getFirst(), 414, "uri_too_long");

            StringBuilder eight = new StringBuilder();
            for (int i = 0; i < 8; i++) {
                eight.append("X-H").append(i).append(": v\r\n");
            }
            WireClient.RawExchange ten = wire.sendRaw(
                    ("GET /app/json/10 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n" + eight + "\r\n").getBytes(), 1);
            assertThat(ten.responses().getFirst().status())
                    .as("ten header fields")
                    .isEqualTo(200);
            WireClient.RawExchange eleven = wire.sendRaw(
                    ("GET /app/json/10 HTTP/1.1\r\nHost: h\r\n" + eight + "X-H8: v\r\nX-H9: v\r\n\r\n").getBytes(), 1);
            assertError(eleven.responses().getFirst(), 431, "headers_too_large");
            assertThat(eleven.closed()).isTrue();

            assertThat(wire.sendRaw(
                                    ("GET /app/json/10 HTTP/1.1\r\nHost: h\r\nConnection: close\r\nX-Big: "
                                                    + "b".repeat(1000) + "\r\n\r\n")
                                            .getBytes(),
                                    1)
                            .responses()
                            .getFirst()
                            .status())
                    .as("a 1 KB header block")
                    .isEqualTo(200);
            WireClient.RawExchange big = wire.sendRaw(
                    ("GET /app/json/10 HTTP/1.1\r\nHost: h\r\nX-Big: " + "b".repeat(4000) + "\r\n\r\n").getBytes(), 1);
            assertError(big.responses().getFirst(), 431, "headers_too_large");
        }
    }

    @Test
    void aDeclaredBodyOverTheRoutesLimitIs413BeforeAnyUpstream() throws Exception {
        int before = recording.received().size();
        try (TestGateway gw = recorded(ServerLimits.defaults(), new FilterConfig.MaxBody(1000))
                .start()) {
            WireClient wire = gw.wire().timeout(BOUND);
            WireClient.RawExchange over = wire.sendRaw(
                    ("POST /rec/up HTTP/1.1\r\nHost: h\r\nContent-Length: 1001\r\n\r\n" + "x".repeat(1001)).getBytes(),
                    1);
            assertError(over.responses().getFirst(), 413, "content_too_large");
            assertThat(over.closed()).as("its unread body ends the connection").isTrue();
            assertThat(recording.received()).as("the upstream received nothing").hasSize(before);

            WireClient.RawExchange within = wire.sendRaw(
                    ("POST /rec/up HTTP/1.1\r\nHost: h\r\nConnection: close\r\nContent-Length: 1000\r\n\r\n"
                                    + "x".repeat(1000))
                            .getBytes(),
                    1);
            assertThat(within.responses().getFirst().status()).isEqualTo(200);
            RecordingUpstream.Received got = recording.next(BOUND);
            assertThat(got.whole()).isTrue();
            assertThat(got.body()).hasSize(1000);
        }
    }

    @Test
    void aChunkedBodyPastTheLimitIs413AndNeverEndsUpstream() throws Exception {
        try (TestGateway gw = recorded(
                        timeouts(Duration.ofSeconds(10), Duration.ofSeconds(30)), new FilterConfig.MaxBody(4096))
                .start()) {
            StringBuilder chunks = new StringBuilder();
            for (int i = 0; i < 8; i++) {
                chunks.append("400\r\n").append("c".repeat(1024)).append("\r\n");
            }
            chunks.append("0\r\n\r\n");
            WireClient.RawExchange over = gw.wire()
                    .timeout(BOUND)
                    .sendRaw(
                            ("POST /rec/chunks HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks)
                                    .getBytes(),
                            1);
            assertError(over.responses().getFirst(), 413, "content_too_large");
            assertThat(over.closed()).isTrue();
            RecordingUpstream.Received got = recording.next(BOUND);
            if (got != null) { // the upstream may have seen its head and part of the body: never its end
                assertThat(got.head()).startsWith("POST /chunks HTTP/1.1");
                assertThat(got.whole())
                        .as("the upstream never takes it for whole")
                        .isFalse();
            }
        }
    }

    @Test
    void theServersBodyLimitAppliesWhereTheRouteSetsNone() {
        ServerLimits d = ServerLimits.defaults();
        try (TestGateway gw = recorded(limits(
                        d.maxRequestLine(), d.maxHeaderBytes(), d.maxHeaders(), 10, d.headerTimeout(), d.idleTimeout()))
                .start()) {
            WireClient.RawExchange over = gw.wire()
                    .timeout(BOUND)
                    .sendRaw(
                            "POST /app/echo/x HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello world".getBytes(),
                            1);
            assertError(over.responses().getFirst(), 413, "content_too_large");
        }
    }

    // ---- connections and requests in flight ----

    @Test
    void atMaxConnectionsTheNextClientWaitsUntilOneCloses() throws Exception {
        ServerLimits d = ServerLimits.defaults();
        ServerLimits two = new ServerLimits(
                d.maxRequestLine(),
                d.maxHeaderBytes(),
                d.maxHeaders(),
                d.maxBody(),
                d.headerTimeout(),
                d.idleTimeout(),
                2,
                d.maxRequests());
        try (TestGateway gw = recorded(two).start();
                ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            WireClient wire = gw.wire().timeout(BOUND);
            WireClient.Connection first = wire.open();
            WireClient.Connection second = wire.open();
            try {
                first.write("GET /app/json/11 HTTP/1.1\r\nHost: h\r\n\r\n");
                WireResponse one = first.response();
                assertThat(one.status()).as("%s %s", one, one.bodyText()).isEqualTo(200);
                second.write("GET /app/json/12 HTTP/1.1\r\nHost: h\r\n\r\n");
                WireResponse other = second.response();
                assertThat(other.status()).as("%s", other).isEqualTo(200);
                sleep(300); // the stimulus' lead: the server stops accepting on its own loop, out of sight

                try (WireClient.Connection third = wire.open()) { // the kernel's accept queue takes it
                    third.write("GET /app/json/13 HTTP/1.1\r\nHost: h\r\n\r\n");
                    CompletableFuture<WireResponse> answer = CompletableFuture.supplyAsync(third::response, clients);
                    for (int i = 0; i < 20; i++) { // the gateway serves on: a third it had taken would be served too
                        second.write("GET /app/json/" + (20 + i) + " HTTP/1.1\r\nHost: h\r\n\r\n");
                        WireResponse served = second.response();
                        assertThat(served.status()).as("%s", served).isEqualTo(200);
                    }
                    assertThat(answer.isDone())
                            .as("a third connection is not served while two are open, over 20 exchanges on the second")
                            .isFalse();
                    first.close();
                    assertThat(answer.get().status())
                            .as("served once one of the two closed")
                            .isEqualTo(200);
                }
            } finally {
                first.close();
                second.close();
            }
        }
    }

    @Test
    void requestsInFlightBeyondMaxRequestsAre503() throws Exception {
        ServerLimits d = ServerLimits.defaults();
        ServerLimits one = new ServerLimits(
                d.maxRequestLine(),
                d.maxHeaderBytes(),
                d.maxHeaders(),
                d.maxBody(),
                d.headerTimeout(),
                d.idleTimeout(),
                d.maxConnections(),
                1);
        String run = Long.toString(System.nanoTime());
        try (TestGateway gw = recorded(one).start();
                ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            CompletableFuture<WireResponse> slow = CompletableFuture.supplyAsync(
                    () -> gw.wire().timeout(BOUND).get("/app/json/10?delay=1500&tag=a" + run), clients);
            Await.until(BOUND, () -> upstream.started("a" + run), "the slow request's arrival upstream");
            WireResponse shed = gw.wire().timeout(BOUND).get("/app/json/10?tag=b" + run);
            assertError(shed, 503, "overloaded");
            assertThat(shed.header("Retry-After")).hasValue("1");
            assertThat(shed.bodyText()).contains("max-requests");
            assertThat(upstream.started("b" + run))
                    .as("the upstream never sees it")
                    .isFalse();
            assertThat(slow.get().status()).isEqualTo(200);
            assertThat(gw.wire().timeout(BOUND).get("/app/json/10").status())
                    .as("the slot came back")
                    .isEqualTo(200);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
