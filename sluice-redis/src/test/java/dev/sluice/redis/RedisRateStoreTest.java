package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import dev.sluice.config.FilterConfig;
import dev.sluice.config.RedisConfig;
import dev.sluice.policy.Decision;
import dev.sluice.policy.GivenRequest;
import dev.sluice.policy.InboundPolicy;
import dev.sluice.policy.RateLimit;
import dev.sluice.policy.TokenBucket;
import dev.sluice.tck.LogCapture;
import dev.sluice.tck.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/** {@code store: redis} against a real redis-server that the test starts, kills and restarts. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisRateStoreTest {

    private RedisServer redis;

    @BeforeAll
    void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    private static final InboundPolicy.Inbound CLIENT = GivenRequest.from("10.0.0.1");

    private RedisRateStore store(Duration timeout) {
        return new RedisRateStore(new RedisConfig(redis.url(), timeout, "test:" + System.nanoTime() + ":"));
    }

    private static Decision decided(Decision d) throws Exception {
        return d instanceof Decision.Pending p
                ? p.decision().toCompletableFuture().get(30, TimeUnit.SECONDS)
                : d;
    }

    @Test
    void aBucketInRedisAdmitsItsSizeThenRefusesWithTheTimeToTheNextToken() throws Exception {
        try (RedisRateStore store = store(Duration.ofSeconds(2))) {
            TokenBucket bucket = new TokenBucket(3, Duration.ofSeconds(30), 1); // a token every 10 s
            List<TokenBucket.Take> takes = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                takes.add(store.take("k", bucket).toCompletableFuture().get(10, TimeUnit.SECONDS));
            }
            assertThat(takes).extracting(TokenBucket.Take::admitted).containsExactly(true, true, true, true, false);
            assertThat(takes).extracting(TokenBucket.Take::remaining).containsExactly(3L, 2L, 1L, 0L, 0L);
            TokenBucket.Take refused = takes.get(4);
            assertThat(refused.retryNanos()).isBetween(5_000_000_000L, 10_000_000_000L);
            assertThat(refused.resetNanos()).isBetween(35_000_000_000L, 40_000_000_000L);
            assertThat(store.take("other", bucket)
                            .toCompletableFuture()
                            .get(10, TimeUnit.SECONDS)
                            .admitted())
                    .as("another key, another bucket")
                    .isTrue();
        }
    }

    @Test
    void keysAreNamespacedAndExpireWhenTheirBucketIsFull() throws Exception {
        RedisConfig config = new RedisConfig(redis.url(), Duration.ofSeconds(2), "ns" + System.nanoTime() + ":");
        try (RedisRateStore store = new RedisRateStore(config);
                RedisClient client = RedisClient.create(redis.url().toString());
                StatefulRedisConnection<String, String> raw = client.connect()) {
            store.take("route:0:addr:10.0.0.1", new TokenBucket(1, Duration.ofSeconds(10), 0))
                    .toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            List<String> keys = raw.sync().keys(config.prefix() + "*");
            assertThat(keys).containsExactly(config.prefix() + "route:0:addr:10.0.0.1");
            long ttl = raw.sync().pttl(keys.getFirst());
            assertThat(ttl)
                    .as("expires when full again (10 s after its one token)")
                    .isBetween(5_000L, 10_001L);
        }
    }

    @Test
    void aFlushedScriptIsSentAgainWhole() throws Exception {
        try (RedisRateStore store = store(Duration.ofSeconds(2));
                RedisClient client = RedisClient.create(redis.url().toString());
                StatefulRedisConnection<String, String> raw = client.connect()) {
            TokenBucket bucket = new TokenBucket(5, Duration.ofSeconds(1), 0);
            assertThat(store.take("a", bucket)
                            .toCompletableFuture()
                            .get(10, TimeUnit.SECONDS)
                            .admitted())
                    .isTrue();
            raw.sync().scriptFlush();
            assertThat(raw.sync().scriptExists(RedisRateStore.SHA)).containsExactly(false);
            assertThat(store.take("a", bucket)
                            .toCompletableFuture()
                            .get(10, TimeUnit.SECONDS)
                            .admitted())
                    .isTrue();
            assertThat(raw.sync().scriptExists(RedisRateStore.SHA)).containsExactly(true);
        }
    }

    @Test
    void concurrentDecisionsNeverTakeMoreThanTheBucketHolds() throws Exception {
        try (RedisRateStore store = store(Duration.ofSeconds(5))) {
            TokenBucket bucket = new TokenBucket(100, Duration.ofHours(1), 0);
            List<CompletableFuture<TokenBucket.Take>> takes = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                takes.add(store.take("hot", bucket).toCompletableFuture());
            }
            long admitted = 0;
            for (CompletableFuture<TokenBucket.Take> take : takes) {
                admitted += take.get(30, TimeUnit.SECONDS).admitted() ? 1 : 0;
            }
            assertThat(admitted).isEqualTo(100);
        }
    }

    @Test
    void anOutageDecidesByOnStoreFailureIsLoggedOnceAndEndsWhenRedisReturns() throws Exception {
        var allow = new FilterConfig.RateLimit(
                FilterConfig.RateKey.route(), 2, Duration.ofHours(1), 0, FilterConfig.RateLimit.Store.REDIS, true);
        var deny = new FilterConfig.RateLimit(
                FilterConfig.RateKey.route(), 2, Duration.ofHours(1), 0, FilterConfig.RateLimit.Store.REDIS, false);
        try (RedisRateStore store = store(Duration.ofSeconds(1));
                LogCapture log = LogCapture.start()) {
            RateLimit open = RateLimit.shared(allow, store, "open:");
            RateLimit closed = RateLimit.shared(deny, store, "closed:");
            assertThat(decided(open.admit(CLIENT))).isInstanceOf(Decision.Proceed.class);
            assertThat(decided(open.admit(CLIENT))).isInstanceOf(Decision.Proceed.class);
            assertThat(decided(open.admit(CLIENT))).as("the bucket is empty").isInstanceOf(Decision.Reject.class);

            redis.kill();
            for (int i = 0; i < 20; i++) {
                long start = System.nanoTime();
                assertThat(decided(open.admit(CLIENT)))
                        .as("allow: through while Redis is down")
                        .isInstanceOf(Decision.Proceed.class);
                Decision.Reject refused = (Decision.Reject) decided(closed.admit(CLIENT));
                assertThat(refused.status()).isEqualTo(503);
                assertThat(refused.code()).isEqualTo("rate_limit_unavailable");
                assertThat(System.nanoTime() - start)
                        .as("a decision waits at most about the timeout")
                        .isLessThan(TimeUnit.SECONDS.toNanos(5));
            }
            assertThat(store.isDown()).isTrue();
            assertThat(log.eventsContaining("does not answer within"))
                    .as("one WARN per outage")
                    .hasSize(1)
                    .allSatisfy(e -> assertThat(e.getLevel()).isEqualTo(Level.WARN));

            redis.restart(); // empty: every bucket starts full again
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            Decision again = decided(closed.admit(CLIENT));
            while (!(again instanceof Decision.Proceed) && System.nanoTime() - end < 0) {
                Thread.sleep(100); // Lettuce reconnects on its own schedule: poll it
                again = decided(closed.admit(CLIENT));
            }
            assertThat(again).as("recovered once Redis is back").isInstanceOf(Decision.Proceed.class);
            assertThat(store.isDown()).isFalse();
            assertThat(log.eventsContaining("answers again"))
                    .hasSize(1)
                    .allSatisfy(e -> assertThat(e.getLevel()).isEqualTo(Level.INFO));
            assertThat(decided(closed.admit(CLIENT))).isInstanceOf(Decision.Proceed.class);
            assertThat(decided(closed.admit(CLIENT)))
                    .as("limits apply again: 2 per hour")
                    .isInstanceOf(Decision.Reject.class);
            assertThat(log.eventsContaining("does not answer within")).hasSize(1);
        }
    }

    @Test
    void aStoreOpenedWhileRedisIsDownConnectsOnceItIsUp() throws Exception {
        redis.kill();
        try (RedisRateStore store = store(Duration.ofSeconds(1))) {
            TokenBucket bucket = new TokenBucket(5, Duration.ofSeconds(1), 0);
            CompletableFuture<TokenBucket.Take> failed = store.take("a", bucket).toCompletableFuture();
            assertThat(failed)
                    .as("no Redis: the decision fails, it does not wait")
                    .failsWithin(Duration.ofSeconds(10));
            assertThat(store.isDown()).isTrue();

            redis.restart();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            boolean admitted = false;
            while (!admitted && System.nanoTime() - end < 0) {
                try {
                    admitted = store.take("a", bucket)
                            .toCompletableFuture()
                            .get(10, TimeUnit.SECONDS)
                            .admitted();
                } catch (java.util.concurrent.ExecutionException e) {
                    Thread.sleep(100); // the store tries a new connection at most once a second: poll it
                }
            }
            assertThat(admitted).as("connected once Redis came up").isTrue();
            assertThat(store.isDown()).isFalse();
        } finally {
            if (!redis.isRunning()) {
                redis.restart();
            }
        }
    }

    @Test
    void aRedisSlowerThanTheTimeoutCountsAsAnOutage() throws Exception {
        var deny = new FilterConfig.RateLimit(
                FilterConfig.RateKey.route(), 100, Duration.ofSeconds(1), 0, FilterConfig.RateLimit.Store.REDIS, false);
        try (RedisRateStore store = store(Duration.ofMillis(300));
                RedisClient client = RedisClient.create(redis.url().toString());
                StatefulRedisConnection<String, String> raw = client.connect();
                LogCapture log = LogCapture.start()) {
            RateLimit limit = RateLimit.shared(deny, store, "slow:");
            Decision first = decided(limit.admit(CLIENT));
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!(first instanceof Decision.Proceed) && System.nanoTime() - end < 0) {
                first = decided(limit.admit(CLIENT)); // the first decision may pass 300 ms on a loaded machine
            }
            assertThat(first).isInstanceOf(Decision.Proceed.class);

            raw.sync().clientPause(3_000); // Redis answers nobody for 3 s
            long start = System.nanoTime();
            Decision.Reject refused = (Decision.Reject) decided(limit.admit(CLIENT));
            long waited = System.nanoTime() - start;
            assertThat(refused.code()).isEqualTo("rate_limit_unavailable");
            assertThat(waited)
                    .as("the decision waited about the timeout (300 ms), not the pause (3 s)")
                    .isBetween(TimeUnit.MILLISECONDS.toNanos(250), TimeUnit.MILLISECONDS.toNanos(2_500));
            assertThat(log.eventsContaining("does not answer within 300 ms")).hasSize(1);

            Decision again = decided(limit.admit(CLIENT));
            long recovered = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!(again instanceof Decision.Proceed) && System.nanoTime() - recovered < 0) {
                again = decided(limit.admit(CLIENT)); // each waits the timeout until the pause ends
            }
            assertThat(again).as("decides again once the pause is over").isInstanceOf(Decision.Proceed.class);
            assertThat(log.eventsContaining("answers again")).hasSize(1);
        }
    }
}
