package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ComposeTarget.Order;
import dev.sluice.observe.ExchangeEvent;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.observe.PartEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

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
            assertThat(recorder.exchanges).as("one event per request").isEmpty();
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
}
