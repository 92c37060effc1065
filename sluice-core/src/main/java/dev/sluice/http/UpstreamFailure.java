package dev.sluice.http;

/** Why an upstream call failed, and the status the client gets for it. */
public enum UpstreamFailure {
    CONNECT_TIMEOUT(504, "upstream connect timeout"),
    READ_TIMEOUT(504, "upstream read timeout"),
    TIMEOUT(504, "gateway timeout"),
    REFUSED(502, "upstream refused the connection"),
    /** The endpoint's host name does not resolve (no address: NXDOMAIN, no record, no resolver). */
    UNRESOLVED(502, "upstream host name does not resolve"),
    RESET(502, "upstream connection reset"),
    BAD_RESPONSE(502, "upstream sent an invalid response"),
    /** An https upstream's TLS handshake failed: its certificate or name not trusted, ours refused, no common protocol. */
    TLS_HANDSHAKE(502, "upstream TLS handshake failed"),
    POOL_EXHAUSTED(503, "no upstream connection available"),
    CIRCUIT_OPEN(503, "circuit breaker open");

    private final int status;
    private final String reason;

    UpstreamFailure(int status, String reason) {
        this.status = status;
        this.reason = reason;
    }

    /** The status the client gets: 502, 503 or 504. */
    public int status() {
        return status;
    }

    /** Whether it is a timeout: the ones answered {@code 504} (a composition then answers {@code part_timeout}). */
    public boolean isTimeout() {
        return status == 504;
    }

    /** A short human reason, used in error bodies and {@code _meta}. */
    public String reason() {
        return reason;
    }

    /**
     * What a composition's {@code _meta} says of a part that failed so: the reason, or {@code
     * circuit_open} for a call the breakers refused (it was never made).
     */
    public String partError() {
        return this == CIRCUIT_OPEN ? code() : reason;
    }

    /**
     * The failure a JDK exception from an upstream connection stands for, or null when it is none of
     * these: the one reading of the JDK's own types that every upstream client (both engines, HTTP/1.1
     * and HTTP/2, the WebSocket upgrade) applies after its transport's own types, which each names
     * first since some extend these (Netty's connect timeout is a {@link java.net.ConnectException}).
     *
     * <pre>
     *   UnknownHostException, UnresolvedAddressException   UNRESOLVED     no address for the name
     *   ConnectException, NoRouteToHostException           REFUSED        never connected
     *   SSLHandshakeException                              TLS_HANDSHAKE  (TLS 1.3: a client certificate
     *                                                                     refused after the client's handshake)
     *   SocketTimeoutException                             READ_TIMEOUT   (a connect's timeout is the caller's to name first)
     * </pre>
     *
     * Anything else, another {@link java.io.IOException} above all, is the caller's: each client
     * counts it a reset.
     */
    public static UpstreamFailure ofJdk(Throwable t) {
        return switch (t) {
            case java.net.UnknownHostException e -> UNRESOLVED;
            case java.nio.channels.UnresolvedAddressException e -> UNRESOLVED;
            case java.net.ConnectException e -> REFUSED;
            case java.net.NoRouteToHostException e -> REFUSED;
            case javax.net.ssl.SSLHandshakeException e -> TLS_HANDSHAKE;
            case java.net.SocketTimeoutException e -> READ_TIMEOUT;
            case null, default -> null;
        };
    }

    /** The error code in JSON error bodies, such as {@code upstream_connect_timeout}. */
    public String code() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
