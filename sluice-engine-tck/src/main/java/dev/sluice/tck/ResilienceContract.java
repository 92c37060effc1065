package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.UpstreamResilience;
import dev.sluice.config.UpstreamResilience.Balance;
import dev.sluice.config.UpstreamResilience.CircuitBreaker;
import dev.sluice.config.UpstreamResilience.HealthCheck;
import dev.sluice.config.UpstreamResilience.Outlier;
import dev.sluice.config.UpstreamResilience.Retry;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * An upstream of several endpoints in every mode: calls spread over them (each with its endpoint's
 * Host), a killed endpoint avoided and taken back after its health check, retries only of what is
 * configured (never a POST unless told), the retry budget, a per-try timeout moving the call on, the
 * circuit breaker failing fast ({@code 503 circuit_open}, a composition part {@code null} with {@code
 * "error":"circuit_open"}) and healing, each try's stale-connection resend. Nothing here reads the
 * wall clock against a window: a breaker's open time and an endpoint's ejection pass on the gateway's
 * clock, which the test moves ({@link ManualTicker}); other bounds are the gateway's own (a route's
 * timeout) or follow the requests' order; the exact arithmetic is UpstreamGuardTest's and
 * UpstreamCallTest's.
 */
public abstract class ResilienceContract extends ContractFixture {

    private static UpstreamResilience resilience(
            List<URI> endpoints,
            Optional<HealthCheck> check,
            Optional<Outlier> outlier,
            Optional<Retry> retry,
            Optional<CircuitBreaker> breaker) {
        return new UpstreamResilience(endpoints, Balance.ROUND_ROBIN, check, outlier, retry, breaker);
    }

    private static Retry retry(int attempts, Optional<Duration> perTry, boolean nonIdempotent, String... on) {
        return new Retry(
                attempts,
                perTry,
                Duration.ofMillis(5),
                Duration.ofMillis(50),
                Set.of(on),
                nonIdempotent,
                20,
                3,
                64 * 1024);
    }

    private static Routes.UpstreamSpec svc(UpstreamResilience r) {
        return Routes.upstream("svc", r.endpoints().getFirst()).resilience(r);
    }

    @Test
    void callsAreSpreadOverTheEndpointsEachWithItsOwnHost() throws Exception {
        try (TestUpstream second = TestUpstream.start();
                TestGateway gw = gateway()
                        .upstream(svc(resilience(
                                List.of(upstream.url(), second.url()),
                                Optional.empty(),
                                Optional.empty(),
                                Optional.empty(),
                                Optional.empty())))
                        .route("svc", on("/svc/**"), proxy("svc").stripPrefix("/svc"))
                        .start()) {
            List<String> hosts = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                HttpResponse<byte[]> response = get(gw, "/svc/inspect/x");
                assertThat(response.statusCode()).isEqualTo(200);
                hosts.addAll(headerValues(inspected(response), "host"));
            }
            assertThat(hosts).hasSize(10);
            assertThat(hosts.stream().filter(upstream.authority()::equals)).hasSize(5);
            assertThat(hosts.stream().filter(second.authority()::equals)).hasSize(5);
        }
    }

    /**
     * The endpoint is killed under load: requests move to the live one. It is ejected (outlier
     * detection) and fails its health check; restarted, it passes its check but stays out while its
     * ejection lasts by the gateway's clock (a {@link ManualTicker}), and is taken back once that has
     * passed.
     */
    @Test
    void aKilledEndpointIsAvoidedUnderLoadAndTakenBackAfterItsHealthCheckAndEjection() throws Exception {
        TestUpstream doomed = TestUpstream.start();
        int port = doomed.port();
        URI doomedUrl = doomed.url();
        // the live endpoint must stay in: were it out too (a check slower than its timeout on a busy
        // machine), every endpoint would be out and calls would go to all of them (panic), the ejected too
        HealthCheck check = new HealthCheck("/json/2", Duration.ofMillis(200), Duration.ofSeconds(5), 1, 2);
        Duration maxEjection = Duration.ofSeconds(1);
        ManualTicker time = new ManualTicker();
        try (TestGateway gw = gateway()
                .ticker(time)
                .upstream(svc(resilience(
                        List.of(doomedUrl, upstream.url()),
                        Optional.of(check),
                        Optional.of(new Outlier(1, Duration.ofMillis(500), maxEjection, 50)),
                        Optional.of(retry(2, Optional.empty(), false, "connect-failure", "reset")),
                        Optional.empty())))
                .route("svc", on("/svc/**"), proxy("svc").stripPrefix("/svc"))
                .start()) {
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicBoolean killed = new AtomicBoolean();
            AtomicInteger served = new AtomicInteger();
            CountDownLatch servedBeforeKill = new CountDownLatch(200);
            CountDownLatch servedAfterKill = new CountDownLatch(300);
            ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<String> failuresLongAfterKill = new ConcurrentLinkedQueue<>();
            int clients = 4;
            CountDownLatch done = new CountDownLatch(clients);
            for (int c = 0; c < clients; c++) {
                Thread.ofVirtual().start(() -> {
                    try {
                        int begunAfterKill = 0; // this client's requests begun after the kill
                        while (running.get()) {
                            boolean afterKill = killed.get();
                            // its first request begun after the kill has ended: every request in flight on
                            // the killed endpoint's connections at the kill is over
                            boolean longAfter = afterKill && begunAfterKill++ > 0;
                            try {
                                HttpResponse<byte[]> r = gw.http()
                                        .send(
                                                HttpRequest.newBuilder(gw.uri("/svc/json/64?tag=load"))
                                                        .timeout(Duration.ofSeconds(10))
                                                        .build(),
                                                HttpResponse.BodyHandlers.ofByteArray());
                                if (r.statusCode() == 200 && r.body().length == 64) {
                                    served.incrementAndGet();
                                    (afterKill ? servedAfterKill : servedBeforeKill).countDown();
                                } else {
                                    failures.add(r.statusCode() + " " + text(r));
                                    if (longAfter) {
                                        failuresLongAfterKill.add(r.statusCode() + " " + text(r));
                                    }
                                }
                            } catch (Exception e) {
                                failures.add(e.toString()); // a hang ends here, at the 10 s timeout
                                if (longAfter) {
                                    failuresLongAfterKill.add(e.toString());
                                }
                            }
                        }
                    } finally {
                        done.countDown();
                    }
                });
            }
            Await.until(Duration.ofSeconds(30), servedBeforeKill, "requests served before the kill");
            doomed.close(); // killed: its port refuses connections, its connections are closed
            killed.set(true);
            Await.until(Duration.ofSeconds(30), servedAfterKill, "requests served after the kill");
            dev.sluice.upstream.Endpoint killedEndpoint =
                    gw.guard("svc").endpoints().getFirst();
            // a try that met the killed endpoint ejected it; only a health check that failed first
            // (every 200 ms, against requests every few microseconds) would have kept every try off it
            boolean ejected = killedEndpoint.isEjected();
            assertThat(ejected || !killedEndpoint.isHealthy())
                    .as("the killed endpoint is out of the rotation: ejected or unhealthy")
                    .isTrue();
            int before = upstream.exchanges();
            TestUpstream restarted = TestUpstream.startOn(port);
            try {
                if (ejected) {
                    Await.until(
                            Duration.ofSeconds(20), killedEndpoint::isHealthy, "the restarted endpoint's health check");
                    int mark = served.get();
                    Await.until(
                            Duration.ofSeconds(30), () -> served.get() >= mark + 200, "requests served while ejected");
                    assertThat(restarted.count("load"))
                            .as("healthy again, but ejected until the gateway's clock says otherwise")
                            .isZero();
                    time.advance(maxEjection);
                }
                Await.until(
                        Duration.ofSeconds(20), () -> restarted.count("load") > 0, "the restarted endpoint taken back");
                running.set(false);
                assertThat(done.await(20, TimeUnit.SECONDS)).isTrue();
                assertThat(failuresLongAfterKill)
                        .as("after each client's first request since the kill, every request is served by the live"
                                + " endpoint")
                        .isEmpty();
                assertThat(failures)
                        .as("at most the requests in flight on the killed endpoint's connections fail")
                        .hasSizeLessThanOrEqualTo(clients);
                assertThat(upstream.exchanges()).isGreaterThan(before);
            } finally {
                running.set(false);
                done.await(20, TimeUnit.SECONDS);
                restarted.close();
            }
        }
    }

    /**
     * A retry never goes to an ejected endpoint while another is in the rotation: the first endpoint,
     * dead, is ejected at the first call; restarted, it stays out while its ejection lasts by the
     * gateway's clock, even for the retries of calls the other endpoint resets (they go back to that
     * one), and is taken back once the clock has passed it. Before the fix in {@code UpstreamGuard.begin}
     * such a retry took the ejected endpoint in every mode.
     */
    @Test
    void aRetryNeverGoesToAnEjectedEndpointAndItIsTakenBackOnTheGatewaysClock() throws Exception {
        TestUpstream doomed = TestUpstream.start();
        int port = doomed.port();
        URI doomedUrl = doomed.url();
        doomed.close(); // its port refuses connections
        Duration ejection = Duration.ofSeconds(30);
        ManualTicker time = new ManualTicker();
        try (RawUpstream resetting = RawUpstream.resetting();
                TestGateway gw = gateway()
                        .ticker(time)
                        .upstream(svc(resilience(
                                List.of(doomedUrl, resetting.url()),
                                Optional.empty(),
                                Optional.of(new Outlier(1, ejection, ejection, 50)),
                                Optional.of(retry(2, Optional.empty(), false, "connect-failure", "reset")),
                                Optional.empty())))
                        .route("svc", on("/svc/**"), proxy("svc").stripPrefix("/svc"))
                        .start()) {
            dev.sluice.upstream.Endpoint first = gw.guard("svc").endpoints().getFirst();
            assertThat(get(gw, "/svc/json/10?tag=first").statusCode())
                    .as("refused, then reset on its retry")
                    .isEqualTo(502);
            assertThat(first.isEjected()).as("refused once: ejected").isTrue();
            int heads = resetting.heads();
            try (TestUpstream restarted = TestUpstream.startOn(port)) {
                String run = Long.toString(System.nanoTime(), 36);
                for (int i = 0; i < 6; i++) {
                    HttpResponse<byte[]> r = get(gw, "/svc/json/10?tag=" + run);
                    assertThat(r.statusCode())
                            .as("reset, and its retry reset again by the only endpoint in the rotation")
                            .isEqualTo(502);
                }
                assertThat(resetting.heads())
                        .as("every try on the resetting endpoint")
                        .isGreaterThanOrEqualTo(heads + 12);
                assertThat(restarted.count(run))
                        .as("the restarted endpoint is ejected until the gateway's clock says otherwise")
                        .isZero();
                time.advance(ejection);
                String after = Long.toString(System.nanoTime(), 36);
                for (int i = 0; i < 4; i++) {
                    get(gw, "/svc/json/10?tag=" + after);
                }
                assertThat(restarted.count(after))
                        .as("taken back once its ejection has passed")
                        .isPositive();
            }
        }
    }

    @Test
    void retriesResendOnlyWhatIsConfiguredAndNeverAPostUnlessTold() throws Exception {
        String busy = "/json/10?status=503&tag=";
        try (TestGateway gw = gateway()
                .upstream(svc(resilience(
                        List.of(upstream.url()),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.of(retry(3, Optional.empty(), false, "503")),
                        Optional.empty())))
                .upstream(Routes.upstream("eager", upstream.url())
                        .resilience(resilience(
                                List.of(upstream.url()),
                                Optional.empty(),
                                Optional.empty(),
                                Optional.of(retry(3, Optional.empty(), true, "503")),
                                Optional.empty())))
                .route("svc", on("/svc/**"), proxy("svc").stripPrefix("/svc"))
                .route("eager", on("/eager/**"), proxy("eager").stripPrefix("/eager"))
                .start()) {
            String run = Long.toString(System.nanoTime(), 36);
            HttpResponse<byte[]> get = get(gw, "/svc" + busy + "get" + run);
            assertThat(get.statusCode()).as("the last try's answer is relayed").isEqualTo(503);
            assertThat(upstream.count("get" + run)).as("three tries in all").isEqualTo(3);

            HttpResponse<byte[]> post = send(
                    gw,
                    HttpRequest.newBuilder(gw.uri("/svc" + busy + "post" + run))
                            .POST(HttpRequest.BodyPublishers.noBody()));
            assertThat(post.statusCode()).isEqualTo(503);
            assertThat(upstream.count("post" + run))
                    .as("a POST is not idempotent")
                    .isEqualTo(1);

            HttpResponse<byte[]> told = send(
                    gw,
                    HttpRequest.newBuilder(gw.uri("/eager" + busy + "told" + run))
                            .POST(HttpRequest.BodyPublishers.noBody()));
            assertThat(told.statusCode()).isEqualTo(503);
            assertThat(upstream.count("told" + run)).as("non-idempotent: true").isEqualTo(3);

            HttpResponse<byte[]> held = send(
                    gw,
                    HttpRequest.newBuilder(gw.uri("/eager" + busy + "held" + run))
                            .PUT(HttpRequest.BodyPublishers.ofString("{\"a\":1}")));
            assertThat(held.statusCode()).isEqualTo(503);
            assertThat(upstream.count("held" + run))
                    .as("a small body of declared length is held")
                    .isEqualTo(3);

            HttpResponse<byte[]> streamed = send(
                    gw,
                    HttpRequest.newBuilder(gw.uri("/eager" + busy + "streamed" + run))
                            .PUT(HttpRequest.BodyPublishers.ofInputStream(
                                    () -> new java.io.ByteArrayInputStream(new byte[] {'{', '}'}))));
            assertThat(streamed.statusCode()).isEqualTo(503);
            assertThat(upstream.count("streamed" + run))
                    .as("a chunked body streams, never sent twice")
                    .isEqualTo(1);

            HttpResponse<byte[]> other = get(gw, "/svc/json/10?status=500&tag=other" + run);
            assertThat(other.statusCode()).isEqualTo(500);
            assertThat(upstream.count("other" + run))
                    .as("500 is not on the list")
                    .isEqualTo(1);
        }
    }

    @Test
    void eachTryMayResendOnceOnAFreshConnectionWhenItsPooledOneIsStale() {
        String busy = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy";
        try (RawUpstream first = RawUpstream.answeringOnceThenClosingOnTheNextRequest(busy);
                RawUpstream second = RawUpstream.answeringOnceThenClosingOnTheNextRequest(busy);
                TestGateway gw = gateway()
                        .upstream(svc(resilience(
                                List.of(first.url(), second.url()),
                                Optional.empty(),
                                Optional.empty(),
                                Optional.of(retry(2, Optional.empty(), false, "503")),
                                Optional.empty())))
                        .route("svc", on("/svc/**"), proxy("svc").stripPrefix("/svc"))
                        .start()) {
            // on one client connection (the reactive engine pools per event loop): two POSTs (never
            // retried), one per endpoint in turn, each leaving a kept-alive connection in its endpoint's
            // pool, which the endpoint closes when the next request arrives on it; then the GET
            List<WireResponse> all = gw.wire()
                    .sendAll(List.of(
                            WireRequest.of("POST", "/svc/warm"),
                            WireRequest.of("POST", "/svc/warm"),
                            WireRequest.of("GET", "/svc/item")));
            assertThat(all.get(0).status()).as("%s", all.get(0)).isEqualTo(503);
            assertThat(all.get(1).status()).as("%s", all.get(1)).isEqualTo(503);
            WireResponse r = all.get(2);
            assertThat(r.status())
                    .as("try 1: stale, resent, 503; try 2 on the other endpoint: stale, resent, 503 relayed (%s)", r)
                    .isEqualTo(503);
            assertThat(r.bodyText()).isEqualTo("busy");
            assertThat(first.heads() + second.heads())
                    .as("the warm-ups, then two tries sent twice each (%d, %d)", first.heads(), second.heads())
                    .isEqualTo(6);
            assertThat(first.heads()).isEqualTo(3);
            assertThat(second.heads()).isEqualTo(3);
        }
    }

    @Test
    void aDroppedTryGivesItsConnectionBackToThePool() throws Exception {
        try (TestGateway gw = gateway()
                .upstream(Routes.upstream("tight", upstream.url())
                        .pool(1, Duration.ofSeconds(2), 10)
                        .resilience(resilience(
                                List.of(upstream.url()),
                                Optional.empty(),
                                Optional.empty(),
                                Optional.of(retry(3, Optional.empty(), false, "503")),
                                Optional.empty())))
                .route("tight", on("/tight/**"), proxy("tight").stripPrefix("/tight"))
                .start()) {
            String run = Long.toString(System.nanoTime(), 36);
            for (int i = 0; i < 5; i++) {
                HttpResponse<byte[]> r = get(gw, "/tight/json/10?status=503&tag=" + run + i);
                assertThat(r.statusCode()).isEqualTo(503);
                assertThat(text(r)).as("the upstream's 503, not the pool's").doesNotContain("pool_exhausted");
                assertThat(upstream.count(run + i)).isEqualTo(3);
            }
            assertThat(get(gw, "/tight/json/10").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aHeldBodyIsSentWholeAgainOnTheRetry() throws Exception {
        byte[] body = new byte[40_000];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (i * 31 + 7);
        }
        String sha = java.util.HexFormat.of()
                .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(body));
        try (RawUpstream resetting = RawUpstream.resetting();
                TestGateway gw = gateway()
                        .upstream(svc(resilience(
                                List.of(resetting.url(), upstream.url()),
                                Optional.empty(),
                                Optional.empty(),
                                Optional.of(retry(2, Optional.empty(), true, "reset")),
                                Optional.empty())))
                        .route("svc", on("/svc/**"), proxy("svc").stripPrefix("/svc"))
                        .start()) {
            for (int i = 0; i < 4; i++) { // round robin: every other request meets the resetting endpoint first
                HttpResponse<byte[]> r = send(
                        gw,
                        HttpRequest.newBuilder(gw.uri("/svc/inspect/upload"))
                                .POST(HttpRequest.BodyPublishers.ofByteArray(body)));
                assertThat(r.statusCode()).as(text(r)).isEqualTo(200);
                Map<String, Object> seen = inspected(r);
                assertThat(seen.get("sha256")).isEqualTo(sha);
                assertThat(seen.get("length")).hasToString(Integer.toString(body.length));
            }
            assertThat(resetting.heads())
                    .as("the resetting endpoint had its tries")
                    .isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void anEmptyRetryBudgetStopsEveryRetry() throws Exception {
        Retry noBudget = new Retry(
                3, Optional.empty(), Duration.ofMillis(5), Duration.ofMillis(50), Set.of("503"), false, 0, 0, 0);
        try (TestGateway gw = gateway()
                .upstream(svc(resilience(
                        List.of(upstream.url()),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.of(noBudget),
                        Optional.empty())))
                .route("svc", on("/svc/**"), proxy("svc").stripPrefix("/svc"))
                .start()) {
            String run = Long.toString(System.nanoTime(), 36);
            for (int i = 0; i < 5; i++) {
                assertThat(get(gw, "/svc/json/10?status=503&tag=" + run + i).statusCode())
                        .isEqualTo(503);
                assertThat(upstream.count(run + i)).isEqualTo(1);
            }
        }
    }

    @Test
    void aTryWithoutAnAnswerInItsPerTryTimeoutMovesToTheNextEndpoint() throws Exception {
        // bound, never accepting: the kernel completes the connection, nobody ever answers
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                TestGateway gw = gateway()
                        .upstream(svc(resilience(
                                List.of(URI.create("http://127.0.0.1:" + silent.getLocalPort()), upstream.url()),
                                Optional.empty(),
                                Optional.empty(),
                                Optional.of(retry(2, Optional.of(Duration.ofMillis(300)), false, "timeout")),
                                Optional.empty())))
                        // the route's deadline, far inside the 30 s read timeout: only the per-try timeout
                        // moves a call on from the silent endpoint in time for a 200
                        .route(
                                "svc",
                                on("/svc/**"),
                                proxy("svc").stripPrefix("/svc").timeout(Duration.ofSeconds(5)))
                        .route(
                                "page",
                                on("/page"),
                                compose().part("a", "svc", "/json/10").part("b", "svc", "/json/20"))
                        .start()) {
            for (int i = 0; i < 4; i++) {
                HttpResponse<byte[]> r = get(gw, "/svc/json/32");
                assertThat(r.statusCode()).as(text(r)).isEqualTo(200);
                assertThat(r.body()).hasSize(32);
            }
            Composed composed = Composed.of(gw.wire().get("/page"));
            assertThat(composed.error("a")).isEmpty();
            assertThat(composed.error("b")).isEmpty();
            // round robin: one of the two parts went to the silent endpoint first, and was retried
            @SuppressWarnings("unchecked")
            Map<String, Object> a = (Map<String, Object>) composed.meta("parts", "a");
            @SuppressWarnings("unchecked")
            Map<String, Object> b = (Map<String, Object>) composed.meta("parts", "b");
            assertThat(List.of(String.valueOf(a.get("attempts")), String.valueOf(b.get("attempts"))))
                    .as("_meta reports the retried part's tries, and none for a part tried once")
                    .containsExactlyInAnyOrder("2", "null");
        }
    }

    @Test
    void aBurstOf503sOpensTheBreakerWhichFailsFastUntilItsOpenTimeHasPassedAndHeals() throws Exception {
        Duration openFor = Duration.ofMillis(500);
        CircuitBreaker breaker = new CircuitBreaker(50, 100, Duration.ofSeconds(10), 4, 4, openFor, 1);
        ManualTicker time = new ManualTicker();
        try (TestGateway gw = gateway()
                .ticker(time)
                .upstream(svc(resilience(
                        List.of(upstream.url()),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.of(breaker))))
                .route("svc", on("/svc/**"), proxy("svc").stripPrefix("/svc"))
                .route(
                        "page",
                        on("/page"),
                        compose().part("ok", APP, "/json/10").part("guarded", "svc", "/json/10"))
                .start()) {
            String run = Long.toString(System.nanoTime(), 36);
            for (int i = 0; i < 4; i++) {
                assertThat(get(gw, "/svc/json/10?status=503&tag=burst" + run).statusCode())
                        .isEqualTo(503);
            }
            assertThat(upstream.count("burst" + run)).isEqualTo(4);
            HttpResponse<byte[]> fast = get(gw, "/svc/json/10?tag=refused" + run);
            assertError(fast, 503, "circuit_open");
            assertThat(upstream.started("refused" + run))
                    .as("an open breaker sends nothing")
                    .isFalse();

            Composed composed = Composed.of(gw.wire().get("/page"));
            assertThat(composed.part("guarded")).isEqualTo(Json.NULL);
            assertThat(composed.error("guarded")).hasValue("circuit_open");
            assertThat(composed.error("ok")).isEmpty();

            time.advance(openFor.minusMillis(1));
            assertError(get(gw, "/svc/json/10?tag=early" + run), 503, "circuit_open");
            assertThat(upstream.started("early" + run))
                    .as("open until its open time has passed, by the gateway's clock")
                    .isFalse();

            time.advance(Duration.ofMillis(2));
            HttpResponse<byte[]> probe = get(gw, "/svc/json/10?tag=probe" + run);
            assertThat(probe.statusCode())
                    .as("the probe once the open time has passed")
                    .isEqualTo(200);
            assertThat(upstream.count("probe" + run)).isEqualTo(1);
            for (int i = 0; i < 5; i++) {
                assertThat(get(gw, "/svc/json/10").statusCode())
                        .as("closed again")
                        .isEqualTo(200);
            }
        }
    }
}
