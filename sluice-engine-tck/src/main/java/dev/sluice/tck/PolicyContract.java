package dev.sluice.tck;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.FilterConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/**
 * Inbound policies on the core's seam, carried out by every mode alike: here the route concurrency
 * limit (seed 003's isolation of a slow route). Its upstream never sees more than {@code max} calls
 * at once, the queue waits without a thread per waiter in the reactive engine, and what is over the
 * limit is a JSON 503 the upstream never sees.
 */
public abstract class PolicyContract extends ContractFixture {

    private static final String OVERLOADED = "\"error\":\"overloaded\"";

    private TestGateway.Builder limited(int max, int queue, Duration queueTimeout) {
        return gateway()
                .route(
                        "slow",
                        on("/slow/**"),
                        proxy(APP).stripPrefix("/slow"),
                        new FilterConfig.Concurrency(max, queue, queueTimeout))
                .route("fast", on("/fast/**"), proxy(APP).stripPrefix("/fast"));
    }

    private void awaitStarted(String tag) throws InterruptedException {
        long end = System.nanoTime() + 10_000_000_000L;
        while (!upstream.started(tag)) {
            assertThat(System.nanoTime() - end)
                    .as("upstream call %s started within 10 s", tag)
                    .isNegative();
            Thread.sleep(5);
        }
    }

    @Test
    void aRouteAtItsLimitQueuesOneRejectsTheNextAndLeavesOtherRoutesAlone() throws Exception {
        String run = Long.toString(System.nanoTime());
        try (TestGateway gw = limited(1, 1, Duration.ofSeconds(20)).start();
                ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            CompletableFuture<WireResponse> first =
                    CompletableFuture.supplyAsync(() -> gw.wire().get("/slow/json/10?delay=1500&tag=a" + run), clients);
            awaitStarted("a" + run);
            CompletableFuture<WireResponse> second =
                    CompletableFuture.supplyAsync(() -> gw.wire().get("/slow/json/11?tag=b" + run), clients);
            Thread.sleep(300);
            CompletableFuture<WireResponse> third =
                    CompletableFuture.supplyAsync(() -> gw.wire().get("/slow/json/12?tag=c" + run), clients);

            WireResponse fast = gw.wire().get("/fast/json/13");
            assertThat(fast.status())
                    .as("another route, while the slow one is full")
                    .isEqualTo(200);
            assertThat(first.isDone())
                    .as("the fast route did not wait for the slow one")
                    .isFalse();

            assertThat(first.get().status()).isEqualTo(200);
            List<WireResponse> later = List.of(second.get(), third.get());
            assertThat(later).extracting(WireResponse::status).containsExactlyInAnyOrder(200, 503);
            WireResponse rejected =
                    later.stream().filter(r -> r.status() == 503).findFirst().orElseThrow();
            assertThat(rejected.bodyText()).contains(OVERLOADED);
            assertThat(rejected.header("Content-Type")).hasValue("application/json");
            assertThat(rejected.header("Retry-After")).hasValue("1");

            String served = later.get(0).status() == 200 ? "b" + run : "c" + run;
            String refused = later.get(0).status() == 200 ? "c" + run : "b" + run;
            assertThat(upstream.started(refused))
                    .as("the upstream never sees a rejected request")
                    .isFalse();
            TestUpstream.Timing a = upstream.timing("a" + run).orElseThrow();
            TestUpstream.Timing queued = upstream.timing(served).orElseThrow();
            assertThat(queued.startNanos())
                    .as("the queued request reached the upstream only once the first had ended")
                    .isGreaterThanOrEqualTo(a.endNanos());

            assertThat(gw.wire().get("/slow/json/14").status())
                    .as("every slot came back")
                    .isEqualTo(200);
        }
    }

    @Test
    void aQueuedRequestGivesUpAtTheQueueTimeout() throws Exception {
        String run = Long.toString(System.nanoTime());
        try (TestGateway gw = limited(1, 1, Duration.ofMillis(300)).start();
                ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            CompletableFuture<WireResponse> first =
                    CompletableFuture.supplyAsync(() -> gw.wire().get("/slow/json/10?delay=3000&tag=a" + run), clients);
            awaitStarted("a" + run);
            WireResponse waited = gw.wire().get("/slow/json/10?tag=b" + run);
            assertThat(waited.status()).isEqualTo(503);
            assertThat(waited.bodyText()).contains(OVERLOADED).contains("queue-timeout");
            assertThat(waited.totalMillis())
                    .as("it waited for its queue-timeout")
                    .isGreaterThanOrEqualTo(250);
            assertThat(first.isDone()).as("and not for the first request").isFalse();
            assertThat(upstream.started("b" + run)).isFalse();
            assertThat(first.get().status()).isEqualTo(200);
        }
    }
}
