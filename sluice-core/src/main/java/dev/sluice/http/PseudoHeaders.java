package dev.sluice.http;

import java.util.Locale;
import java.util.Set;

/**
 * Whether an HTTP/2 request's pseudo-header fields make a request (RFC 9113 section 8.3.1): one with
 * {@code :method}, {@code :scheme} and a non-empty {@code :path}, or a CONNECT (without {@code
 * :protocol}) with {@code :authority} and neither of the other two. A head that fails is malformed: a
 * stream error PROTOCOL_ERROR. The engine hands in the values as its decoder made them.
 */
public final class PseudoHeaders {

    /**
     * The connection-specific fields an HTTP/2 message must not carry (RFC 9113 section 8.2.2), in lower
     * case: an engine drops them from a request it sends over h2 and puts {@code te: trailers}, the one
     * {@code te} allowed, itself.
     */
    public static final Set<String> CONNECTION_SPECIFIC =
            Set.of("connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te");

    /**
     * What a request sent over h2 leaves out of the fields it copies, in lower case: the
     * connection-specific ones and {@code host}, which the call's {@code :authority} stands for (RFC 9113
     * section 8.3.1).
     */
    public static final Set<String> NOT_SENT_OVER_H2 =
            Set.of("connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "host");

    private PseudoHeaders() {}

    /** Whether a request sent over h2 leaves {@code name} (lower case) out ({@link #NOT_SENT_OVER_H2}). */
    public static boolean notSentOverH2(String name) {
        return NOT_SENT_OVER_H2.contains(name);
    }

    /** Whether {@code name} (any case) is connection-specific ({@link #CONNECTION_SPECIFIC}). */
    public static boolean connectionSpecific(String name) {
        return CONNECTION_SPECIFIC.contains(name.toLowerCase(Locale.ROOT));
    }

    /**
     * Whether an upstream's trailer field is never relayed as a trailer: a connection-specific one, or
     * one that frames the message ({@code content-length}, {@code trailer}).
     */
    public static boolean notATrailer(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return CONNECTION_SPECIFIC.contains(lower) || lower.equals("content-length") || lower.equals("trailer");
    }

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

    /**
     * Whether an h2 request's target is one a server may serve (RFC 9113 section 8.3.1): no space or
     * control byte in {@code :path} (a request target has none), and a {@code host} field, when the
     * client sent one beside {@code :authority}, naming the same (any case). A head that fails is
     * malformed, as one {@link #wellFormed} refuses.
     *
     * @param path {@code :path}, or null
     * @param authority {@code :authority}, or null
     * @param host the {@code host} field, or null when absent
     */
    public static boolean targetSound(CharSequence path, CharSequence authority, CharSequence host) {
        if (path != null && RequestFraming.controlByteAt(path) >= 0) {
            return false;
        }
        return host == null || authority == null || host.toString().equalsIgnoreCase(authority.toString());
    }
}
