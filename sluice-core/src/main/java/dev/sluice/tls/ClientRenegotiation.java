package dev.sluice.tls;

/**
 * A client-initiated renegotiation: a TLS handshake record from the client once the first handshake
 * of a TLS 1.2 connection is done (TLS 1.3 has no renegotiation, and hides its records' types). A
 * CPU-exhaustion vector that the JDK's {@code SSLEngine} would go through with: every engine closes
 * the connection under it, no answer of any kind sent, and counts it as {@code tls_renegotiation}
 * (docs/ENGINE-CONTRACT.md, "TLS"). The engines follow the records; this decides.
 */
public final class ClientRenegotiation {

    /** The content type of a TLS record that carries handshake messages. */
    public static final int HANDSHAKE_RECORD = 22;

    /** The bytes of a TLS record's header: content type, version (2), length (2). */
    public static final int RECORD_HEADER_BYTES = 5;

    private ClientRenegotiation() {}

    /**
     * Whether a connection whose first handshake ended on {@code protocol} ({@code
     * SSLSession.getProtocol()}) can be renegotiated, so that its records must be followed after the
     * handshake: TLS 1.2 only (the listener offers nothing older).
     */
    public static boolean possible(String protocol) {
        return "TLSv1.2".equals(protocol);
    }

    /**
     * Whether a record of {@code contentType} from the client is a renegotiation to refuse: a handshake
     * record once the first handshake is done on a protocol where that is {@link #possible}.
     *
     * @param contentType the record header's first byte, unsigned
     * @param handshakeDone whether the connection's first handshake has completed
     * @param protocol the protocol the first handshake chose ({@code "NONE"} or null before it ends)
     */
    public static boolean refused(int contentType, boolean handshakeDone, String protocol) {
        return handshakeDone && contentType == HANDSHAKE_RECORD && possible(protocol);
    }
}
