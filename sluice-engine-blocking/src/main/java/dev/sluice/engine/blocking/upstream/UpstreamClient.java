package dev.sluice.engine.blocking.upstream;

import dev.sluice.config.UpstreamConfig;

/**
 * A blocking HTTP/1.1 client for one upstream, with its own connection pool. Calls block the
 * calling thread (a virtual thread in {@code virtual} mode), which is the point of this engine.
 */
public interface UpstreamClient extends AutoCloseable {

    /**
     * Sends the request and returns once the response status line and headers have arrived.
     *
     * @throws UpstreamException for every failure, classified
     */
    UpstreamResponse send(UpstreamRequest request) throws UpstreamException;

    UpstreamConfig config();

    /** Its pool's counts, when it keeps one it can count (the scrape's, never the request path's). */
    default java.util.Optional<dev.sluice.engine.PoolStats> pool() {
        return java.util.Optional.empty();
    }

    /**
     * A reload retired it ({@link dev.sluice.upstream.PoolRetirement}): its idle connections close
     * now, each busy one when its exchange ends; calls still taken open connections closed likewise.
     * Nothing for a client that keeps no pool.
     */
    default void drain() {}

    @Override
    void close();
}
