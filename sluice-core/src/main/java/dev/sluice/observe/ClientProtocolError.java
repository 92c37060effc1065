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

    /**
     * Whether an HTTP/2 error the gateway sends a client (RST_STREAM, GOAWAY) with this code (RFC 9113
     * section 7) is the client's protocol error, counted once as {@link #HTTP2} by the engine that
     * sends it: PROTOCOL_ERROR, FLOW_CONTROL_ERROR, SETTINGS_TIMEOUT, STREAM_CLOSED, FRAME_SIZE_ERROR,
     * COMPRESSION_ERROR and ENHANCE_YOUR_CALM (a flood past the connection's rate). NO_ERROR, CANCEL,
     * REFUSED_STREAM, INTERNAL_ERROR, CONNECT_ERROR and HTTP_1_1_REQUIRED are the gateway's own
     * reasons, and a code it does not know is no client's error.
     */
    public static boolean http2ErrorCode(long code) {
        return code == 0x1 // PROTOCOL_ERROR
                || code == 0x3 // FLOW_CONTROL_ERROR
                || code == 0x4 // SETTINGS_TIMEOUT
                || code == 0x5 // STREAM_CLOSED
                || code == 0x6 // FRAME_SIZE_ERROR
                || code == 0x9 // COMPRESSION_ERROR
                || code == 0xb; // ENHANCE_YOUR_CALM
    }

    /** The metric's {@code kind} tag and the log line's name for it. */
    public String tag() {
        return tag;
    }
}
