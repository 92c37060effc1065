package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * What one client may take of the gateway ({@code server.limits}); every engine enforces each the
 * same way. Defaults follow Envoy's and nginx's where they agree, and are stricter where one of them
 * sets no bound at all (see docs/CONFIG.md).
 *
 * @param maxRequestLine longest request target in bytes ({@code 414 uri_too_long} beyond)
 * @param maxHeaderBytes largest header block in bytes ({@code 431 headers_too_large} beyond)
 * @param maxHeaders most header fields ({@code 431 headers_too_large} beyond)
 * @param maxBody largest request body in bytes, counted as it streams ({@code 413
 *     content_too_large}); {@link #UNLIMITED} for none. A route's {@code max-body} filter overrides it
 * @param headerTimeout longest a request head may take to arrive once its first byte has ({@code 408
 *     request_timeout}, then the connection closes): a client sending a byte now and then holds no
 *     connection for ever
 * @param idleTimeout longest a connection may stay silent while the gateway waits for the client:
 *     its next request, the rest of a request body, or room to write a response; then it is closed
 * @param maxConnections most client connections open at once; beyond it the gateway stops accepting
 *     (new clients wait in the kernel's accept queue) until one closes
 * @param maxRequests most requests in flight across all routes ({@code 503 overloaded} beyond);
 *     {@code 0} for no bound
 * @param websocketIdleTimeout longest a WebSocket tunnel may stay silent, no byte in either direction,
 *     before the gateway closes both its connections ({@link dev.sluice.http.WebSocketUpgrade})
 * @param maxReadAhead most bytes all compositions together may hold read ahead of their clients
 *     ({@code max-read-ahead}; {@link dev.sluice.compose.ReadAheadBudget}); {@link #AUTO} for a share
 *     of the JVM's memory
 * @param maxPartCache most bytes the part cache may hold ({@code max-part-cache}; {@link
 *     dev.sluice.compose.PartCache}), shared by every part with {@code cache:}; {@code 0}: no cache
 */
public record ServerLimits(
        int maxRequestLine,
        int maxHeaderBytes,
        int maxHeaders,
        long maxBody,
        Duration headerTimeout,
        Duration idleTimeout,
        int maxConnections,
        int maxRequests,
        Duration websocketIdleTimeout,
        long maxReadAhead,
        long maxPartCache) {

    /** No bound on a request body. */
    public static final long UNLIMITED = -1;

    /** {@code max-read-ahead: auto}: the budget is a share of the JVM's memory ({@link dev.sluice.compose.ReadAheadBudget#auto}). */
    public static final long AUTO = 0;

    /** {@code max-part-cache}'s default: 32 MiB. */
    public static final long DEFAULT_PART_CACHE = 32L * 1024 * 1024;

    /** The smallest {@link #maxReadAhead} a configuration may set: a few compositions' parts at once. */
    public static final long MIN_READ_AHEAD = 256 * 1024;

    public ServerLimits {
        if (maxReadAhead < 0) {
            throw new IllegalArgumentException("maxReadAhead: " + maxReadAhead + " (expected: AUTO, or bytes)");
        }
        if (maxPartCache < 0) {
            throw new IllegalArgumentException("maxPartCache: " + maxPartCache + " (expected: >= 0)");
        }
        requireNonNull(headerTimeout, "headerTimeout");
        requireNonNull(idleTimeout, "idleTimeout");
        requireNonNull(websocketIdleTimeout, "websocketIdleTimeout");
    }

    /** The limits with the default {@link #maxPartCache}. */
    public ServerLimits(
            int maxRequestLine,
            int maxHeaderBytes,
            int maxHeaders,
            long maxBody,
            Duration headerTimeout,
            Duration idleTimeout,
            int maxConnections,
            int maxRequests,
            Duration websocketIdleTimeout,
            long maxReadAhead) {
        this(
                maxRequestLine,
                maxHeaderBytes,
                maxHeaders,
                maxBody,
                headerTimeout,
                idleTimeout,
                maxConnections,
                maxRequests,
                websocketIdleTimeout,
                maxReadAhead,
                DEFAULT_PART_CACHE);
    }

    /** The limits with the default {@link #maxReadAhead} ({@link #AUTO}). */
    public ServerLimits(
            int maxRequestLine,
            int maxHeaderBytes,
            int maxHeaders,
            long maxBody,
            Duration headerTimeout,
            Duration idleTimeout,
            int maxConnections,
            int maxRequests,
            Duration websocketIdleTimeout) {
        this(
                maxRequestLine,
                maxHeaderBytes,
                maxHeaders,
                maxBody,
                headerTimeout,
                idleTimeout,
                maxConnections,
                maxRequests,
                websocketIdleTimeout,
                AUTO);
    }

    /** The limits with the default {@link #websocketIdleTimeout}. */
    public ServerLimits(
            int maxRequestLine,
            int maxHeaderBytes,
            int maxHeaders,
            long maxBody,
            Duration headerTimeout,
            Duration idleTimeout,
            int maxConnections,
            int maxRequests) {
        this(
                maxRequestLine,
                maxHeaderBytes,
                maxHeaders,
                maxBody,
                headerTimeout,
                idleTimeout,
                maxConnections,
                maxRequests,
                DEFAULT_WEBSOCKET_IDLE_TIMEOUT);
    }

    /** A tunnel silent this long is closed: Envoy's stream idle timeout. */
    public static final Duration DEFAULT_WEBSOCKET_IDLE_TIMEOUT = Duration.ofMinutes(5);

    /** These limits with another {@link #websocketIdleTimeout}. */
    public ServerLimits withWebsocketIdleTimeout(Duration timeout) {
        return new ServerLimits(
                maxRequestLine,
                maxHeaderBytes,
                maxHeaders,
                maxBody,
                headerTimeout,
                idleTimeout,
                maxConnections,
                maxRequests,
                timeout,
                maxReadAhead,
                maxPartCache);
    }

    /** These limits with another {@link #maxPartCache} (bytes, 0: none). */
    public ServerLimits withMaxPartCache(long bytes) {
        return new ServerLimits(
                maxRequestLine,
                maxHeaderBytes,
                maxHeaders,
                maxBody,
                headerTimeout,
                idleTimeout,
                maxConnections,
                maxRequests,
                websocketIdleTimeout,
                maxReadAhead,
                bytes);
    }

    /** These limits with another {@link #maxReadAhead} ({@link #AUTO}, or bytes). */
    public ServerLimits withMaxReadAhead(long bytes) {
        return new ServerLimits(
                maxRequestLine,
                maxHeaderBytes,
                maxHeaders,
                maxBody,
                headerTimeout,
                idleTimeout,
                maxConnections,
                maxRequests,
                websocketIdleTimeout,
                bytes,
                maxPartCache);
    }

    public static ServerLimits defaults() {
        return new ServerLimits(
                8 * 1024, 16 * 1024, 100, UNLIMITED, Duration.ofSeconds(10), Duration.ofSeconds(60), 10_000, 0);
    }
}
