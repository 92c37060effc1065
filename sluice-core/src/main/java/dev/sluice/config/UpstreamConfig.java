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
        Optional<Pace> pace) {

    public UpstreamConfig {
        requireNonNull(name, "name");
        requireNonNull(url, "url");
        requireNonNull(connectTimeout, "connectTimeout");
        requireNonNull(readTimeout, "readTimeout");
        requireNonNull(acquireTimeout, "acquireTimeout");
        requireNonNull(idleTimeout, "idleTimeout");
        requireNonNull(pace, "pace");
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
