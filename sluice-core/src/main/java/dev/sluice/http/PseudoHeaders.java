package dev.sluice.http;

/**
 * Whether an HTTP/2 request's pseudo-header fields make a request (RFC 9113 section 8.3.1): one with
 * {@code :method}, {@code :scheme} and a non-empty {@code :path}, or a CONNECT (without {@code
 * :protocol}) with {@code :authority} and neither of the other two. A head that fails is malformed: a
 * stream error PROTOCOL_ERROR. The engine hands in the values as its decoder made them.
 */
public final class PseudoHeaders {

    private PseudoHeaders() {}

    /**
     * @param method {@code :method}, or null when absent
     * @param scheme {@code :scheme}, or null
     * @param path {@code :path}, or null
     * @param authority {@code :authority}, or null
     * @param protocol whether {@code :protocol} is present (an extended CONNECT, RFC 8441)
     */
    public static boolean wellFormed(
            CharSequence method, CharSequence scheme, CharSequence path, CharSequence authority, boolean protocol) {
        if (method == null) {
            return false;
        }
        if ("CONNECT".contentEquals(method) && !protocol) {
            return authority != null && scheme == null && path == null;
        }
        return scheme != null && path != null && !path.isEmpty();
    }
}
