package dev.sluice.routing;

/**
 * Reads one cookie of a {@code Cookie} header (RFC 6265 §4.2: {@code name=value} pairs separated by
 * {@code ;} and optional spaces), as the route table matches on it. A value in double quotes is read
 * without them; a pair without {@code =} is skipped; names are compared case-sensitively.
 */
final class Cookies {

    private Cookies() {}

    /** The value of the first cookie named {@code name} in {@code header}, or null when it has none. */
    static String value(String header, String name) {
        int length = header.length();
        int i = 0;
        while (i < length) {
            while (i < length && (header.charAt(i) == ' ' || header.charAt(i) == '\t' || header.charAt(i) == ';')) {
                i++;
            }
            int end = header.indexOf(';', i);
            if (end < 0) {
                end = length;
            }
            int eq = header.indexOf('=', i);
            if (eq >= 0 && eq < end && trimmedEquals(header, i, eq, name)) {
                int from = eq + 1;
                int to = end;
                while (from < to && isSpace(header.charAt(from))) {
                    from++;
                }
                while (to > from && isSpace(header.charAt(to - 1))) {
                    to--;
                }
                if (to - from >= 2 && header.charAt(from) == '"' && header.charAt(to - 1) == '"') {
                    from++;
                    to--;
                }
                return header.substring(from, to);
            }
            i = end + 1;
        }
        return null;
    }

    private static boolean trimmedEquals(String header, int from, int to, String name) {
        while (to > from && isSpace(header.charAt(to - 1))) {
            to--;
        }
        return to - from == name.length() && header.regionMatches(from, name, 0, name.length());
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t';
    }
}
