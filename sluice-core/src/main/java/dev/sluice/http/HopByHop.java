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
     * Whether the message's {@code Connection} header lists {@code lowerCaseName} (then that header is
     * hop-by-hop too).
     *
     * @param connection the Connection header value, or null
     */
    static boolean listed(String lowerCaseName, String connection) {
        if (connection == null) {
            return false;
        }
        for (String token : connection.split(",")) {
            if (token.trim().equalsIgnoreCase(lowerCaseName)) {
                return true;
            }
        }
        return false;
    }
}
