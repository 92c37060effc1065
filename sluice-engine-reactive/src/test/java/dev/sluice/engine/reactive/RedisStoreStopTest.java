package dev.sluice.engine.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.RedisConfig;
import dev.sluice.policy.TokenBucket;
import dev.sluice.redis.RedisRateStore;
import dev.sluice.tck.RedisServer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A closed {@code store: redis} gives back every buffer, on io_uring too: thirty stores, each used
 * once against a real Redis (every other one with its Redis killed, a reconnect pending, before it
 * closes), then closed. Lettuce's default name resolvers were never closed: a store's loops stopped
 * under their UDP channel, whose armed read's buffer leaked (one or more reports in every run of this
 * test before the store closed its own resolvers; see {@code StoreResolvers}).
 */
@ExtendWith(LeakGuard.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisStoreStopTest {

    @Test
    void thirtyStoresClosedLeaveNoBufferBehind() throws Exception {
        TokenBucket bucket = new TokenBucket(10, Duration.ofSeconds(1), 0);
        for (int i = 0; i < 30; i++) {
            try (RedisServer redis = RedisServer.start()) {
                RedisRateStore store =
                        new RedisRateStore(new RedisConfig(redis.url(), Duration.ofSeconds(5), "stop" + i + ":"));
                assertThat(store.take("k", bucket)
                                .toCompletableFuture()
                                .get(10, TimeUnit.SECONDS)
                                .admitted())
                        .isTrue();
                if (i % 2 == 0) {
                    redis.kill();
                    store.take("k", bucket)
                            .toCompletableFuture()
                            .handle((take, error) -> null)
                            .get(10, TimeUnit.SECONDS);
                }
                store.close();
            }
        }
        assertThat(LeakGuard.collect()).as("ByteBuf leak reports").isEmpty();
    }
}
