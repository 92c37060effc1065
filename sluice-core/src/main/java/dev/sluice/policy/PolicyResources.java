package dev.sluice.policy;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.FilterConfig;
import dev.sluice.config.GatewayConfig;
import dev.sluice.config.RedisConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.function.LongSupplier;

/**
 * What a gateway's policies share for its whole life, across reloads, and close with it: the
 * connection to the {@code redis:} store, opened once when the first route asks for it, and the
 * rate limits, kept by route id, position and settings so that a reload that leaves a filter as it
 * was keeps its buckets. The engine makes one when the gateway starts and closes it when it stops.
 */
public final class PolicyResources implements AutoCloseable {

    private final Optional<RedisConfig> redis;
    private final LongSupplier ticker; // local buckets' time: System::nanoTime, or a test's
    private RateStore shared; // guarded by this
    private Map<Placed, RateLimit> limits = new HashMap<>(); // guarded by this

    /** A rate-limit filter where a configuration puts it. */
    private record Placed(String route, int index, FilterConfig.RateLimit config) {}

    public PolicyResources(Optional<RedisConfig> redis) {
        this(redis, System::nanoTime);
    }

    /**
     * @param ticker the local rate limits' clock in nanoseconds: {@code System::nanoTime}, or a test's
     *     (the engine's start parameter); a shared store keeps its own time
     */
    public PolicyResources(Optional<RedisConfig> redis, LongSupplier ticker) {
        this.redis = requireNonNull(redis, "redis");
        this.ticker = requireNonNull(ticker, "ticker");
    }

    public static PolicyResources of(GatewayConfig config) {
        return of(config, System::nanoTime);
    }

    /** As {@link #of(GatewayConfig)}, the local rate limits refilling by {@code ticker}. */
    public static PolicyResources of(GatewayConfig config, LongSupplier ticker) {
        return new PolicyResources(config.redis(), ticker);
    }

    /** The local rate limits' clock. */
    LongSupplier ticker() {
        return ticker;
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

    /**
     * The rate limit of the filter at {@code index} of route {@code route}: the one the previous
     * configuration had there when its settings are the same (its buckets carry over), else a new
     * one. Called while a configuration compiles; {@link #compiled()} then forgets the limits that
     * configuration no longer has.
     */
    public RateLimit rateLimit(FilterConfig.RateLimit config, String route, int index, ClientAddress client) {
        return rateLimit(config, route, index).resolving(client);
    }

    /** {@link #rateLimit(FilterConfig.RateLimit, String, int, ClientAddress)} with the peer as client. */
    public synchronized RateLimit rateLimit(FilterConfig.RateLimit config, String route, int index) {
        Placed placed = new Placed(route, index, config);
        RateLimit limit = limits.get(placed);
        if (limit == null) {
            limit = RateLimit.of(config, route, index, this);
            limits.put(placed, limit);
        }
        current.put(placed, limit);
        return limit;
    }

    private Map<Placed, RateLimit> current = new HashMap<>(); // guarded by this

    /** A configuration finished compiling: only its rate limits are kept for the next one. */
    public synchronized void compiled() {
        limits = current;
        current = new HashMap<>();
    }

    @Override
    public synchronized void close() {
        if (shared != null) {
            shared.close();
            shared = null;
        }
    }
}
