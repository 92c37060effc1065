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

    static boolean isValid(String value) {
        String host = value;
        int portStart = -1;
        if (value.startsWith("[")) {
            int close = value.indexOf(']');
            if (close < 0 || !isIpLiteral(value.substring(1, close))) {
                return false;
            }
            host = "";
            portStart = close + 1 < value.length() ? close + 1 : -1;
            if (portStart >= 0 && value.charAt(portStart) != ':') {
                return false;
            }
        } else {
            int colon = value.indexOf(':');
            if (colon >= 0) {
                host = value.substring(0, colon);
                portStart = colon;
            }
        }
        return isRegName(host) && (portStart < 0 || isPort(value.substring(portStart + 1)));
    }

    private static boolean isRegName(String host) {
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if (c == '%') {
                if (i + 2 >= host.length() || !isHex(host.charAt(i + 1)) || !isHex(host.charAt(i + 2))) {
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
    private static boolean isIpLiteral(String literal) {
        if (literal.isEmpty()) {
            return false;
        }
        for (int i = 0; i < literal.length(); i++) {
            char c = literal.charAt(i);
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

    private static boolean isPort(String port) {
        return port.length() <= 5 && port.chars().allMatch(c -> c >= '0' && c <= '9');
    }

    private static boolean isAlphaNum(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    private static boolean isHex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }
}
