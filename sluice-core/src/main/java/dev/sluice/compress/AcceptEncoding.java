package dev.sluice.compress;

/**
 * Which of the codings a route offers a request's {@code Accept-Encoding} (RFC 9110 section 12.5.3)
 * takes: each offered coding's q-value is its own entry's ({@code gzip} also as {@code x-gzip}), or,
 * when it is not named, {@code *}'s; the highest above 0 wins, and of equal ones the first offered.
 * {@code gzip;q=0} refuses gzip whatever {@code *} says; no header, an empty one, or only {@code
 * identity} asks for none. Scanned in place: nothing is allocated per request.
 */
public final class AcceptEncoding {

    private AcceptEncoding() {}

    /**
     * The coding of {@code offered} (in the route's order of preference) that {@code header} takes,
     * or null for none (the body is sent as it is).
     */
    public static Coding choose(String header, Coding[] offered) {
        if (header == null) {
            return null;
        }
        Coding best = null;
        int bestQ = 0;
        for (Coding coding : offered) {
            int q = quality(header, coding);
            if (q > bestQ) {
                best = coding;
                bestQ = q;
            }
        }
        return best;
    }

    /** {@code coding}'s q-value in {@code header}, in thousandths: its own entry's, else {@code *}'s, else 0. */
    private static int quality(String header, Coding coding) {
        int named = -1; // the q-value of the coding in thousandths, -1 when not named
        int star = -1;
        int n = header.length();
        int i = 0;
        while (i < n) {
            int end = header.indexOf(',', i);
            if (end < 0) {
                end = n;
            }
            int semi = header.indexOf(';', i);
            int nameEnd = semi >= 0 && semi < end ? semi : end;
            int from = skipSpace(header, i, nameEnd);
            int to = trimEnd(header, from, nameEnd);
            int q = nameEnd < end ? quality(header, nameEnd + 1, end) : 1000;
            if (q >= 0) {
                if (is(header, from, to, coding.token()) || (coding == Coding.GZIP && is(header, from, to, "x-gzip"))) {
                    named = Math.max(named, q);
                } else if (is(header, from, to, "*")) {
                    star = Math.max(star, q);
                }
            }
            i = end + 1;
        }
        return named >= 0 ? named : Math.max(star, 0);
    }

    /** The {@code q} parameter among {@code ;}-separated parameters in {@code [from, to)}: 0-1000, -1 when malformed. */
    private static int quality(String s, int from, int to) {
        int i = from;
        while (i < to) {
            int end = s.indexOf(';', i);
            if (end < 0 || end > to) {
                end = to;
            }
            int a = skipSpace(s, i, end);
            int b = trimEnd(s, a, end);
            if (b - a >= 2 && (s.charAt(a) == 'q' || s.charAt(a) == 'Q') && s.charAt(a + 1) == '=') {
                return qvalue(s, a + 2, b);
            }
            i = end + 1;
        }
        return 1000;
    }

    /** RFC 9110's qvalue: {@code 0[.ddd]} or {@code 1[.000]}, in thousandths; -1 when malformed. */
    private static int qvalue(String s, int from, int to) {
        if (from >= to) {
            return -1;
        }
        char first = s.charAt(from);
        if (first != '0' && first != '1') {
            return -1;
        }
        int value = (first - '0') * 1000;
        if (from + 1 == to) {
            return value;
        }
        if (s.charAt(from + 1) != '.' || to - from - 2 > 3) {
            return -1;
        }
        int scale = 100;
        for (int i = from + 2; i < to; i++, scale /= 10) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value += (c - '0') * scale;
        }
        return value > 1000 ? -1 : value;
    }

    private static boolean is(String s, int from, int to, String name) {
        return to - from == name.length() && s.regionMatches(true, from, name, 0, name.length());
    }

    private static int skipSpace(String s, int from, int to) {
        while (from < to && (s.charAt(from) == ' ' || s.charAt(from) == '\t')) {
            from++;
        }
        return from;
    }

    private static int trimEnd(String s, int from, int to) {
        while (to > from && (s.charAt(to - 1) == ' ' || s.charAt(to - 1) == '\t')) {
            to--;
        }
        return to;
    }
}
