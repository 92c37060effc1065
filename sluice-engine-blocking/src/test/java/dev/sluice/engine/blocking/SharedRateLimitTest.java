package dev.sluice.engine.blocking;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.tck.ChildGateway;
import dev.sluice.tck.RedisServer;
import dev.sluice.tck.TestUpstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 16's test: two gateway processes (one in virtual mode, one in platform mode) sharing one
 * real Redis enforce one global limit. Both are driven well past the limit at once for a window;
 * the requests they admit together are within 5 % of what one bucket admits over that window
 * ({@code permits + burst + rate * window}), where two separate buckets would admit twice that.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SharedRateLimitTest {

    // Low enough that a loaded two-core machine still drives both gateways well past it.
    private static final int PERMITS = 10; // per second
    private static final int BURST = 5;
    private static final Duration WINDOW = Duration.ofSeconds(15);

    @Test
    void twoGatewaysSharingOneRedisEnforceOneGlobalLimit() throws Exception {
        try (RedisServer redis = RedisServer.start();
                TestUpstream upstream = TestUpstream.start()) {
            Path virtual = config("virtual", redis.url(), upstream.url());
            Path platform = config("platform", redis.url(), upstream.url());
            try (ChildGateway a = ChildGateway.start(virtual);
                    ChildGateway b = ChildGateway.start(platform);
                    ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();
                    HttpClient http = HttpClient.newBuilder()
                            .version(HttpClient.Version.HTTP_1_1)
                            .connectTimeout(Duration.ofSeconds(10))
                            .build()) {
                warmUp(http, a, b); // so that no gateway is still compiling its first requests in the window
                Map<Integer, AtomicLong> statuses = new ConcurrentHashMap<>();
                AtomicLong admittedByA = new AtomicLong();
                AtomicLong admittedByB = new AtomicLong();
                CountDownLatch go = new CountDownLatch(1);
                AtomicLong lastSent = new AtomicLong(); // when the last request of the window was sent
                long[] window = new long[2];
                List<Future<?>> running = new ArrayList<>();
                for (int i = 0; i < 16; i++) {
                    ChildGateway target = i % 2 == 0 ? a : b;
                    AtomicLong admitted = i % 2 == 0 ? admittedByA : admittedByB;
                    running.add(clients.submit(() -> {
                        go.await();
                        URI uri = URI.create("http://127.0.0.1:" + target.port() + "/limited/json/10");
                        for (long sent = System.nanoTime(); sent - window[1] < 0; sent = System.nanoTime()) {
                            lastSent.accumulateAndGet(sent, (last, now) -> now - last > 0 ? now : last);
                            HttpResponse<Void> response = http.send(
                                    HttpRequest.newBuilder(uri)
                                            .timeout(Duration.ofSeconds(30))
                                            .GET()
                                            .build(),
                                    HttpResponse.BodyHandlers.discarding());
                            statuses.computeIfAbsent(response.statusCode(), s -> new AtomicLong())
                                    .incrementAndGet();
                            if (response.statusCode() == 200) {
                                admitted.incrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
                window[0] = System.nanoTime();
                window[1] = window[0] + WINDOW.toNanos();
                go.countDown();
                for (Future<?> f : running) {
                    f.get(120, TimeUnit.SECONDS);
                }
                // the window: from the first request sent to the last one sent (the answers to the last
                // ones come later, but their tokens were taken before)
                double seconds = (lastSent.get() - window[0]) / 1e9;
                long admitted = admittedByA.get() + admittedByB.get();
                double limit = PERMITS + BURST + PERMITS * seconds;
                System.out.printf(
                        "shared rate limit: %d admitted (a %d, b %d) in %.2f s; one bucket's limit %.0f; statuses %s%n",
                        admitted, admittedByA.get(), admittedByB.get(), seconds, limit, statuses);

                assertThat(statuses.keySet()).as("only 200s and 429s").containsOnly(200, 429);
                assertThat(statuses.get(429).get())
                        .as("the clients drove the gateways past the limit")
                        .isGreaterThan(admitted);
                assertThat(admittedByA.get()).as("both gateways admitted").isPositive();
                assertThat(admittedByB.get()).as("both gateways admitted").isPositive();
                assertThat((double) admitted)
                        .as("admitted within 5 %% of one bucket's limit over %.2f s (%.0f)", seconds, limit)
                        .isBetween(limit * 0.95, limit * 1.05);
            } finally {
                Files.deleteIfExists(virtual);
                Files.deleteIfExists(platform);
            }
        }
    }

    /**
     * Sends 25 requests from each of 16 clients at once to an unlimited route of both gateways: their
     * code is compiled and the client's connections are open before the window starts, so the window
     * measures the limit, not a cold start.
     */
    private static void warmUp(HttpClient http, ChildGateway a, ChildGateway b) throws Exception {
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> running = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                URI uri = URI.create("http://127.0.0.1:" + (i % 2 == 0 ? a : b).port() + "/warm/json/10");
                running.add(clients.submit(() -> {
                    for (int n = 0; n < 25; n++) {
                        HttpResponse<Void> response = http.send(
                                HttpRequest.newBuilder(uri)
                                        .timeout(Duration.ofSeconds(30))
                                        .GET()
                                        .build(),
                                HttpResponse.BodyHandlers.discarding());
                        assertThat(response.statusCode()).as("warm-up").isEqualTo(200);
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get(120, TimeUnit.SECONDS);
            }
        }
    }

    private static Path config(String engine, URI redis, URI upstream) throws Exception {
        Path file = Files.createTempFile("sluice-shared-" + engine, ".yaml");
        Files.writeString(file, """
                server: { host: 127.0.0.1, port: 0, engine: %s }
                redis: { url: "%s", timeout: 5s }
                upstreams:
                  app: { url: "%s" }
                routes:
                  - id: limited
                    match: { path: "/limited/**" }
                    proxy: { upstream: app, strip-prefix: /limited }
                    filters:
                      - rate-limit: { key: route, permits: %d, per: 1s, burst: %d, store: redis, on-store-failure: deny }
                  - id: warm
                    match: { path: "/warm/**" }
                    proxy: { upstream: app, strip-prefix: /warm }
                logging: { level: warn }
                """.formatted(engine, redis, upstream, PERMITS, BURST));
        return file;
    }
}
