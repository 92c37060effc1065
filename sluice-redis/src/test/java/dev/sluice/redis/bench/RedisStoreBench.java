package dev.sluice.redis.bench;

import dev.sluice.config.RedisConfig;
import dev.sluice.policy.TokenBucket;
import dev.sluice.redis.RedisRateStore;
import dev.sluice.tck.RedisServer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;

/**
 * What a {@code store: redis} decision costs against a local redis-server it starts: the latency of
 * one decision at a time (p50, p99), and the throughput with 64 decisions in flight, which Lettuce
 * pipelines on the store's one connection. A benchmark, not a test:
 *
 * <pre>
 *   ./mvnw -q -pl sluice-redis test-compile dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt
 *   java -cp sluice-redis/target/test-classes:sluice-redis/target/classes:$(cat /tmp/cp.txt) \
 *       dev.sluice.redis.bench.RedisStoreBench
 * </pre>
 */
public final class RedisStoreBench {

    private RedisStoreBench() {}

    public static void main(String[] args) throws Exception {
        try (RedisServer redis = RedisServer.start();
                RedisRateStore store =
                        new RedisRateStore(new RedisConfig(redis.url(), Duration.ofSeconds(2), "bench:"))) {
            TokenBucket bucket = new TokenBucket(1_000_000, Duration.ofSeconds(1), 0);
            for (int round = 0; round < 3; round++) {
                int n = 5_000;
                long[] latency = new long[n];
                for (int i = 0; i < n; i++) {
                    long t = System.nanoTime();
                    store.take("k" + (i % 1000), bucket).toCompletableFuture().get();
                    latency[i] = System.nanoTime() - t;
                }
                Arrays.sort(latency);
                int inFlight = 64;
                int total = 50_000;
                Semaphore window = new Semaphore(inFlight);
                CountDownLatch done = new CountDownLatch(total);
                long t0 = System.nanoTime();
                for (int i = 0; i < total; i++) {
                    window.acquire();
                    store.take("k" + (i % 1000), bucket).whenComplete((take, error) -> {
                        window.release();
                        done.countDown();
                    });
                }
                done.await();
                double seconds = (System.nanoTime() - t0) / 1e9;
                System.out.printf(
                        "round %d: one at a time p50 %d µs, p99 %d µs; %d in flight: %.0f decisions/s%n",
                        round, latency[n / 2] / 1000, latency[n * 99 / 100] / 1000, inFlight, total / seconds);
            }
        }
    }
}
