package dev.sluice.tck;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.AnswerTarget;
import dev.sluice.config.Backends;
import dev.sluice.config.FilterConfig;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.observe.MirrorEvent;
import dev.sluice.routing.RedirectLocation;
import dev.sluice.routing.WeightedChoice;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Traffic management (issue 31): redirects and fixed responses the gateway gives itself, path
 * rewriting and {@code preserve-host}, weighted routes and mirroring. Each decision is the core's;
 * these tests hold every engine to it.
 */
public abstract class TrafficContract extends ContractFixture {

    private static AnswerTarget.Redirect redirect(String to, int status, boolean keepQuery) {
        return new AnswerTarget.Redirect(RedirectLocation.parse(to), status, keepQuery);
    }

    @Test
    void redirectAnswersItsStatusWithTheTemplatedLocation() {
        try (TestGateway gw = gateway()
                .route("moved", on("/old/{id}/**"), redirect("https://{host}/new/{id}/{**}", 308, true))
                .route("temp", on("/temp/{id}"), redirect("/elsewhere/{id}?from=old", 302, false))
                .start()) {
            WireResponse moved =
                    gw.wire().send(WireRequest.get("/old/42/a/b?x=1&y=2").header("Host", "shop.test:8080"));
            assertThat(moved.status()).isEqualTo(308);
            assertThat(moved.header("Location")).contains("https://shop.test/new/42/a/b?x=1&y=2");
            assertThat(moved.length()).isZero();

            WireResponse temp = gw.wire().send(WireRequest.get("/temp/a%26b?dropped=1"));
            assertThat(temp.status()).isEqualTo(302);
            assertThat(temp.header("Location")).contains("/elsewhere/a%26b?from=old");
        }
    }

    @Test
    void httpsUpgradeKeepsPathAndQuery() {
        try (TestGateway gw = gateway()
                .route("upgrade", on("/**"), new AnswerTarget.Redirect(RedirectLocation.https(), 301, true))
                .start()) {
            WireResponse response =
                    gw.wire().send(WireRequest.get("/a/./b/../c?q=1").header("Host", "secure.test"));
            assertThat(response.status()).isEqualTo(301);
            assertThat(response.header("Location")).contains("https://secure.test/a/c?q=1");
        }
    }

    @Test
    void redirectRefusesAHostThatWouldChangeTheLocationsShape() {
        try (TestGateway gw = gateway()
                .route("upgrade", on("/**"), new AnswerTarget.Redirect(RedirectLocation.https(), 301, true))
                .start()) {
            WireResponse response = gw.wire().send(WireRequest.get("/a").header("Host", "evil.test%2Fx"));
            assertThat(response.status()).isEqualTo(400);
            assertThat(response.header("Location")).isEmpty();
        }
    }

    @Test
    void respondAnswersTheFixedStatusBodyAndType() {
        try (TestGateway gw = gateway()
                .route("teapot", on("/brew"), new AnswerTarget.Respond(418, "short and stout", "text/plain"))
                .route("gone", on("/gone"), new AnswerTarget.Respond(204, "", AnswerTarget.Respond.TEXT))
                .start()) {
            WireResponse teapot = gw.wire().send(WireRequest.of("POST", "/brew").body("ignored".getBytes()));
            assertThat(teapot.status()).isEqualTo(418);
            assertThat(teapot.header("Content-Type")).contains("text/plain");
            assertThat(teapot.bodyText()).isEqualTo("short and stout");

            WireResponse head = gw.wire().send(WireRequest.of("HEAD", "/brew"));
            assertThat(head.status()).isEqualTo(418);
            assertThat(head.length()).isZero();

            WireResponse gone = gw.wire().send(WireRequest.get("/gone"));
            assertThat(gone.status()).isEqualTo(204);
            assertThat(gone.header("Content-Type")).isEmpty();
        }
    }

    @Test
    void respondRunsTheRoutesPoliciesFirst() {
        try (TestGateway gw = gateway()
                .route(
                        "status",
                        on("/status"),
                        new AnswerTarget.Respond(200, "{\"up\":true}", "application/json"),
                        new FilterConfig.IpFilter(List.of("192.0.2.0/24"), List.of(), List.of()))
                .start()) {
            assertError(gw.wire().send(WireRequest.get("/status")), 403, "forbidden");
        }
    }

    @Test
    void rewriteMakesTheUpstreamPathFromGroupsAndKeepsTheQuery() {
        try (TestGateway gw = gateway()
                .route(
                        "api",
                        on("/api/**"),
                        proxy(APP).rewrite("^/api/(?<version>v[0-9]+)/(.*)$", "/inspect/${version}/svc/$2"))
                .start()) {
            Map<String, Object> seen = inspected(get(gw, "/api/v2/orders/7?x=1"));
            assertThat(seen.get("path")).isEqualTo("/inspect/v2/svc/orders/7");
            assertThat(seen.get("query")).isEqualTo("x=1");
        }
    }

    @Test
    void aCapturedGroupCannotInjectADotSegmentOrAQuery() {
        try (TestGateway gw = gateway()
                .route("dots", on("/a/**"), proxy(APP).rewrite("^/a/x([^/]*)", "/inspect/b/$1/c"))
                .start()) {
            assertThat(inspected(get(gw, "/a/xy")).get("path")).isEqualTo("/inspect/b/y/c");
            // the group is "." or "..": the upstream path would climb; refused before any upstream is asked
            assertError(gw.wire().send(WireRequest.get("/a/x.")), 400, "bad_request");
            assertError(gw.wire().send(WireRequest.get("/a/x..")), 400, "bad_request");
            assertError(gw.wire().send(WireRequest.get("/a/x%2E%2E")), 400, "bad_request");
            // an encoded '?' stays encoded: it is part of the path, never a query
            Map<String, Object> encoded = inspected(get(gw, "/a/x%3Fadmin=1"));
            assertThat(encoded.get("path")).isEqualTo("/inspect/b/%3Fadmin=1/c");
            assertThat(encoded.get("query")).isIn(null, Json.NULL);
        }
    }

    @Test
    void preserveHostSendsTheClientsHostUpstream() {
        try (TestGateway gw = gateway()
                .route("kept", on("/kept/**"), proxy(APP).path("/inspect/k").preserveHost())
                .route("own", on("/own/**"), proxy(APP).path("/inspect/o"))
                .start()) {
            Map<String, Object> kept = Json.object(gw.wire()
                    .send(WireRequest.get("/kept/x").header("Host", "shop.test:8443"))
                    .body());
            assertThat(headerValues(kept, "host")).containsExactly("shop.test:8443");
            Map<String, Object> own = Json.object(gw.wire()
                    .send(WireRequest.get("/own/x").header("Host", "shop.test:8443"))
                    .body());
            assertThat(headerValues(own, "host")).containsExactly(upstream.url().getAuthority());
        }
    }

    private static Backends weights(int first, int second, Optional<Backends.Sticky> sticky) {
        return new Backends(List.of(new Backends.Backend(APP, first), new Backends.Backend(CANARY, second)), sticky);
    }

    private static final String CANARY = "canary";

    /** The authority of the upstream that answered an {@code /inspect} request: its Host. */
    private static String side(WireResponse response) {
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return headerValues(Json.object(response.body()), "host").getFirst();
    }

    @Test
    void aWeightOfZeroNeverGetsARequestAndEachSideIsReportedByItsUpstream() throws InterruptedException {
        ObserverContract.Recorder recorder = new ObserverContract.Recorder();
        try (TestUpstream canary = TestUpstream.start();
                TestGateway gw = gateway()
                        .upstream(CANARY, canary.url())
                        .observer(recorder)
                        .route(
                                "all-app",
                                on("/a/**"),
                                proxy(APP).path("/inspect/a").backends(weights(100, 0, Optional.empty())))
                        .route(
                                "all-canary",
                                on("/c/**"),
                                proxy(APP).path("/inspect/c").backends(weights(0, 100, Optional.empty())))
                        .start()) {
            for (int i = 0; i < 10; i++) {
                assertThat(side(gw.wire().send(WireRequest.get("/a/" + i))))
                        .isEqualTo(upstream.url().getAuthority());
                assertThat(recorder.nextCall().upstream()).isEqualTo(APP);
                assertThat(side(gw.wire().send(WireRequest.get("/c/" + i))))
                        .isEqualTo(canary.url().getAuthority());
                assertThat(recorder.nextCall().upstream()).isEqualTo(CANARY);
            }
        }
    }

    @Test
    void aStickyCookieKeepsAClientOnTheSideItsValueHashesTo() {
        Backends backends = weights(50, 50, Optional.of(new Backends.Sticky(Backends.Sticky.Kind.COOKIE, "user")));
        WeightedChoice core = WeightedChoice.of(backends, bound -> {
            throw new AssertionError("a sticky value is never placed at random");
        });
        // one client the core places on each side
        String[] onSide = new String[2];
        for (int i = 0; onSide[0] == null || onSide[1] == null; i++) {
            String user = "user-" + i;
            onSide[core.pick(name -> name.equalsIgnoreCase("cookie") ? List.of("user=" + user) : List.of())] = user;
        }
        try (TestUpstream canary = TestUpstream.start();
                TestGateway gw = gateway()
                        .upstream(CANARY, canary.url())
                        .route(
                                "split",
                                on("/s/**"),
                                proxy(APP).path("/inspect/s").backends(backends))
                        .start()) {
            String[] authorities = {upstream.url().getAuthority(), canary.url().getAuthority()};
            for (int round = 0; round < 5; round++) {
                for (int s = 0; s < 2; s++) {
                    WireResponse response =
                            gw.wire().send(WireRequest.get("/s/x").header("Cookie", "theme=dark; user=" + onSide[s]));
                    assertThat(side(response))
                            .as("%s, round %d", onSide[s], round)
                            .isEqualTo(authorities[s]);
                }
            }
        }
    }

    /** Keeps the mirror events, for the test thread to take. */
    private static final class MirrorEvents implements GatewayObserver {
        final LinkedBlockingQueue<MirrorEvent> events = new LinkedBlockingQueue<>();

        @Override
        public void mirror(MirrorEvent event) {
            events.add(event);
        }

        MirrorEvent next() throws InterruptedException {
            MirrorEvent event = events.poll(10, TimeUnit.SECONDS);
            assertThat(event).as("a mirror event within 10 s").isNotNull();
            return event;
        }
    }

    private static final String SHADOW = "shadow";

    @Test
    void theMirrorGetsACopyOfTheHeadAndAPostsBodyByteForByte() throws Exception {
        try (RecordingUpstream shadow = RecordingUpstream.start();
                TestGateway gw = gateway()
                        .upstream(SHADOW, shadow.url())
                        .route("mirrored", on("/inspect/**"), proxy(APP).mirror(SHADOW, 100, 16))
                        .start()) {
            WireResponse answer =
                    gw.wire().send(WireRequest.get("/inspect/m?q=1").header("X-Test", "copied"));
            assertThat(answer.status()).isEqualTo(200);
            assertThat(Json.object(answer.body()).get("path")).isEqualTo("/inspect/m");

            RecordingUpstream.Received copy = shadow.next(Duration.ofSeconds(10));
            assertThat(copy).as("a copy within 10 s").isNotNull();
            assertThat(copy.head()).startsWith("GET /inspect/m?q=1 HTTP/1.1\r\n");
            assertThat(copy.head().toLowerCase(java.util.Locale.ROOT))
                    .contains("\r\nx-test: copied\r\n")
                    .contains("\r\nhost: " + shadow.url().getAuthority() + "\r\n");
            assertThat(copy.body()).isEmpty();

            GeneratedBody sized = GeneratedBody.binary(40_000);
            WireResponse posted =
                    gw.wire().send(WireRequest.of("POST", "/inspect/p").body(sized));
            assertThat(Json.object(posted.body()))
                    .as("the client's answer is the primary's")
                    .containsEntry("path", "/inspect/p")
                    .containsEntry("sha256", sized.sha256());
            RecordingUpstream.Received postCopy = shadow.next(Duration.ofSeconds(10));
            assertThat(postCopy).as("a copy of the POST within 10 s").isNotNull();
            assertThat(postCopy.head()).startsWith("POST /inspect/p HTTP/1.1\r\n");
            assertThat(postCopy.whole()).isTrue();
            assertThat(postCopy.body()).isEqualTo(sized.bytes());

            GeneratedBody chunked = GeneratedBody.json(30_000);
            WireResponse put =
                    gw.wire().send(WireRequest.of("PUT", "/inspect/c").chunked(chunked, 4096));
            assertThat(Json.object(put.body())).containsEntry("sha256", chunked.sha256());
            RecordingUpstream.Received putCopy = shadow.next(Duration.ofSeconds(10));
            assertThat(putCopy).as("a copy of the chunked PUT within 10 s").isNotNull();
            assertThat(putCopy.head()).startsWith("PUT /inspect/c HTTP/1.1\r\n");
            assertThat(putCopy.whole()).isTrue();
            assertThat(decoded(putCopy)).isEqualTo(chunked.bytes());
        }
    }

    /** A proxy to {@code path} on weighted sides ({@code app}% to the app, the rest to the canary), mirrored whole. */
    private static Routes.ProxySpec mirroredSides(String path, int app) {
        return proxy(APP)
                .path(path)
                .backends(weights(app, 100 - app, Optional.empty()))
                .mirror(SHADOW, 100, 16);
    }

    /**
     * With both {@code backends:} and {@code mirror:} (the core's {@code TrafficPlan} nests them), the
     * mirror stands around the choice: every request is copied once, whichever side answers it. The
     * copies are taken as they come; a last request, to a third path, closes the count, so a second copy of any
     * earlier one would stand among them.
     */
    @Test
    void aMirrorAroundWeightedSidesCopiesEachRequestOnceWhicheverSideAnswers() throws Exception {
        try (TestUpstream canary = TestUpstream.start();
                RecordingUpstream shadow = RecordingUpstream.start();
                TestGateway gw = gateway()
                        .upstream(CANARY, canary.url())
                        .upstream(SHADOW, shadow.url())
                        .route("to-app", on("/a/**"), mirroredSides("/inspect/a", 100))
                        .route("to-canary", on("/c/**"), mirroredSides("/inspect/c", 0))
                        .route("last", on("/z/**"), mirroredSides("/inspect/z", 100))
                        .start()) {
            List<String> sent = new java.util.ArrayList<>();
            for (int i = 0; i < 4; i++) {
                assertThat(side(gw.wire().send(WireRequest.get("/a/" + i))))
                        .isEqualTo(upstream.url().getAuthority());
                assertThat(side(gw.wire().send(WireRequest.get("/c/" + i))))
                        .isEqualTo(canary.url().getAuthority());
                sent.add("GET /inspect/a ");
                sent.add("GET /inspect/c ");
            }
            List<String> copies = new java.util.ArrayList<>();
            for (int i = 0; i < sent.size(); i++) {
                RecordingUpstream.Received copy = shadow.next(Duration.ofSeconds(10));
                assertThat(copy)
                        .as("copy %d of %d within 10 s", i + 1, sent.size())
                        .isNotNull();
                copies.add(copy.head().substring(0, copy.head().indexOf("HTTP/")));
            }
            assertThat(side(gw.wire().send(WireRequest.get("/z/last"))))
                    .isEqualTo(upstream.url().getAuthority());
            RecordingUpstream.Received last = shadow.next(Duration.ofSeconds(10));
            assertThat(last).as("the last request's copy within 10 s").isNotNull();
            assertThat(last.head()).as("no request was copied twice").startsWith("GET /inspect/z HTTP/1.1");
            assertThat(copies).containsExactlyInAnyOrderElementsOf(sent);
        }
    }

    /**
     * A copy is a call to the mirror's upstream, reported as any call is (the core's {@code
     * UpstreamEvent.answered} / {@code failed}, under the route's id): its answer's status, or the
     * failure of a mirror that refuses the connection. The client's answer is the primary's either way.
     */
    @Test
    void aCopyIsReportedAsACallToTheMirrorsUpstream() throws Exception {
        ObserverContract.Recorder recorder = new ObserverContract.Recorder();
        try (RecordingUpstream shadow = RecordingUpstream.start();
                TestGateway gw = gateway()
                        .upstream(SHADOW, shadow.url())
                        .upstream("gone", refusedUrl())
                        .observer(recorder)
                        .route("mirrored", on("/inspect/**"), proxy(APP).mirror(SHADOW, 100, 16))
                        .route(
                                "to-nowhere",
                                on("/n/**"),
                                proxy(APP).path("/inspect/n").mirror("gone", 100, 16))
                        .start()) {
            assertThat(gw.wire().get("/inspect/m").status()).isEqualTo(200);
            List<dev.sluice.observe.UpstreamEvent> answered = List.of(recorder.nextCall(), recorder.nextCall());
            assertThat(answered)
                    .as("the route's call and the copy's, in either order")
                    .extracting(e -> e.route() + " " + e.upstream() + " " + e.outcome() + " " + e.status())
                    .containsExactlyInAnyOrder(
                            "mirrored " + APP + " " + dev.sluice.observe.UpstreamOutcome.of(200) + " 200",
                            "mirrored " + SHADOW + " " + dev.sluice.observe.UpstreamOutcome.of(200) + " 200");

            assertThat(gw.wire().get("/n/x").status()).isEqualTo(200);
            List<dev.sluice.observe.UpstreamEvent> refused = List.of(recorder.nextCall(), recorder.nextCall());
            assertThat(refused)
                    .extracting(e -> e.route() + " " + e.upstream() + " " + e.outcome() + " " + e.status())
                    .containsExactlyInAnyOrder(
                            "to-nowhere " + APP + " " + dev.sluice.observe.UpstreamOutcome.of(200) + " 200",
                            "to-nowhere gone "
                                    + dev.sluice.observe.UpstreamOutcome.of(dev.sluice.http.UpstreamFailure.REFUSED)
                                    + " 0");
        }
    }

    /**
     * A copy the mirror's breakers refuse (every one open: nothing is sent) is reported as a proxied
     * call refused so is, {@code circuit_open}: the reactive engine dropped it unreported. Four copies
     * answered {@code 503} open the breaker (the gateway's clock stands still, so it stays open).
     */
    @Test
    void aCopyTheMirrorsBreakerRefusesIsReportedCircuitOpen() throws Exception {
        ObserverContract.Recorder recorder = new ObserverContract.Recorder();
        var breaker = new dev.sluice.config.UpstreamResilience.CircuitBreaker(
                50, 100, Duration.ofSeconds(10), 4, 4, Duration.ofSeconds(30), 1);
        var guarded = new dev.sluice.config.UpstreamResilience(
                List.of(upstream.url()),
                dev.sluice.config.UpstreamResilience.Balance.ROUND_ROBIN,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.of(breaker));
        try (TestGateway gw = gateway()
                .ticker(new ManualTicker())
                .upstream(Routes.upstream(SHADOW, upstream.url()).resilience(guarded))
                .observer(recorder)
                .route("mirrored", on("/m/**"), proxy(APP).stripPrefix("/m").mirror(SHADOW, 100, 16))
                .start()) {
            for (int i = 0; i < 4; i++) {
                assertThat(gw.wire().get("/m/json/10?status=503").status()).isEqualTo(503);
                dev.sluice.observe.UpstreamEvent copy = nextCallTo(recorder, SHADOW);
                assertThat(copy.status()).as("copy %d", i + 1).isEqualTo(503);
            }
            assertThat(gw.wire().get("/m/json/10").status()).isEqualTo(200);
            dev.sluice.observe.UpstreamEvent refused = nextCallTo(recorder, SHADOW);
            assertThat(refused.outcome())
                    .isEqualTo(dev.sluice.observe.UpstreamOutcome.of(dev.sluice.http.UpstreamFailure.CIRCUIT_OPEN));
            assertThat(refused.route()).isEqualTo("mirrored");
        }
    }

    /** The next upstream event of a call to {@code upstream}, others passed over. */
    private static dev.sluice.observe.UpstreamEvent nextCallTo(ObserverContract.Recorder recorder, String upstream)
            throws InterruptedException {
        while (true) {
            dev.sluice.observe.UpstreamEvent event = recorder.nextCall();
            if (event.upstream().equals(upstream)) {
                return event;
            }
        }
    }

    @Test
    void anHttp2UploadWithoutALengthReachesTheMirrorByteForByte() throws Exception {
        GeneratedBody body = GeneratedBody.binary(100_000); // several DATA frames
        try (RecordingUpstream shadow = RecordingUpstream.start();
                TestGateway gw = gateway()
                        .upstream(SHADOW, shadow.url())
                        .route("mirrored", on("/inspect/**"), proxy(APP).mirror(SHADOW, 100, 16, 200_000))
                        .start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            wire.openRequest(1, "POST", gw.authority(), "/inspect/h2");
            wire.upload(1, body.stream());
            RecordingUpstream.Received copy = shadow.next(Duration.ofSeconds(10));
            assertThat(copy).as("a copy of the h2 POST within 10 s").isNotNull();
            assertThat(copy.head()).startsWith("POST /inspect/h2 HTTP/1.1\r\n");
            assertThat(copy.whole()).isTrue();
            assertThat(decoded(copy)).isEqualTo(body.bytes());
        }
    }

    /** A copy's body as sent: chunked coding undone when it was chunked. */
    private static byte[] decoded(RecordingUpstream.Received copy) throws java.io.IOException {
        if (!copy.head().toLowerCase(java.util.Locale.ROOT).contains("\r\ntransfer-encoding: chunked")) {
            return copy.body();
        }
        java.io.InputStream in = new java.io.ByteArrayInputStream(copy.body());
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] data = ChunkedWire.chunk(in); data.length > 0; data = ChunkedWire.chunk(in)) {
            out.write(data);
        }
        return out.toByteArray();
    }

    @Test
    void aBodyPastMaxBodyIsNotCopiedAndTheMirrorNeverSeesACopyThatLooksWhole() throws Exception {
        MirrorEvents observed = new MirrorEvents();
        try (RecordingUpstream shadow = RecordingUpstream.start();
                TestGateway gw = gateway()
                        .upstream(SHADOW, shadow.url())
                        .observer(observed)
                        .route("mirrored", on("/inspect/**"), proxy(APP).mirror(SHADOW, 100, 16, 8192))
                        .start()) {
            GeneratedBody large = GeneratedBody.binary(50_000);
            WireResponse declared =
                    gw.wire().send(WireRequest.of("POST", "/inspect/d").body(large));
            assertThat(Json.object(declared.body())).containsEntry("sha256", large.sha256());
            assertThat(observed.next())
                    .as("a Content-Length past max-body")
                    .isEqualTo(new MirrorEvent("mirrored", SHADOW, MirrorEvent.Outcome.BODY_TOO_LARGE));

            WireResponse streamed =
                    gw.wire().send(WireRequest.of("POST", "/inspect/s").chunked(large, 2048));
            assertThat(Json.object(streamed.body())).containsEntry("sha256", large.sha256());
            assertThat(observed.next())
                    .as("a chunked body found past max-body")
                    .isEqualTo(new MirrorEvent("mirrored", SHADOW, MirrorEvent.Outcome.BODY_TOO_LARGE));

            // a marker request: whatever the mirror got before it is the aborted copy, never whole
            gw.wire().send(WireRequest.get("/inspect/marker"));
            while (true) {
                RecordingUpstream.Received got = shadow.next(Duration.ofSeconds(10));
                assertThat(got).as("the marker's copy within 10 s").isNotNull();
                if (got.head().startsWith("GET /inspect/marker ")) {
                    break;
                }
                assertThat(got.head()).startsWith("POST /inspect/s ");
                assertThat(got.whole())
                        .as("an aborted copy does not look whole")
                        .isFalse();
            }
        }
    }

    @Test
    void aMirrorThatNeverReadsDoesNotStallAnUploadFarLargerThanItsMaxBody() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                TestGateway gw = gateway()
                        .upstream(Routes.upstream(SHADOW, URI.create("http://127.0.0.1:" + silent.getLocalPort()))
                                .readTimeout(Duration.ofMinutes(5)))
                        .route("silent", on("/inspect/**"), proxy(APP).mirror(SHADOW, 100, 4, 2 * 1024 * 1024))
                        .start()) {
            GeneratedBody within = GeneratedBody.binary(2 * 1024 * 1024); // more than a socket buffer
            WireResponse held =
                    gw.wire().send(WireRequest.of("POST", "/inspect/w").body(within));
            assertThat(held.status()).isEqualTo(200);
            assertThat(Json.object(held.body())).containsEntry("sha256", within.sha256());
            GeneratedBody far = GeneratedBody.binary(16 * 1024 * 1024);
            WireResponse answer =
                    gw.wire().send(WireRequest.of("POST", "/inspect/f").chunked(far, 65_536));
            assertThat(answer.status()).isEqualTo(200);
            assertThat(Json.object(answer.body())).containsEntry("sha256", far.sha256());
        }
    }

    @Test
    void aMirrorThatNeverAnswersOrRefusesLeavesTheClientsAnswerAloneAndCopiesBeyondTheBoundAreDropped()
            throws Exception {
        MirrorEvents observed = new MirrorEvents();
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                TestGateway gw = gateway()
                        .upstream(Routes.upstream(SHADOW, URI.create("http://127.0.0.1:" + silent.getLocalPort()))
                                .readTimeout(Duration.ofMinutes(5)))
                        .upstream("refusing", RefusingPort.shared().url())
                        .observer(observed)
                        .route("silent", on("/inspect/s/**"), proxy(APP).mirror(SHADOW, 100, 2))
                        .route("refused", on("/inspect/r/**"), proxy(APP).mirror("refusing", 100, 1))
                        .start()) {
            for (int i = 0; i < 4; i++) {
                WireResponse answer = gw.wire().send(WireRequest.get("/inspect/s/" + i));
                assertThat(answer.status()).isEqualTo(200);
                assertThat(answer.totalMillis())
                        .as("the client's answer does not wait for the mirror's")
                        .isLessThan(5_000);
            }
            // two copies wait on the silent mirror: the third and fourth are dropped, and counted
            assertThat(observed.next()).isEqualTo(new MirrorEvent("silent", SHADOW, MirrorEvent.Outcome.DROPPED));
            assertThat(observed.next()).isEqualTo(new MirrorEvent("silent", SHADOW, MirrorEvent.Outcome.DROPPED));
            for (int i = 0; i < 3; i++) {
                WireResponse answer = gw.wire().send(WireRequest.get("/inspect/r/" + i));
                assertThat(answer.status()).isEqualTo(200);
                assertThat(Json.object(answer.body()).get("path")).isEqualTo("/inspect/r/" + i);
            }
            GeneratedBody posted = GeneratedBody.binary(20_000); // a copy with a body and no connection
            for (int i = 0; i < 3; i++) {
                WireResponse answer =
                        gw.wire().send(WireRequest.of("POST", "/inspect/r/p").body(posted));
                assertThat(Json.object(answer.body())).containsEntry("sha256", posted.sha256());
            }
        }
    }
}
