package dev.sluice.policy;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.GatewayConfig;
import dev.sluice.config.RedisConfig;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * What a gateway's policies share and must close with it: the connection to the {@code redis:}
 * store, opened once when the first route asks for it. The engine closes it when the gateway stops.
 */
public final class PolicyResources implements AutoCloseable {

    private final Optional<RedisConfig> redis;
    private RateStore shared; // guarded by this

    public PolicyResources(Optional<RedisConfig> redis) {
        this.redis = requireNonNull(redis, "redis");
    }

    public static PolicyResources of(GatewayConfig config) {
        return new PolicyResources(config.redis());
    }

    /** No shared store: a route that asks for one fails to compile. */
    public static PolicyResources none() {
        return new PolicyResources(Optional.empty());
    }

    /** The shared store of the configuration's {@code redis:} section. */
    public synchronized RateStore sharedStore() {
        if (shared == null) {
            RedisConfig config = redis.orElseThrow(() -> new IllegalStateException(
                    "rate-limit: store: redis needs a top-level redis: section (expected: redis: {url: ...})"));
            RateStore.Factory factory = ServiceLoader.load(RateStore.Factory.class)
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("rate-limit: store: redis needs sluice-redis on the"
                            + " class path (expected: a RateStore.Factory registered through ServiceLoader)"));
            shared = factory.open(config);
        }
        return shared;
    }

    @Override
    public synchronized void close() {
        if (shared != null) {
            shared.close();
            shared = null;
        }
    }
}
