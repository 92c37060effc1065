package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/**
 * One upstream service and the connection pool the gateway keeps to it.
 *
 * @param name the key under {@code upstreams:}
 * @param url base URL, {@code http://host:port[/base-path]}; the base path is prefixed to every request
 * @param maxConnections pooled connections (default 256)
 * @param connectTimeout (default 1s) exceeded → 504
 * @param readTimeout longest wait for response bytes (default 30s) exceeded → 504
 * @param acquireTimeout longest wait for a pooled connection (default 5s) exceeded → 503
 * @param maxPending requests that may wait for a pooled connection (default 1000) beyond → 503
 * @param idleTimeout pooled connections idle this long are closed (default 20s; keep it shorter than
 *     the upstream's own keep-alive)
 * @param pace optional pacing of calls to a rate-limited upstream
 * @param resilience its endpoints (the first is {@code url}), balancing, health checks, outlier
 *     ejection, retries and circuit breakers
 */
public record UpstreamConfig(
        String name,
        URI url,
        int maxConnections,
        Duration connectTimeout,
        Duration readTimeout,
        Duration acquireTimeout,
        int maxPending,
        Duration idleTimeout,
        Optional<Pace> pace,
        UpstreamResilience resilience) {

    public UpstreamConfig {
        requireNonNull(resilience, "resilience");
        if (!resilience.endpoints().getFirst().equals(url)) {
            throw new IllegalArgumentException("url " + url + " is not the first endpoint");
        }
        requireNonNull(name, "name");
        requireNonNull(url, "url");
        requireNonNull(connectTimeout, "connectTimeout");
        requireNonNull(readTimeout, "readTimeout");
        requireNonNull(acquireTimeout, "acquireTimeout");
        requireNonNull(idleTimeout, "idleTimeout");
        requireNonNull(pace, "pace");
    }

    /** One endpoint, {@code url}, with default outlier ejection and no retries or breakers. */
    public UpstreamConfig(
            String name,
            URI url,
            int maxConnections,
            Duration connectTimeout,
            Duration readTimeout,
            Duration acquireTimeout,
            int maxPending,
            Duration idleTimeout,
            Optional<Pace> pace) {
        this(
                name,
                url,
                maxConnections,
                connectTimeout,
                readTimeout,
                acquireTimeout,
                maxPending,
                idleTimeout,
                pace,
                UpstreamResilience.single(url));
    }

    /** The same upstream with other resilience settings; {@code url} becomes their first endpoint. */
    public UpstreamConfig withResilience(UpstreamResilience next) {
        return new UpstreamConfig(
                name,
                next.endpoints().getFirst(),
                maxConnections,
                connectTimeout,
                readTimeout,
                acquireTimeout,
                maxPending,
                idleTimeout,
                pace,
                next);
    }

    /**
     * The settings of one endpoint's pool: this upstream's, with {@code url} the endpoint's (so {@code
     * host}, {@code port} and {@code authority} are the endpoint's).
     */
    public UpstreamConfig endpoint(int index) {
        URI endpoint = resilience.endpoints().get(index);
        if (endpoint.equals(url)) {
            return this;
        }
        return new UpstreamConfig(
                name,
                endpoint,
                maxConnections,
                connectTimeout,
                readTimeout,
                acquireTimeout,
                maxPending,
                idleTimeout,
                pace,
                new UpstreamResilience(
                        java.util.List.of(endpoint),
                        resilience.balance(),
                        resilience.healthCheck(),
                        resilience.outlier(),
                        resilience.retry(),
                        resilience.circuitBreaker()));
    }

    /** An upstream with every default, for tests and the builder API. */
    public static UpstreamConfig of(String name, URI url) {
        return new UpstreamConfig(
                name,
                url,
                256,
                Duration.ofSeconds(1),
                Duration.ofSeconds(30),
                Duration.ofSeconds(5),
                1000,
                Duration.ofSeconds(20),
                Optional.empty());
    }

    public String host() {
        return url.getHost();
    }

    public int port() {
        return url.getPort() == -1 ? 80 : url.getPort();
    }

    /** The base path without a trailing slash; empty when the URL has none. */
    public String basePath() {
        String path = url.getRawPath();
        if (path == null || path.isEmpty() || path.equals("/")) {
            return "";
        }
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    /** {@code host:port}, the value of a rewritten Host header. */
    public String authority() {
        return url.getPort() == -1 ? url.getHost() : url.getHost() + ":" + url.getPort();
    }
}
