package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.requestHeaders;
import static dev.sluice.tck.Routes.responseHeaders;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ComposeTarget.Fanout;
import dev.sluice.config.ComposeTarget.Order;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Compositions that succeed: framing, order, fan-out, what each part is sent. */
public abstract class CompositionContract extends ContractFixture {

    private static byte[] json(int length) {
        return GeneratedBody.json(length).bytes();
    }

    @Test
    void partsAreSplicedVerbatimWithMeta() {
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .order(Order.DECLARED)
                                .part("a", APP, "/json/100")
                                .part("b", APP, "/json/20000?chunked=1")
                                .part("c", APP, "/json/2"))
                .start()) {
            Composed composed = Composed.of(gw.wire().get("/page"));
            composed.assertSpliced(
                    List.of(Map.entry("a", json(100)), Map.entry("b", json(20000)), Map.entry("c", json(2))),
                    List.of("a", "b", "c"));
            assertThat(composed.part("b")).isEqualTo(new String(json(20000), StandardCharsets.UTF_8).replace("\"", ""));
        }
    }

    @Test
    void objectsAndArraysAreSplicedAsTheyCame() {
        String object = upstream.respond(200, "application/json; charset=utf-8", "{ \"id\" : 7, \"tags\": [\"x\"] }");
        String array = upstream.respond(200, "application/vnd.test+json", "[1, 2.5, null]\n");
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose().order(Order.DECLARED).part("obj", APP, object).part("arr", APP, array))
                .start()) {
            Composed.of(gw.wire().get("/page"))
                    .assertSpliced(
                            List.of(
                                    Map.entry(
                                            "obj",
                                            "{ \"id\" : 7, \"tags\": [\"x\"] }".getBytes(StandardCharsets.UTF_8)),
                                    Map.entry("arr", "[1, 2.5, null]\n".getBytes(StandardCharsets.UTF_8))),
                            List.of("obj", "arr"));
        }
    }

    @Test
    void arrivalOrderRelaysTheFastPartFirst() {
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .order(Order.ARRIVAL)
                                .part("slow", APP, "/json/50?delay=1500")
                                .part("fast", APP, "/json/60"))
                .start()) {
            Composed.of(gw.wire().get("/page")); // warm the gateway up before timing it
            WireResponse response = gw.wire().get("/page");
            Composed.of(response)
                    .assertSpliced(
                            List.of(Map.entry("fast", json(60)), Map.entry("slow", json(50))), List.of("slow", "fast"));
            assertThat(response.firstBodyByteMillis())
                    .as("the first bytes come with the fast part, well before the slow one's 1500 ms")
                    .isLessThan(1000);
            assertThat(response.totalMillis()).isGreaterThanOrEqualTo(1500);
        }
    }

    @Test
    void declaredOrderRelaysInConfigurationOrder() {
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .order(Order.DECLARED)
                                .part("slow", APP, "/json/50?delay=700")
                                .part("fast", APP, "/json/60"))
                .start()) {
            Composed.of(gw.wire().get("/page"))
                    .assertSpliced(
                            List.of(Map.entry("slow", json(50)), Map.entry("fast", json(60))), List.of("slow", "fast"));
        }
    }

    @Test
    void parallelFanoutSendsAllPartsAtOnce() {
        String key = UUID.randomUUID().toString();
        byte[] met = "{\"met\":true}".getBytes(StandardCharsets.UTF_8);
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .fanout(Fanout.PARALLEL)
                                .order(Order.DECLARED)
                                .part("a", APP, "/rendezvous/" + key + "/3")
                                .part("b", APP, "/rendezvous/" + key + "/3")
                                .part("c", APP, "/rendezvous/" + key + "/3"))
                .start()) {
            Composed.of(gw.wire().get("/page"))
                    .assertSpliced(
                            List.of(Map.entry("a", met), Map.entry("b", met), Map.entry("c", met)),
                            List.of("a", "b", "c"));
        }
    }

    @Test
    void sequentialFanoutSendsEachPartAfterThePreviousBodyEnded() {
        String run = UUID.randomUUID().toString();
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .fanout(Fanout.SEQUENTIAL)
                                .order(Order.ARRIVAL)
                                .part("a", APP, "/json/30?delay=300&tag=" + run + "a")
                                .part("b", APP, "/json/31?delay=300&tag=" + run + "b")
                                .part("c", APP, "/json/32?delay=300&tag=" + run + "c"))
                .start()) {
            WireResponse response = gw.wire().get("/page");
            Composed.of(response)
                    .assertSpliced(
                            List.of(Map.entry("a", json(30)), Map.entry("b", json(31)), Map.entry("c", json(32))),
                            List.of("a", "b", "c"));
            assertThat(response.totalMillis())
                    .as("at least the sum of the delays")
                    .isGreaterThanOrEqualTo(900);
            TestUpstream.Timing a = upstream.timing(run + "a").orElseThrow();
            TestUpstream.Timing b = upstream.timing(run + "b").orElseThrow();
            TestUpstream.Timing c = upstream.timing(run + "c").orElseThrow();
            assertThat(b.startNanos()).as("b is sent after a's body ended").isGreaterThanOrEqualTo(a.endNanos());
            assertThat(c.startNanos()).as("c is sent after b's body ended").isGreaterThanOrEqualTo(b.endNanos());
        }
    }

    @Test
    void pathVariablesAndQueryParametersAreSubstituted() {
        try (TestGateway gw = gateway()
                .route(
                        "user",
                        on("/users/{id}"),
                        compose()
                                .order(Order.DECLARED)
                                .part("profile", APP, "/inspect/users/{id}")
                                .part("orders", APP, "/inspect/orders?user={id}&limit={limit}"))
                .start()) {
            Composed composed = Composed.of(gw.wire().get("/users/42?limit=5%20x&ignored=1"));
            assertThat(Json.at(composed.part("profile"), "path")).isEqualTo("/inspect/users/42");
            assertThat(Json.at(composed.part("profile"), "query")).isEqualTo(Json.NULL);
            assertThat(Json.at(composed.part("orders"), "path")).isEqualTo("/inspect/orders");
            assertThat(Json.at(composed.part("orders"), "query")).isEqualTo("user=42&limit=5%20x");
        }
    }

    @Test
    void aPartsTargetIsItsUpstreamsBasePathAndItsPathFixedOrExpanded() {
        try (TestGateway gw = gateway()
                .upstream(Routes.upstream("based", java.net.URI.create(upstream.url() + "/inspect/base")))
                .route(
                        "user",
                        on("/users/{id}"),
                        compose()
                                .order(Order.DECLARED)
                                .part("fixed", "based", "/fixed?a=1")
                                .part("expanded", "based", "/users/{id}/x"))
                .start()) {
            Composed composed = Composed.of(gw.wire().get("/users/a%20b"));
            assertThat(Json.at(composed.part("fixed"), "path")).isEqualTo("/inspect/base/fixed");
            assertThat(Json.at(composed.part("fixed"), "query")).isEqualTo("a=1");
            assertThat(Json.at(composed.part("expanded"), "path")).isEqualTo("/inspect/base/users/a%20b/x");
        }
    }

    @Test
    void partsAreGetsWithAcceptHostAndForwardedHeaders() {
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose().part("seen", APP, "/inspect/part"),
                        requestHeaders(Map.of("x-part-added", "1"), List.of("x-drop")))
                .start()) {
            Composed composed =
                    Composed.of(gw.wire().send(WireRequest.get("/page").header("X-Drop", "d")));
            @SuppressWarnings("unchecked")
            Map<String, Object> seen = (Map<String, Object>) composed.part("seen");
            assertThat(seen.get("method")).isEqualTo("GET");
            assertThat(headerValues(seen, "accept")).containsExactly("application/json");
            assertThat(headerValues(seen, "host")).containsExactly(upstream.authority());
            assertThat(headerValues(seen, "x-forwarded-for")).containsExactly("127.0.0.1");
            assertThat(headerValues(seen, "x-forwarded-proto")).containsExactly("http");
            assertThat(headerValues(seen, "x-forwarded-host")).containsExactly(gw.authority());
            assertThat(headerValues(seen, "x-part-added")).containsExactly("1");
            assertThat(headerValues(seen, "x-drop")).isEmpty();
        }
    }

    @Test
    void missingTemplateValueIsBadRequestBeforeAnyPartIsSent() throws InterruptedException {
        String run = UUID.randomUUID().toString();
        ObserverContract.Recorder recorder = new ObserverContract.Recorder();
        try (TestGateway gw = gateway()
                .observer(recorder)
                .route(
                        "page",
                        on("/page"),
                        compose().part("a", APP, "/json/10?tag=" + run).part("b", APP, "/inspect/{missing}"))
                .start()) {
            var error = assertError(gw.wire().get("/page"), 400, "bad_request");
            assertThat(error.get("message")).asString().startsWith("missing value for '{missing}': ");
            // the exchange's event lists the parts that settled, and comes after their own events
            dev.sluice.observe.ExchangeEvent refused = recorder.nextExchange();
            assertThat(refused.status()).isEqualTo(400);
            assertThat(refused.parts()).as("no part was sent").isEmpty();
            assertThat(recorder.parts).as("no part event").isEmpty();
            assertThat(recorder.calls).as("no upstream call").isEmpty();
            assertThat(upstream.started(run))
                    .as("part a never reached the upstream")
                    .isFalse();
        }
    }

    @Test
    void responseHeadersFilterAppliesToTheComposition() {
        try (TestGateway gw = gateway()
                .route(
                        "page",
                        on("/page"),
                        compose().part("a", APP, "/json/10"),
                        responseHeaders(Map.of("x-composed", "yes"), List.of()))
                .start()) {
            WireResponse response = gw.wire().get("/page");
            Composed.of(response);
            assertThat(response.header("x-composed")).hasValue("yes");
        }
    }
}
