package dev.sluice.observe;

import static java.util.Objects.requireNonNull;

import dev.sluice.http.RequestId;
import java.util.List;

/**
 * The {@link ExchangeEvent} of a request the gateway answered before routing it: a head its HTTP
 * parser refused (400, 414, 431, 505), one {@link dev.sluice.http.RequestFraming} refused (400,
 * 501), or one whose time ran out ({@code server.limits.header-timeout}: 408). Every answer the
 * gateway sends is one event, as Envoy and nginx log every request they answer; a connection closed
 * without an answer is none. Engines say what they know of the head; the rules are here:
 *
 * <ul>
 *   <li>{@code route} empty, as for a 404; {@code bytesIn} 0 (no body of a refused head is read);
 *       {@code bytesOut} the error body's length; no trace, upstream time or parts;
 *   <li>{@code method} and {@code path}: the request line's, when the parser read it whole, its
 *       version is HTTP/1.x (not a 505), its target is within {@code max-request-line} (not a 414),
 *       its method is a token (RFC 9110 5.6.2) and its target has no control byte (0x00-0x20, 0x7F:
 *       what a log line must not carry); {@code -} for both otherwise (a head that timed out too), so
 *       every engine reports a head alike whichever of its parser or the core refused it. The path
 *       is the target without its query;
 *   <li>{@code requestId}: a new one ({@link RequestId#next}), never the client's {@code X-Request-Id}:
 *       no field of a refused head is trusted (and Jetty's parser keeps none of one it refused);
 *   <li>{@code refusedBy}: {@value #SERVER_LIMITS} for what {@code server.limits} bounds (408, 413,
 *       414, 431), {@value #REQUEST_FRAMING} for the rest.
 * </ul>
 */
public final class RefusedHead {

    /** {@code refusedBy} of a head the parser or {@link dev.sluice.http.RequestFraming} refused. */
    public static final String REQUEST_FRAMING = "request-framing";

    /** {@code refusedBy} of a head over a {@code server.limits} bound, or not whole in time. */
    public static final String SERVER_LIMITS = "server-limits";

    private RefusedHead() {}

    /**
     * The event of a refused head.
     *
     * @param status the status sent
     * @param method the request line's method, or null when the parser did not read the line whole
     * @param target the request line's target as received, or null likewise
     * @param client the connection's peer address
     * @param durationNanos from the refusal to the answer's last byte handed to the connection
     * @param bytesOut the error body's length
     */
    public static ExchangeEvent event(
            int status, String method, String target, String client, long durationNanos, long bytesOut) {
        requireNonNull(client, "client");
        boolean known = status != 505 // not an HTTP/1.x request line: Jetty's parser reads no part of it
                && status != 414 // a target over the limit: not logged, whichever layer measured it
                && method != null
                && target != null
                && isToken(method)
                && !hasControlByte(target);
        return new ExchangeEvent(
                "",
                known ? method : "-",
                status,
                false,
                durationNanos,
                known ? path(target) : "-",
                RequestId.next(),
                client,
                0,
                bytesOut,
                -1,
                "-",
                "-",
                "",
                false,
                refusedBy(status),
                List.of());
    }

    /** Who refused a head answered {@code status}: {@value #SERVER_LIMITS} or {@value #REQUEST_FRAMING}. */
    public static String refusedBy(int status) {
        return switch (status) {
            case 408, 413, 414, 431 -> SERVER_LIMITS;
            default -> REQUEST_FRAMING;
        };
    }

    private static String path(String target) {
        int query = target.indexOf('?');
        String path = query < 0 ? target : target.substring(0, query);
        return path.isEmpty() ? "-" : path;
    }

    private static boolean isToken(String method) {
        if (method.isEmpty()) {
            return false;
        }
        for (int i = 0; i < method.length(); i++) {
            char c = method.charAt(i);
            boolean tchar = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!tchar) {
                return false;
            }
        }
        return true;
    }

    private static boolean hasControlByte(String target) {
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c <= 0x20 || c == 0x7F) {
                return true;
            }
        }
        return false;
    }
}
