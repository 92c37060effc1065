package dev.sluice.observe;

/**
 * The kinds of client protocol error the gateway counts ({@code
 * sluice_client_protocol_errors_total{kind}}) and logs at most once a minute each ({@link
 * ClientProtocolErrors}). A client's protocol error is the client's: it never logs a stack trace,
 * request bytes or header values.
 */
public enum ClientProtocolError {
    /** Plain HTTP sent to a TLS listener: answered {@code 400 plain_http_on_tls_port}, then closed. */
    PLAIN_HTTP_ON_TLS("plain_http_on_tls"),
    /** A TLS handshake that failed: no common protocol or cipher, a bad record, an unknown CA… */
    TLS_HANDSHAKE("tls_handshake"),
    /** A client-initiated renegotiation (TLS 1.2), refused: the connection is closed. */
    TLS_RENEGOTIATION("tls_renegotiation"),
    /** An HTTP/2 frame or sequence of frames the protocol forbids (a connection or stream error). */
    HTTP2("http2"),
    /** The connection failed under the client (reset by peer, broken pipe) or another I/O error. */
    CONNECTION("connection");

    private final String tag;

    ClientProtocolError(String tag) {
        this.tag = tag;
    }

    /** The metric's {@code kind} tag and the log line's name for it. */
    public String tag() {
        return tag;
    }
}
