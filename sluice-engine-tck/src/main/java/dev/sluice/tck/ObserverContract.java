package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ComposeTarget.Order;
import dev.sluice.config.FilterConfig;
import dev.sluice.observe.ExchangeEvent;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.observe.PartEvent;
import dev.sluice.observe.PartKind;
import dev.sluice.observe.UpstreamEvent;
import dev.sluice.observe.UpstreamOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The observer seam: one event per request and one per composition part, the same in every mode. An
 * event may come a little after the client has its last byte (it is told once the write is done), so
 * the test waits for each, boundedly.
 */
public abstract class ObserverContract extends ContractFixture {

    /** Keeps every event, for the test thread to take. */
    static final class Recorder implements GatewayObserver {
        final LinkedBlockingQueue<ExchangeEvent> exchanges = new LinkedBlockingQueue<>();
        final LinkedBlockingQueue<PartEvent> parts = new LinkedBlockingQueue<>();
        final LinkedBlockingQueue<UpstreamEvent> calls = new LinkedBlockingQueue<>();

        @Override
        public void upstream(UpstreamEvent event) {
            calls.add(event);
        }

        UpstreamEvent nextCall() throws InterruptedException {
            UpstreamEvent event = calls.poll(10, TimeUnit.SECONDS);
            assertThat(event).as("an upstream event within 10 s").isNotNull();
            return event;
        }

        @Override
        public void exchange(ExchangeEvent event) {
            exchanges.add(event);
        }

        @Override
        public void part(PartEvent event) {
            parts.add(event);
        }

        ExchangeEvent nextExchange() throws InterruptedException {
            ExchangeEvent event = exchanges.poll(10, TimeUnit.SECONDS);
            assertThat(event).as("an exchange event within 10 s").isNotNull();
            return event;
        }

        List<PartEvent> nextParts(int count) throws InterruptedException {
            List<PartEvent> events = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                PartEvent event = parts.poll(10, TimeUnit.SECONDS);
                assertThat(event)
                        .as("part event %d of %d within 10 s", i + 1, count)
                        .isNotNull();
                events.add(event);
            }
            return events;
        }
    }

    @Test
    void everyRequestIsOneEventWithItsRouteStatusAndDuration() throws InterruptedException {
        Recorder recorder = new Recorder();
        try (TestGateway gw = gateway()
                .observer(recorder)
                .route("api", on("/api/**"), proxy(APP).stripPrefix("/api"))
                .start()) {
            assertThat(gw.wire()
                            .send(WireRequest.get("/api/json/10?secret=1").header("X-Request-Id", "obs-1"))
                            .status())
                    .isEqualTo(200);
            ExchangeEvent proxied = recorder.nextExchange();
            assertThat(proxied.route()).isEqualTo("api");
            assertThat(proxied.path()).as("the path, without its query").isEqualTo("/api/json/10");
            assertThat(proxied.requestId()).isEqualTo("obs-1");
            assertThat(proxied.client()).isEqualTo("127.0.0.1");
            assertThat(proxied.method()).isEqualTo("GET");
            assertThat(proxied.status()).isEqualTo(200);
            assertThat(proxied.aborted()).isFalse();
            assertThat(proxied.durationNanos()).isPositive();

            assertThat(gw.wire().get("/nowhere").status()).isEqualTo(404);
            ExchangeEvent missing = recorder.nextExchange();
            assertThat(missing.route()).as("no route matched").isEmpty();
            assertThat(missing.path()).isEqualTo("/nowhere");
            assertThat(dev.sluice.http.RequestId.isSane(missing.requestId())).isTrue();
            assertThat(missing.status()).isEqualTo(404);

            String failing = upstream.respond(503, "application/json", "{}");
            assertThat(gw.wire().get("/api" + failing).status()).isEqualTo(503);
            assertThat(recorder.nextExchange().status()).isEqualTo(503);
            // one event per request: waited for, not checked right after a poll (a second event of
            // the 503 could come after it): the next event is the next request's, not another
            assertThat(gw.wire().get("/after").status()).isEqualTo(404);
            ExchangeEvent next = recorder.nextExchange();
            assertThat(next.path())
                    .as("one event per request: the next is the next request's")
                    .isEqualTo("/after");
            assertThat(next.status()).isEqualTo(404);
        }
    }

    @Test
    void everyCompositionPartIsOneEventWithItsOutcome() throws InterruptedException {
        Recorder recorder = new Recorder();
        String serverError = upstream.respond(500, "application/json", "{\"e\":1}");
        try (TestGateway gw = gateway()
                .observer(recorder)
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .order(Order.DECLARED)
                                .part("ok", APP, "/json/10")
                                .part("bad", APP, serverError))
                .start()) {
            assertThat(gw.wire().get("/page").status()).isEqualTo(200);
            List<PartEvent> parts = recorder.nextParts(2);
            assertThat(parts).extracting(PartEvent::route).containsOnly("page");
            assertThat(parts).extracting(PartEvent::upstream).containsOnly(APP);
            PartEvent ok = parts.stream()
                    .filter(p -> p.outcome().name().equals("ok"))
                    .findFirst()
                    .orElseThrow();
            assertThat(ok.outcome().isOk()).isTrue();
            assertThat(ok.outcome().status()).isEqualTo(200);
            assertThat(ok.outcome().bytes()).isEqualTo(10);
            PartEvent bad = parts.stream()
                    .filter(p -> p.outcome().name().equals("bad"))
                    .findFirst()
                    .orElseThrow();
            assertThat(bad.outcome().error()).isEqualTo(Optional.of("upstream status 500"));
            assertThat(bad.outcome().status()).isEqualTo(500);

            ExchangeEvent exchange = recorder.nextExchange();
            assertThat(exchange.route()).isEqualTo("page");
            assertThat(exchange.status()).isEqualTo(200);
            assertThat(exchange.aborted()).isFalse();
        }
    }

    @Test
    void anAbortedCompositionIsReportedAsAborted() throws InterruptedException {
        Recorder recorder = new Recorder();
        try (TestGateway gw = gateway()
                .observer(recorder)
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .order(Order.DECLARED)
                                .part("breaking", APP, "/json/400000?chunked=1&breakAt=200000")
                                .part("ok", APP, "/json/10"))
                .start()) {
            assertThat(gw.wire().get("/page").complete()).isFalse();
            ExchangeEvent exchange = recorder.nextExchange();
            assertThat(exchange.status()).isEqualTo(200);
            assertThat(exchange.aborted()).isTrue();
            List<PartEvent> parts = recorder.nextParts(2);
            assertThat(parts).extracting(p -> p.outcome().name()).containsExactlyInAnyOrder("breaking", "ok");
            assertThat(parts).allSatisfy(p -> assertThat(p.outcome().isOk()).isFalse());
        }
    }

    @Test
    void anExchangeEventCarriesItsBytesUpstreamTimeAndTraceId() throws InterruptedException {
        Recorder recorder = new Recorder();
        String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        try (TestGateway gw = gateway()
                .observer(recorder)
                .route("api", on("/api/**"), proxy(APP).stripPrefix("/api"))
                .start()) {
            byte[] sent = new byte[1234];
            java.util.Arrays.fill(sent, (byte) 'x');
            WireResponse echoed = gw.wire()
                    .send(WireRequest.of("POST", "/api/echo/x")
                            .header("traceparent", "00-" + traceId + "-00f067aa0ba902b7-01")
                            .body(sent));
            assertThat(echoed.status()).isEqualTo(200);
            ExchangeEvent posted = recorder.nextExchange();
            assertThat(posted.bytesIn()).as("request body bytes read").isEqualTo(1234);
            assertThat(posted.bytesOut())
                    .as("response body bytes the client received")
                    .isEqualTo(echoed.body().length);
            assertThat(posted.upstreamNanos()).isPositive().isLessThanOrEqualTo(posted.durationNanos());
            assertThat(posted.traceId()).as("the client's trace").isEqualTo(traceId);
            assertThat(posted.refusedBy()).isEmpty();
            assertThat(posted.parts()).isEmpty();
            UpstreamEvent call = recorder.nextCall();
            assertThat(call.route()).isEqualTo("api");
            assertThat(call.upstream()).isEqualTo(APP);
            assertThat(call.outcome()).isEqualTo(UpstreamOutcome.OK);
            assertThat(call.status()).isEqualTo(200);
            assertThat(call.latencyNanos()).isPositive();

            WireResponse got = gw.wire().get("/api/json/10");
            ExchangeEvent plain = recorder.nextExchange();
            assertThat(plain.bytesIn()).isZero();
            assertThat(plain.bytesOut()).isEqualTo(got.body().length).isEqualTo(10);
            assertThat(plain.traceId()).as("a new trace").hasSize(32).isNotEqualTo(traceId);
            assertThat(recorder.nextCall().outcome()).isEqualTo(UpstreamOutcome.OK);

            WireResponse missing = gw.wire().get("/nowhere");
            ExchangeEvent notFound = recorder.nextExchange();
            assertThat(notFound.bytesOut()).as("the error body").isEqualTo(missing.body().length);
            assertThat(notFound.upstreamNanos()).as("no upstream call").isEqualTo(-1);
            assertThat(recorder.calls).as("one upstream event per call").isEmpty();
        }
    }

    @Test
    void everyUpstreamCallIsOneEventWithItsOutcome() throws InterruptedException {
        Recorder recorder = new Recorder();
        String failing = upstream.respond(503, "application/json", "{}");
        try (TestGateway gw = gateway()
                .upstream("down", refusedUrl())
                .observer(recorder)
                .route("api", on("/api/**"), proxy(APP).stripPrefix("/api"))
                .route("slow", on("/slow/**"), proxy(APP).stripPrefix("/slow").timeout(Duration.ofMillis(200)))
                .route("down", on("/down/**"), proxy("down").stripPrefix("/down"))
                .start()) {
            assertThat(gw.wire().get("/api" + failing).status()).isEqualTo(503);
            UpstreamEvent fiveHundred = recorder.nextCall();
            assertThat(fiveHundred.outcome()).isEqualTo(UpstreamOutcome.STATUS_5XX);
            assertThat(fiveHundred.status()).isEqualTo(503);

            assertThat(gw.wire().get("/down/json/10").status()).isEqualTo(502);
            UpstreamEvent refused = recorder.nextCall();
            assertThat(refused.upstream()).isEqualTo("down");
            assertThat(refused.outcome()).isEqualTo(UpstreamOutcome.CONNECT_FAILURE);
            assertThat(refused.status()).isZero();
            assertThat(recorder.nextExchange().upstreamNanos()).isNotNegative(); // the 503's
            assertThat(recorder.nextExchange().upstreamNanos()).as("no answer").isEqualTo(-1);

            assertThat(gw.wire().get("/slow/json/10?delay=10000").status()).isEqualTo(504);
            UpstreamEvent slow = recorder.nextCall();
            assertThat(slow.outcome()).isEqualTo(UpstreamOutcome.TIMEOUT);
            assertThat(slow.latencyNanos())
                    .as("cut by the route's timeout, long before the upstream's answer")
                    .isPositive()
                    .isLessThan(Duration.ofSeconds(10).toNanos());
            assertThat(recorder.calls).isEmpty();
        }
    }

    @Test
    void aCompositionReportsEachPartsKindFirstByteAndUpstreamCall() throws InterruptedException {
        Recorder recorder = new Recorder();
        String serverError = upstream.respond(500, "application/json", "{\"e\":1}");
        String text = upstream.respond(200, "text/plain", "{}");
        try (TestGateway gw = gateway()
                .observer(recorder)
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .order(Order.DECLARED)
                                .part("ok", APP, "/json/10")
                                .part("bad", APP, serverError)
                                .part("text", APP, text)
                                .part("late", APP, "/json/10?delay=10000", Duration.ofMillis(200)))
                .start()) {
            WireResponse page = gw.wire().get("/page");
            assertThat(page.status()).isEqualTo(200);
            List<PartEvent> parts = recorder.nextParts(4);
            java.util.Map<String, PartEvent> byName = new java.util.HashMap<>();
            parts.forEach(p -> byName.put(p.outcome().name(), p));
            assertThat(byName.get("ok").kind()).isEqualTo(PartKind.OK);
            assertThat(byName.get("ok").firstByteNanos()).isPositive();
            assertThat(byName.get("bad").kind()).isEqualTo(PartKind.STATUS);
            assertThat(byName.get("bad").firstByteNanos()).isPositive();
            assertThat(byName.get("text").kind()).isEqualTo(PartKind.INVALID);
            assertThat(byName.get("late").kind()).isEqualTo(PartKind.TIMEOUT);
            assertThat(byName.get("late").firstByteNanos())
                    .as("no status line came")
                    .isEqualTo(-1);

            ExchangeEvent exchange = recorder.nextExchange();
            assertThat(exchange.bytesOut()).isEqualTo(page.body().length);
            assertThat(exchange.upstreamNanos())
                    .as("a composition's are its parts'")
                    .isEqualTo(-1);
            assertThat(exchange.parts())
                    .extracting(p -> p.outcome().name(), p -> p.outcome().status())
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("ok", 200),
                            org.assertj.core.groups.Tuple.tuple("bad", 500),
                            org.assertj.core.groups.Tuple.tuple("text", 200),
                            org.assertj.core.groups.Tuple.tuple("late", 0));

            java.util.Map<UpstreamOutcome, Integer> calls = new java.util.EnumMap<>(UpstreamOutcome.class);
            for (int i = 0; i < 4; i++) {
                UpstreamEvent call = recorder.nextCall();
                assertThat(call.route()).isEqualTo("page");
                calls.merge(call.outcome(), 1, Integer::sum);
            }
            assertThat(calls)
                    .containsExactlyInAnyOrderEntriesOf(java.util.Map.of(
                            UpstreamOutcome.OK, 2, UpstreamOutcome.STATUS_5XX, 1, UpstreamOutcome.TIMEOUT, 1));
        }
    }

    @Test
    void aPolicyRefusalNamesThePolicy() throws InterruptedException {
        Recorder recorder = new Recorder();
        try (TestGateway gw = gateway()
                .observer(recorder)
                .route(
                        "closed",
                        on("/closed/**"),
                        proxy(APP).stripPrefix("/closed"),
                        new FilterConfig.IpFilter(List.of(), List.of("127.0.0.1"), List.of()))
                .start()) {
            assertThat(gw.wire().get("/closed/json/10").status()).isEqualTo(403);
            ExchangeEvent refused = recorder.nextExchange();
            assertThat(refused.status()).isEqualTo(403);
            assertThat(refused.refusedBy()).isEqualTo("ip-filter");
            assertThat(refused.upstreamNanos()).isEqualTo(-1);
            assertThat(recorder.calls).as("the upstream sees nothing").isEmpty();
        }
    }

    /**
     * Behind a trusted proxy (a route's {@code ip-filter} naming it, here with nothing to allow or
     * deny), the client an exchange names is the one {@code X-Forwarded-For} gives, as the rate
     * limit and the IP filter see it; on a route without trusted proxies, the connection's peer,
     * whatever the header says.
     */
    @Test
    void theClientIsTheOneTheRoutesTrustedProxiesName() throws InterruptedException {
        Recorder recorder = new Recorder();
        try (TestGateway gw = gateway()
                .observer(recorder)
                .route(
                        "behind",
                        on("/behind/**"),
                        proxy(APP).stripPrefix("/behind"),
                        new FilterConfig.IpFilter(List.of(), List.of(), List.of("127.0.0.1")))
                .route("direct", on("/direct/**"), proxy(APP).stripPrefix("/direct"))
                .start()) {
            WireRequest forwarded = WireRequest.get("/behind/json/10").header("X-Forwarded-For", "203.0.113.7");
            assertThat(gw.wire().send(forwarded).status()).isEqualTo(200);
            ExchangeEvent behind = recorder.nextExchange();
            assertThat(behind.route()).isEqualTo("behind");
            assertThat(behind.client()).isEqualTo("203.0.113.7");

            WireRequest claimed = WireRequest.get("/direct/json/10").header("X-Forwarded-For", "203.0.113.7");
            assertThat(gw.wire().send(claimed).status()).isEqualTo(200);
            ExchangeEvent direct = recorder.nextExchange();
            assertThat(direct.route()).isEqualTo("direct");
            assertThat(direct.client()).as("no trusted proxy: the peer").isEqualTo("127.0.0.1");
        }
    }

    static Stream<Arguments> headsRefusedBeforeRouting() {
        return Stream.of(
                Arguments.of(
                        "HTTP/1.1 without Host",
                        "GET /up/x?q=1 HTTP/1.1\r\nX-Request-Id: refused-1\r\n\r\n",
                        400,
                        "request-framing",
                        "GET",
                        "/up/x"),
                Arguments.of(
                        "a control byte in the target",
                        "GET /up/a\u0000b HTTP/1.1\r\nHost: h\r\n\r\n",
                        400,
                        "request-framing",
                        "-",
                        "-"),
                Arguments.of(
                        "Transfer-Encoding with Content-Length",
                        "POST /up/x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n"
                                + "5\r\nhello\r\n0\r\n\r\n",
                        400,
                        "request-framing",
                        "POST",
                        "/up/x"),
                Arguments.of(
                        "a 70 KB header line",
                        "GET /up/x HTTP/1.1\r\nHost: h\r\nX-Big: " + "a".repeat(70 * 1024) + "\r\n\r\n",
                        431,
                        "server-limits",
                        "GET",
                        "/up/x"),
                Arguments.of(
                        "a 70 KB request line",
                        "GET /up/" + "a".repeat(70 * 1024) + " HTTP/1.1\r\nHost: h\r\n\r\n",
                        414,
                        "server-limits",
                        "-",
                        "-"),
                Arguments.of(
                        "HTTP/2.0 on an HTTP/1.1 connection",
                        "GET /up/x HTTP/2.0\r\nHost: h\r\n\r\n",
                        505,
                        "request-framing",
                        "-",
                        "-"));
    }

    /**
     * A head refused before routing (by the HTTP parser, {@code RequestFraming} or {@code
     * server.limits}) is one event like any answered request, with an empty route and who refused it.
     * A request sent after it on a new connection is the next event: no second one for the refusal.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("headsRefusedBeforeRouting")
    void aHeadRefusedBeforeRoutingIsOneEvent(
            String what, String head, int status, String refusedBy, String method, String path)
            throws InterruptedException {
        Recorder recorder = new Recorder();
        try (TestGateway gw = gateway()
                .observer(recorder)
                .route("api", on("/up/**"), proxy(APP).stripPrefix("/up"))
                .start()) {
            WireClient.RawExchange refused =
                    gw.wire().timeout(Duration.ofSeconds(20)).sendRaw(head.getBytes(StandardCharsets.ISO_8859_1), 1);
            WireResponse answer = refused.responses().getFirst();
            assertThat(answer.status()).isEqualTo(status);

            ExchangeEvent event = recorder.nextExchange();
            assertThat(event.route()).as("no route: %s", what).isEmpty();
            assertThat(event.status()).isEqualTo(status);
            assertThat(event.refusedBy()).isEqualTo(refusedBy);
            assertThat(event.method()).isEqualTo(method);
            assertThat(event.path()).isEqualTo(path);
            assertThat(event.aborted()).isFalse();
            assertThat(event.client()).isEqualTo("127.0.0.1");
            assertThat(event.requestId())
                    .as("a new id: no field of a refused head is trusted")
                    .isNotEqualTo("refused-1")
                    .matches(dev.sluice.http.RequestId::isSane);
            assertThat(event.durationNanos()).isNotNegative();
            assertThat(event.bytesIn()).isZero();
            assertThat(event.bytesOut()).as("the error body").isEqualTo(answer.body().length);
            assertThat(event.upstreamNanos()).isEqualTo(-1);
            assertThat(event.parts()).isEmpty();

            assertThat(gw.wire().get("/nowhere").status()).isEqualTo(404);
            assertThat(recorder.nextExchange().path())
                    .as("the next event is the next request's: one event for %s", what)
                    .isEqualTo("/nowhere");
            assertThat(recorder.exchanges).isEmpty();
            assertThat(recorder.calls).as("the upstream sees nothing").isEmpty();
        }
    }

    @Test
    void aHeadNotWholeWithinTheHeaderTimeoutIsOne408Event() throws InterruptedException {
        Recorder recorder = new Recorder();
        dev.sluice.config.ServerLimits d = dev.sluice.config.ServerLimits.defaults();
        try (TestGateway gw = gateway()
                        .observer(recorder)
                        .limits(new dev.sluice.config.ServerLimits(
                                d.maxRequestLine(),
                                d.maxHeaderBytes(),
                                d.maxHeaders(),
                                d.maxBody(),
                                Duration.ofMillis(300),
                                d.idleTimeout(),
                                d.maxConnections(),
                                d.maxRequests()))
                        .route("api", on("/up/**"), proxy(APP).stripPrefix("/up"))
                        .start();
                WireClient.Connection c =
                        gw.wire().timeout(Duration.ofSeconds(20)).open()) {
            c.write("GET /up/json/10 HTTP/1.1\r\nHost: h\r\n"); // the head's end never comes
            WireResponse answer = c.response();
            assertThat(answer.status()).isEqualTo(408);

            ExchangeEvent event = recorder.nextExchange();
            assertThat(event.route()).isEmpty();
            assertThat(event.status()).isEqualTo(408);
            assertThat(event.refusedBy()).isEqualTo("server-limits");
            assertThat(event.method()).as("its request line is not trusted").isEqualTo("-");
            assertThat(event.path()).isEqualTo("-");
            assertThat(event.client()).isEqualTo("127.0.0.1");
            assertThat(event.bytesOut()).isEqualTo(answer.body().length);

            assertThat(gw.wire().get("/nowhere").status()).isEqualTo(404);
            assertThat(recorder.nextExchange().path()).isEqualTo("/nowhere");
            assertThat(recorder.exchanges).isEmpty();
        }
    }

    /**
     * The JDK client's first request to a plain listener asks to upgrade its HTTP/1.1 connection to
     * h2c ({@code Upgrade: h2c}) and is answered on stream 1; the next goes on a stream of its own.
     * Both report the bytes their client received.
     */
    @Test
    void aRequestThatUpgradedToH2cReportsItsBytes() throws Exception {
        Recorder recorder = new Recorder();
        try (TestGateway gw = gateway()
                        .observer(recorder)
                        .route("api", on("/api/**"), proxy(APP).stripPrefix("/api"))
                        .start();
                java.net.http.HttpClient client = java.net.http.HttpClient.newBuilder()
                        .version(java.net.http.HttpClient.Version.HTTP_2)
                        .build()) {
            for (String kind : List.of("upgraded", "on its own stream")) {
                java.net.http.HttpResponse<byte[]> got = client.send(
                        java.net.http.HttpRequest.newBuilder(gw.uri("/api/json/1000"))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        java.net.http.HttpResponse.BodyHandlers.ofByteArray());
                assertThat(got.statusCode()).isEqualTo(200);
                assertThat(got.version()).as(kind).isEqualTo(java.net.http.HttpClient.Version.HTTP_2);
                ExchangeEvent event = recorder.nextExchange();
                assertThat(event.route()).isEqualTo("api");
                assertThat(event.bytesOut())
                        .as("%s: the body its client received", kind)
                        .isEqualTo(1000);
                assertThat(event.bytesIn()).isZero();
            }
        }
    }
}
