package dev.sluice.http;

import java.util.Set;

/** Hop-by-hop headers (RFC 9110 §7.6.1), which a proxy must not forward. {@link HeaderRules} applies them. */
final class HopByHop {

    private static final Set<String> NAMES = Set.of(
            "connection",
            "keep-alive",
            "proxy-authenticate",
            "proxy-authorization",
            "proxy-connection",
            "te",
            "trailer",
            "transfer-encoding",
            "upgrade");

    private HopByHop() {}

    /** The hop-by-hop names by definition, in lower case. */
    static Set<String> names() {
        return NAMES;
    }

    /**
     * Whether the message's {@code Connection} header lists {@code name}, in any case (then that
     * header is hop-by-hop too). Reads the value in place: nothing is split or trimmed per header.
     * {@link WebSocketUpgrade} reads its token lists ({@code Connection}, {@code Upgrade}) with it too.
     *
     * @param connection the Connection header value, or null
     */
    static boolean listed(CharSequence name, String connection) {
        if (connection == null) {
            return false;
        }
        int length = connection.length();
        int start = 0;
        while (start <= length) {
            int end = connection.indexOf(',', start);
            if (end < 0) {
                end = length;
            }
            int from = start;
            int to = end;
            while (from < to && isWhitespace(connection.charAt(from))) {
                from++;
            }
            while (to > from && isWhitespace(connection.charAt(to - 1))) {
                to--;
            }
            if (to - from == name.length() && HeaderNameSet.regionEqualsIgnoreCase(connection, from, name)) {
                return true;
            }
            start = end + 1;
        }
        return false;
    }

    private static boolean isWhitespace(char c) {
        return c <= ' ';
    }
}
