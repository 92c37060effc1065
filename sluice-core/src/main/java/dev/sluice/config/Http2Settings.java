package dev.sluice.config;

/**
 * HTTP/2 on the listener ({@code server.http2}): {@code h2} through ALPN on a TLS listener, {@code
 * h2c} (prior knowledge, or an HTTP/1.1 {@code Upgrade: h2c}) on a plain one, each stream translated
 * to an HTTP/1.1 exchange with the upstreams. The bounds are Envoy's for an edge proxy (its
 * "configuring Envoy as an edge proxy" guidance), the same in every engine:
 *
 * @param enabled whether the listener offers HTTP/2 at all; off, it speaks HTTP/1.1 only
 * @param maxConcurrentStreams streams one connection may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS)
 * @param streamWindow each stream's receive window in bytes (SETTINGS_INITIAL_WINDOW_SIZE): how much of
 *     a request body a client may send ahead of the gateway reading it
 * @param connectionWindow the connection's receive window in bytes, shared by its streams
 * @param maxResetsPerWindow stream resets a client may send within {@code resetWindowSeconds} before its
 *     connection is closed (the rapid-reset attack, CVE-2023-44487)
 * @param resetWindowSeconds the window over which resets are counted
 */
public record Http2Settings(
        boolean enabled,
        int maxConcurrentStreams,
        int streamWindow,
        int connectionWindow,
        int maxResetsPerWindow,
        int resetWindowSeconds) {

    /**
     * Frames one header block may span, its HEADERS and then CONTINUATIONs (the CONTINUATION flood,
     * CVE-2024-27316 and its kin): a CONTINUATION past it ends the connection (GOAWAY {@code
     * ENHANCE_YOUR_CALM}). Netty's own bound ({@code decoderEnforceMaxSmallContinuationFrames}' default,
     * which counts fragments under 8 KiB, the HEADERS one included; larger ones are bounded by the
     * header list's bytes); a header block within the header list bound needs two or three frames.
     */
    public static final int MAX_HEADER_BLOCK_FRAMES = 16;

    public Http2Settings {
        if (maxConcurrentStreams < 1) {
            throw new IllegalArgumentException("maxConcurrentStreams: " + maxConcurrentStreams + " (expected: > 0)");
        }
        if (streamWindow < 65_535 || connectionWindow < streamWindow) {
            throw new IllegalArgumentException("windows: stream " + streamWindow + ", connection " + connectionWindow
                    + " (expected: 65535 <= stream <= connection)");
        }
        if (maxResetsPerWindow < 1 || resetWindowSeconds < 1) {
            throw new IllegalArgumentException(
                    "resets: " + maxResetsPerWindow + " per " + resetWindowSeconds + "s (expected: > 0 per > 0s)");
        }
    }

    /** On, with 100 streams, 64 KiB stream and 1 MiB connection windows, 200 resets per 30 s. */
    public static Http2Settings defaults() {
        return new Http2Settings(true, 100, 64 * 1024, 1024 * 1024, 200, 30);
    }

    /** HTTP/1.1 only. */
    public static Http2Settings disabled() {
        return new Http2Settings(false, 100, 64 * 1024, 1024 * 1024, 200, 30);
    }

    /** These settings, on or off. */
    public Http2Settings enabled(boolean on) {
        return new Http2Settings(
                on, maxConcurrentStreams, streamWindow, connectionWindow, maxResetsPerWindow, resetWindowSeconds);
    }

    /** The protocols the listener offers, in preference order: {@code h2} or {@code h2c}, then {@code http/1.1}. */
    public java.util.List<String> protocols(boolean tls) {
        if (!enabled) {
            return java.util.List.of("http/1.1");
        }
        return java.util.List.of(tls ? "h2" : "h2c", "http/1.1");
    }
}
