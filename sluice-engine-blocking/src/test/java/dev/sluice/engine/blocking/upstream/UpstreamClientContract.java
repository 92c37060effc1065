package dev.sluice.engine.blocking.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.UpstreamConfig;
import dev.sluice.http.UpstreamFailure;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * What every {@link UpstreamClient} does, against real servers on loopback: bodies byte for byte
 * both ways, pooling, failure classification, admission, cancellation and pacing. A subclass per
 * client supplies the client.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class UpstreamClientContract {

    /** Far below the stalls the upstream is asked for, far above what a prompt return takes. */
    private static final long PROMPT_MILLIS = 5_000;

    protected LoopbackUpstream upstream;
    private final List<UpstreamClient> clients = new ArrayList<>();

    protected abstract UpstreamClient newClient(UpstreamConfig config);

    /** How a call ended by {@link UpstreamRequest#cancel()} is classified. */
    protected UpstreamFailure cancelledFailure() {
        return UpstreamFailure.TIMEOUT;
    }

    @BeforeAll
    void startUpstream() {
        upstream = LoopbackUpstream.start();
    }

    @AfterAll
    void stopUpstream() {
        upstream.close();
    }

    @AfterEach
    void closeClients() {
        clients.forEach(UpstreamClient::close);
        clients.clear();
    }

    protected UpstreamClient client(UpstreamSpec spec) {
        UpstreamClient client = newClient(spec.build());
        clients.add(client);
        return client;
    }

    protected UpstreamClient client() {
        return client(UpstreamSpec.of("app", upstream.url()));
    }

    /** A GET as the gateway builds it: with the upstream's Host. */
    protected static UpstreamRequest get(UpstreamClient client, String target) {
        return new UpstreamRequest("GET", target).header("Host", client.config().authority());
    }

    protected static byte[] readAll(UpstreamResponse response) throws UpstreamException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n; (n = response.read(buffer, 0, buffer.length)) >= 0; ) {
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }

    protected static String text(UpstreamClient client, UpstreamRequest request) throws UpstreamException {
        try (UpstreamResponse response = client.send(request)) {
            return new String(readAll(response), StandardCharsets.UTF_8);
        }
    }

    protected static void assertFailure(ThrowingCallable call, UpstreamFailure failure) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        UpstreamException.class,
                        e -> assertThat(e.failure()).as("failure of %s", e).isEqualTo(failure));
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    private static void cancelLater(Runnable cancel, long millis) {
        Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                return;
            }
            cancel.run();
        });
    }

    @Test
    void fixedLengthBodyArrivesByteForByte() throws Exception {
        UpstreamClient client = client();
        try (UpstreamResponse response = client.send(get(client, "/bytes/300000"))) {
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.contentLength()).isEqualTo(300_000);
            assertThat(response.header("x-body-length")).isEqualTo("300000");
            assertThat(readAll(response)).isEqualTo(LoopbackUpstream.pattern(300_000));
            assertThat(response.read(new byte[10], 0, 10)).as("still the end").isEqualTo(-1);
        }
    }

    @Test
    void chunkedBodyArrivesByteForByte() throws Exception {
        UpstreamClient client = client();
        try (UpstreamResponse response = client.send(get(client, "/bytes/300000?chunked=1"))) {
            assertThat(response.contentLength()).isEqualTo(-1);
            assertThat(readAll(response)).isEqualTo(LoopbackUpstream.pattern(300_000));
        }
    }

    @Test
    void requestBodyKeepsItsFraming() throws Exception {
        UpstreamClient client = client();
        byte[] body = LoopbackUpstream.pattern(200_000);
        for (long length : new long[] {body.length, -1}) {
            UpstreamRequest post = new UpstreamRequest("POST", "/echo")
                    .header("Host", client.config().authority())
                    .header("Content-Type", "application/octet-stream")
                    .body(new ByteArrayInputStream(body), length);
            try (UpstreamResponse response = client.send(post)) {
                assertThat(response.header("X-Framing")).isEqualTo(length < 0 ? "chunked" : "length:" + length);
                assertThat(readAll(response)).isEqualTo(body);
            }
        }
    }

    @Test
    void requestHeadersAndRawTargetReachTheUpstream() throws Exception {
        UpstreamClient client = client();
        String seen = text(
                client,
                get(client, "/inspect?q=a%20b&x=%2F")
                        .header("X-Custom", "one")
                        .header("X-Custom", "two")
                        .header("Accept", "application/json"));
        assertThat(seen.lines()).first().isEqualTo("GET /inspect?q=a%20b&x=%2F");
        assertThat(seen.lines())
                .contains(
                        "x-custom: one",
                        "x-custom: two",
                        "accept: application/json",
                        "host: " + client.config().authority());
        assertThat(seen).doesNotContain("accept-encoding:", "cookie:", "expect:");
    }

    @Test
    void responsesAreRelayedNotDecodedFollowedOrAuthenticated() throws Exception {
        UpstreamClient client = client();
        try (UpstreamResponse gzip = client.send(get(client, "/gzip"))) {
            assertThat(gzip.header("Content-Encoding")).isEqualTo("gzip");
            assertThat(readAll(gzip)).isEqualTo(LoopbackUpstream.gzip(LoopbackUpstream.pattern(10_000)));
        }
        try (UpstreamResponse redirect = client.send(get(client, "/redirect"))) {
            assertThat(redirect.status()).isEqualTo(302);
            assertThat(redirect.header("location")).isEqualTo("/bytes/10");
            assertThat(readAll(redirect)).asString(StandardCharsets.US_ASCII).isEqualTo("moved");
        }
        try (UpstreamResponse unauthorized = client.send(get(client, "/unauthorized"))) {
            assertThat(unauthorized.status()).isEqualTo(401);
            assertThat(unauthorized.header("www-authenticate")).isEqualTo("Basic realm=\"test\"");
            readAll(unauthorized);
        }
        text(client, get(client, "/set-cookie"));
        assertThat(text(client, get(client, "/inspect")))
                .as("cookies are not kept")
                .doesNotContain("cookie:");
    }

    @Test
    void aBodyReadToItsEndKeepsTheConnection() throws Exception {
        UpstreamClient client = client();
        try (UpstreamResponse first = client.send(get(client, "/bytes/1000"))) {
            readAll(first);
        }
        int firstPort = upstream.lastClientPort();
        try (UpstreamResponse second = client.send(get(client, "/bytes/1000?chunked=1"))) {
            readAll(second);
        }
        assertThat(upstream.lastClientPort())
                .as("the pooled connection was reused")
                .isEqualTo(firstPort);
    }

    @Test
    void closingBeforeTheEndDropsTheConnectionWithoutDraining() throws Exception {
        UpstreamClient client = client();
        UpstreamResponse stalled = client.send(get(client, "/bytes/200000?stallAt=1000&stall=20000"));
        int stalledPort = upstream.lastClientPort();
        assertThat(stalled.readFully(new byte[1000], 0, 1000)).isEqualTo(1000);
        long start = System.nanoTime();
        stalled.close();
        assertThat(millisSince(start))
                .as("close does not wait for the rest of the body")
                .isLessThan(PROMPT_MILLIS);
        try (UpstreamResponse next = client.send(get(client, "/bytes/10"))) {
            assertThat(readAll(next)).hasSize(10);
        }
        assertThat(upstream.lastClientPort()).as("a new connection").isNotEqualTo(stalledPort);
    }

    @Test
    void refusedConnectionIsRefusedAndFreesItsPermit() {
        UpstreamClient client =
                client(UpstreamSpec.of("down", RawSocketUpstream.refusedUrl()).pool(1, Duration.ofSeconds(1), 0));
        for (int i = 0; i < 2; i++) { // the second would be pool_exhausted if the first kept its permit
            assertFailure(() -> client.send(get(client, "/bytes/10")), UpstreamFailure.REFUSED);
        }
    }

    @Test
    void connectWithoutAnswerIsConnectTimeout() {
        try (RawSocketUpstream silent = RawSocketUpstream.start(RawSocketUpstream.Behaviour.FULL_BACKLOG)) {
            UpstreamClient client =
                    client(UpstreamSpec.of("silent", silent.url()).connectTimeout(Duration.ofMillis(300)));
            assertFailure(() -> client.send(get(client, "/bytes/10")), UpstreamFailure.CONNECT_TIMEOUT);
        }
    }

    @Test
    void noHeadersWithinReadTimeoutIsReadTimeout() {
        UpstreamClient client = client(UpstreamSpec.of("slow", upstream.url()).readTimeout(Duration.ofMillis(300)));
        long start = System.nanoTime();
        assertFailure(() -> client.send(get(client, "/bytes/10?delay=10000")), UpstreamFailure.READ_TIMEOUT);
        assertThat(millisSince(start)).isLessThan(PROMPT_MILLIS);
    }

    @Test
    void readStallingPastReadTimeoutIsReadTimeout() throws Exception {
        UpstreamClient client = client(UpstreamSpec.of("slow", upstream.url()).readTimeout(Duration.ofMillis(300)));
        try (UpstreamResponse response = client.send(get(client, "/bytes/100000?stallAt=1000&stall=10000"))) {
            assertThat(response.readFully(new byte[1000], 0, 1000)).isEqualTo(1000);
            long start = System.nanoTime();
            assertFailure(() -> response.read(new byte[1000], 0, 1000), UpstreamFailure.READ_TIMEOUT);
            assertThat(millisSince(start)).isLessThan(PROMPT_MILLIS);
        }
    }

    @Test
    void aCallerThatPausesBetweenReadsIsNotTimedOut() throws Exception {
        // backpressure: a composition part whose read-ahead is full stops reading for a while
        UpstreamClient client = client(UpstreamSpec.of("slow", upstream.url()).readTimeout(Duration.ofMillis(300)));
        try (UpstreamResponse response = client.send(get(client, "/bytes/2000000"))) {
            byte[] first = new byte[1000];
            assertThat(response.readFully(first, 0, first.length)).isEqualTo(1000);
            Thread.sleep(1200);
            byte[] rest = readAll(response);
            assertThat(first.length + rest.length).isEqualTo(2_000_000);
        }
    }

    @Test
    protected void anAnswerThatIsNotHttpIsBadResponse() {
        try (RawSocketUpstream garbage = RawSocketUpstream.start(RawSocketUpstream.Behaviour.GARBAGE)) {
            UpstreamClient client = client(UpstreamSpec.of("garbage", garbage.url()));
            assertFailure(() -> client.send(get(client, "/bytes/10")), UpstreamFailure.BAD_RESPONSE);
        }
    }

    @Test
    protected void anInvalidContentLengthIsBadResponse() {
        try (RawSocketUpstream bad = RawSocketUpstream.start(RawSocketUpstream.Behaviour.BAD_CONTENT_LENGTH)) {
            UpstreamClient client = client(UpstreamSpec.of("bad", bad.url()));
            assertFailure(() -> client.send(get(client, "/bytes/10")), UpstreamFailure.BAD_RESPONSE);
        }
    }

    @Test
    void aResetInsteadOfAnAnswerIsReset() {
        try (RawSocketUpstream reset = RawSocketUpstream.start(RawSocketUpstream.Behaviour.RESET)) {
            UpstreamClient client = client(UpstreamSpec.of("reset", reset.url()));
            assertFailure(() -> client.send(get(client, "/bytes/10")), UpstreamFailure.RESET);
        }
    }

    @Test
    void callsBeyondMaxConnectionsPlusMaxPendingArePoolExhaustedAtOnce() throws Exception {
        UpstreamClient client = client(UpstreamSpec.of("small", upstream.url()).pool(1, Duration.ofSeconds(10), 0));
        try (UpstreamResponse held = client.send(get(client, "/bytes/100000?stallAt=10&stall=10000"))) {
            long start = System.nanoTime();
            assertFailure(() -> client.send(get(client, "/bytes/10")), UpstreamFailure.POOL_EXHAUSTED);
            assertThat(millisSince(start)).as("not a wait for acquire-timeout").isLessThan(PROMPT_MILLIS);
        }
        try (UpstreamResponse after = client.send(get(client, "/bytes/10"))) {
            assertThat(readAll(after)).as("the permit came back").hasSize(10);
        }
    }

    @Test
    void aPendingCallWaitsAcquireTimeoutThenIsPoolExhausted() throws Exception {
        UpstreamClient client = client(UpstreamSpec.of("small", upstream.url()).pool(1, Duration.ofMillis(400), 1));
        try (UpstreamResponse held = client.send(get(client, "/bytes/100000?stallAt=10&stall=10000"))) {
            long start = System.nanoTime();
            assertFailure(() -> client.send(get(client, "/bytes/10")), UpstreamFailure.POOL_EXHAUSTED);
            assertThat(millisSince(start)).as("waited for a connection").isBetween(300L, PROMPT_MILLIS);
        }
        try (UpstreamResponse after = client.send(get(client, "/bytes/10"))) {
            assertThat(readAll(after)).hasSize(10);
        }
    }

    @Test
    void aPendingCallGetsTheConnectionWhenItIsReleased() throws Exception {
        UpstreamClient client = client(UpstreamSpec.of("small", upstream.url()).pool(1, Duration.ofSeconds(10), 1));
        UpstreamResponse held = client.send(get(client, "/bytes/1000"));
        Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(300);
                readAll(held);
            } catch (InterruptedException | UpstreamException e) {
                held.abort();
            }
            held.close();
        });
        try (UpstreamResponse waiting = client.send(get(client, "/bytes/20"))) {
            assertThat(readAll(waiting)).isEqualTo(LoopbackUpstream.pattern(20));
        }
    }

    @Test
    void cancelBeforeTheHeadersEndsTheCallPromptly() throws Exception {
        UpstreamClient client = client(UpstreamSpec.of("one", upstream.url()).pool(1, Duration.ofSeconds(1), 0));
        UpstreamRequest request = get(client, "/bytes/10?delay=10000");
        cancelLater(request::cancel, 200);
        long start = System.nanoTime();
        assertFailure(() -> client.send(request), cancelledFailure());
        assertThat(millisSince(start)).isLessThan(PROMPT_MILLIS);
        try (UpstreamResponse after = client.send(get(client, "/bytes/10"))) {
            assertThat(readAll(after)).as("the permit came back").hasSize(10);
        }
    }

    @Test
    void cancelDuringTheBodyEndsTheReadPromptly() throws Exception {
        UpstreamClient client = client();
        UpstreamRequest request = get(client, "/bytes/100000?stallAt=1000&stall=10000");
        try (UpstreamResponse response = client.send(request)) {
            assertThat(response.readFully(new byte[1000], 0, 1000)).isEqualTo(1000);
            cancelLater(request::cancel, 200);
            long start = System.nanoTime();
            assertFailure(() -> response.read(new byte[1000], 0, 1000), cancelledFailure());
            assertThat(millisSince(start)).isLessThan(PROMPT_MILLIS);
        }
    }

    @Test
    void aCancelledRequestIsNotSent() {
        UpstreamClient client = client();
        UpstreamRequest request = get(client, "/bytes/10?delay=10000");
        request.cancel();
        long start = System.nanoTime();
        assertFailure(() -> client.send(request), cancelledFailure());
        assertThat(millisSince(start)).isLessThan(PROMPT_MILLIS);
    }

    @Test
    void abortFromAnotherThreadEndsABlockedRead() throws Exception {
        UpstreamClient client = client();
        try (UpstreamResponse response = client.send(get(client, "/bytes/100000?stallAt=1000&stall=10000"))) {
            assertThat(response.readFully(new byte[1000], 0, 1000)).isEqualTo(1000);
            cancelLater(response::abort, 200);
            long start = System.nanoTime();
            assertThatThrownBy(() -> response.read(new byte[1000], 0, 1000)).isInstanceOf(UpstreamException.class);
            assertThat(millisSince(start)).isLessThan(PROMPT_MILLIS);
        }
    }

    @Test
    protected void aCancelEndsTheWaitForAPacingSlot() throws Exception {
        UpstreamClient client = client(UpstreamSpec.of("paced", upstream.url()).pace(1, Duration.ofSeconds(20)));
        try (UpstreamResponse first = client.send(get(client, "/bytes/10"))) {
            readAll(first);
        }
        UpstreamRequest second = get(client, "/bytes/10"); // its slot is 20 s away
        cancelLater(second::cancel, 200);
        long start = System.nanoTime();
        assertFailure(() -> client.send(second), cancelledFailure());
        assertThat(millisSince(start)).isLessThan(PROMPT_MILLIS);
    }

    @Test
    void pacedCallsStartAtMostOncePerInterval() throws Exception {
        UpstreamClient client = client(UpstreamSpec.of("paced", upstream.url()).pace(1, Duration.ofMillis(250)));
        long start = System.nanoTime();
        for (int i = 0; i < 3; i++) {
            try (UpstreamResponse response = client.send(get(client, "/bytes/10"))) {
                readAll(response);
            }
        }
        assertThat(millisSince(start)).as("three starts take two intervals").isGreaterThanOrEqualTo(480);
    }
}
