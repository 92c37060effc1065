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
 * @param connectTimeout (default 5s) exceeded → 504
 * @param readTimeout longest wait for response bytes (default 30s) exceeded → 504
 * @param acquireTimeout longest wait for a pooled connection (default 5s) exceeded → 503
 * @param maxPending requests that may wait for a pooled connection (default 1000) beyond → 503
 * @param idleTimeout pooled connections idle this long are closed (default 20s; keep it shorter than
 *     the upstream's own keep-alive)
 * @param pace optional pacing of calls to a rate-limited upstream
 * @param resilience its endpoints (the first is {@code url}), balancing, health checks, outlier
 *     ejection, retries and circuit breakers
 * @param tls how its {@code https://} endpoints are reached; present exactly when they are https
 *     (defaults when none is given)
 * @param maxLifetime connections older than this are closed instead of reused (default: none)
 * @param protocol what its connections speak (default {@code http/1.1}); for {@code h2} and {@code h2c},
 *     {@code maxConnections} bounds the connections per endpoint, each carrying many streams
 * @param maxStreamsPerConnection streams in flight on one HTTP/2 connection before another is opened
 *     (default 100; the upstream's own SETTINGS_MAX_CONCURRENT_STREAMS lowers it)
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
        UpstreamResilience resilience,
        Optional<UpstreamTlsConfig> tls,
        Optional<Duration> maxLifetime,
        UpstreamProtocol protocol,
        int maxStreamsPerConnection) {

    /** Streams per HTTP/2 connection unless configured. */
    public static final int DEFAULT_MAX_STREAMS = 100;

    public UpstreamConfig {
        requireNonNull(resilience, "resilience");
        requireNonNull(protocol, "protocol");
        if (maxStreamsPerConnection < 1) {
            throw new IllegalArgumentException(
                    "maxStreamsPerConnection: " + maxStreamsPerConnection + " (expected: > 0)");
        }
        for (URI endpoint : resilience.endpoints()) {
            Optional<String> mismatch = protocol.mismatch(endpoint);
            if (mismatch.isPresent()) {
                throw new IllegalArgumentException("protocol: " + mismatch.get());
            }
        }
        requireNonNull(tls, "tls");
        requireNonNull(maxLifetime, "maxLifetime");
        boolean https = isHttps(url);
        for (URI endpoint : resilience.endpoints()) {
            if (isHttps(endpoint) != https) {
                throw new IllegalArgumentException(
                        "endpoint " + endpoint + " (expected: the scheme of the first endpoint, " + url + ")");
            }
        }
        if (https && tls.isEmpty()) {
            tls = Optional.of(UpstreamTlsConfig.DEFAULTS);
        } else if (!https && tls.isPresent()) {
            throw new IllegalArgumentException("tls: set for " + url + " (expected: an https:// upstream)");
        }
        if (maxLifetime.isPresent()
                && (maxLifetime.get().isNegative() || maxLifetime.get().isZero())) {
            throw new IllegalArgumentException("maxLifetime: " + maxLifetime.get() + " (expected: > 0)");
        }
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

    /** Over HTTP/1.1. */
    public UpstreamConfig(
            String name,
            URI url,
            int maxConnections,
            Duration connectTimeout,
            Duration readTimeout,
            Duration acquireTimeout,
            int maxPending,
            Duration idleTimeout,
            Optional<Pace> pace,
            UpstreamResilience resilience,
            Optional<UpstreamTlsConfig> tls,
            Optional<Duration> maxLifetime) {
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
                resilience,
                tls,
                maxLifetime,
                UpstreamProtocol.HTTP_1_1,
                DEFAULT_MAX_STREAMS);
    }

    /** The same upstream speaking {@code next}, at most {@code maxStreams} streams per HTTP/2 connection. */
    public UpstreamConfig withProtocol(UpstreamProtocol next, int maxStreams) {
        return new UpstreamConfig(
                name,
                url,
                maxConnections,
                connectTimeout,
                readTimeout,
                acquireTimeout,
                maxPending,
                idleTimeout,
                pace,
                resilience,
                tls,
                maxLifetime,
                next,
                maxStreams);
    }

    /** Without TLS settings of its own (the defaults for an https {@code url}) and no max-lifetime. */
    public UpstreamConfig(
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
                resilience,
                Optional.empty(),
                Optional.empty());
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
                next,
                tls,
                maxLifetime,
                protocol,
                maxStreamsPerConnection);
    }

    /** The same upstream with other TLS settings ({@code url} must be https). */
    public UpstreamConfig withTls(UpstreamTlsConfig next) {
        return new UpstreamConfig(
                name,
                url,
                maxConnections,
                connectTimeout,
                readTimeout,
                acquireTimeout,
                maxPending,
                idleTimeout,
                pace,
                resilience,
                Optional.of(next),
                maxLifetime,
                protocol,
                maxStreamsPerConnection);
    }

    /** The same upstream whose connections are closed instead of reused once older than {@code lifetime}. */
    public UpstreamConfig withMaxLifetime(Duration lifetime) {
        return new UpstreamConfig(
                name,
                url,
                maxConnections,
                connectTimeout,
                readTimeout,
                acquireTimeout,
                maxPending,
                idleTimeout,
                pace,
                resilience,
                tls,
                Optional.of(lifetime),
                protocol,
                maxStreamsPerConnection);
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
                        resilience.circuitBreaker()),
                tls,
                maxLifetime,
                protocol,
                maxStreamsPerConnection);
    }

    /** An upstream with every default, for tests and the builder API. */
    public static UpstreamConfig of(String name, URI url) {
        return new UpstreamConfig(
                name,
                url,
                256,
                Duration.ofSeconds(5), // two SYN retransmissions (1 s, 3 s): one lost SYN is no failure
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
        return defaultPort(url);
    }

    /** Whether {@code url} is {@code https://}. */
    public static boolean isHttps(URI url) {
        return "https".equalsIgnoreCase(url.getScheme());
    }

    /** The port of {@code url}: its own, else 443 for https and 80 for http. */
    public static int defaultPort(URI url) {
        return url.getPort() != -1 ? url.getPort() : isHttps(url) ? 443 : 80;
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
