package dev.sluice.engine;

import dev.sluice.config.ConfigChange;
import dev.sluice.config.GatewayConfig;

/** A started gateway. {@link #close()} stops accepting, lets in-flight requests finish (up to the grace period) and frees every resource. */
public interface RunningGateway extends AutoCloseable {

    /** The port it listens on (the real one when the configuration asked for 0). */
    int port();

    /**
     * The socket transport under it, as the started line prints it: {@code io_uring} or {@code nio}
     * (Java's selector, the JDK's virtual-thread poller), so that a user sees which one a
     * measurement ran on.
     */
    String transport();

    /**
     * Why this gateway can no longer serve although it was not closed (an event loop died or is
     * stuck), or empty while it can. {@code sluice run} asks every second and exits on a failure,
     * so that a supervisor starts a fresh process instead of keeping one that answers nothing.
     */
    default java.util.Optional<String> failure() {
        return java.util.Optional.empty();
    }

    /**
     * The current configuration's upstream pools, one entry per upstream: read when metrics are
     * scraped. Empty when the engine cannot tell.
     */
    default java.util.List<PoolStats> pools() {
        return java.util.List.of();
    }

    /**
     * The current configuration's upstream guards (endpoints, their health, ejection and breakers,
     * retries): read when metrics are scraped, never on the request path.
     */
    default java.util.List<dev.sluice.upstream.UpstreamGuard> guards() {
        return java.util.List.of();
    }

    /**
     * The part cache every composition shares ({@code cache:} on a part, {@code
     * server.limits.max-part-cache}): for metrics and tests. Empty when the engine has none.
     */
    default java.util.Optional<dev.sluice.compose.PartCache> partCache() {
        return java.util.Optional.empty();
    }

    /**
     * The budget every composition's read-ahead is taken from ({@code server.limits.max-read-ahead}):
     * for gauges and tests, which read what it holds. Empty when the engine has none.
     */
    default java.util.Optional<dev.sluice.compose.ReadAheadBudget> readAheadBudget() {
        return java.util.Optional.empty();
    }

    /**
     * Routes new requests by {@code next} from now on, atomically: a request in flight finishes on the
     * configuration it began with. Upstreams {@code change} keeps go on with their pools; those it
     * starts get new ones; those it retires serve what began before the swap and then close (their
     * idle connections at once, the rest when their exchanges end, any left after {@link
     * #RETIRE_AFTER} then), as {@link dev.sluice.upstream.PoolRetirement} decides.
     *
     * @param next a configuration whose {@code server}, {@code admin} and {@code logging} equal the
     *     running one's ({@link ConfigChange#between} checked it)
     */
    void reload(GatewayConfig next, ConfigChange change);

    /** How long a retired upstream's pool may still start calls for requests that began before it. */
    java.time.Duration RETIRE_AFTER = java.time.Duration.ofSeconds(60);

    @Override
    void close();
}
