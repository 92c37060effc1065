package dev.sluice.http;

/**
 * A Host field value's syntax (RFC 9110 7.2, RFC 3986 3.2.2): {@code uri-host [ ":" port ]}, where
 * the host is a bracketed IP literal or a reg-name (which also covers IPv4 addresses). Empty is
 * valid: a client sends it when the target has no authority.
 */
final class HostValue {

    private static final String SUB_DELIMS = "!$&'()*+,;=";
    private static final String UNRESERVED_MARKS = "-._~";

    private HostValue() {}

    /** Read in place: a Host is checked on every request, and nothing is cut out of it. */
    static boolean isValid(String value) {
        int hostEnd;
        int portStart;
        if (value.startsWith("[")) {
            int close = value.indexOf(']');
            if (close < 0 || !isIpLiteral(value, 1, close)) {
                return false;
            }
            if (close + 1 < value.length() && value.charAt(close + 1) != ':') {
                return false;
            }
            hostEnd = 0;
            portStart = close + 1 < value.length() ? close + 2 : -1;
        } else {
            int colon = value.indexOf(':');
            hostEnd = colon >= 0 ? colon : value.length();
            portStart = colon >= 0 ? colon + 1 : -1;
        }
        return isRegName(value, hostEnd) && (portStart < 0 || isPort(value, portStart));
    }

    /** Whether {@code value}'s first {@code end} characters are a reg-name. */
    private static boolean isRegName(String value, int end) {
        for (int i = 0; i < end; i++) {
            char c = value.charAt(i);
            if (c == '%') {
                if (i + 2 >= end || !isHex(value.charAt(i + 1)) || !isHex(value.charAt(i + 2))) {
                    return false;
                }
                i += 2;
            } else if (!isAlphaNum(c) && UNRESERVED_MARKS.indexOf(c) < 0 && SUB_DELIMS.indexOf(c) < 0) {
                return false;
            }
        }
        return true;
    }

    /** An IPv6 address or an IPvFuture literal, by its characters; the address itself is not parsed. */
    private static boolean isIpLiteral(String value, int start, int end) {
        if (start == end) {
            return false;
        }
        for (int i = start; i < end; i++) {
            char c = value.charAt(i);
            if (!isAlphaNum(c)
                    && c != ':'
                    && c != '.'
                    && UNRESERVED_MARKS.indexOf(c) < 0
                    && SUB_DELIMS.indexOf(c) < 0) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code value} from {@code start} on is a port: at most five digits, maybe none. */
    private static boolean isPort(String value, int start) {
        if (value.length() - start > 5) {
            return false;
        }
        for (int i = start; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static boolean isAlphaNum(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    private static boolean isHex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }
}
