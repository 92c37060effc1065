package dev.sluice.http;

import java.util.Collection;
import java.util.Locale;

/**
 * A fixed set of header names, asked in any case without lower-casing the name asked (header names
 * are ASCII tokens, compared case-insensitively: RFC 9110 section 5.1). {@link HeaderRules} asks one
 * per header crossing the gateway, and {@code UpstreamEdits} for a policy's removed names: {@code
 * String.toLowerCase} there was two allocations per header, and a Netty {@code AsciiString} name had
 * to become a {@code String} first.
 *
 * <p>Open addressing over a table at most a quarter full; immutable, so safe from any thread.
 */
public final class HeaderNameSet {

    private final String[] table; // lower-case names; null: a free slot
    private final int mask;

    public HeaderNameSet(Collection<String> names) {
        int size = Integer.highestOneBit(Math.max(8, names.size() * 4) - 1) << 1;
        table = new String[size];
        mask = size - 1;
        for (String name : names) {
            String lower = name.toLowerCase(Locale.ROOT);
            int i = hash(lower) & mask;
            while (table[i] != null && !table[i].equals(lower)) {
                i = (i + 1) & mask;
            }
            table[i] = lower;
        }
    }

    public boolean contains(CharSequence name) {
        for (int i = hash(name) & mask; ; i = (i + 1) & mask) {
            String candidate = table[i];
            if (candidate == null) {
                return false;
            }
            if (equalsIgnoreCase(candidate, name)) {
                return true;
            }
        }
    }

    /** A hash of the name's ASCII lower case. */
    private static int hash(CharSequence name) {
        int h = 0;
        for (int i = 0; i < name.length(); i++) {
            h = 31 * h + lower(name.charAt(i));
        }
        return h ^ (h >>> 16);
    }

    /** Whether {@code a} and {@code b} are equal ignoring ASCII case (and only ASCII case). */
    public static boolean equalsIgnoreCase(CharSequence a, CharSequence b) {
        return a.length() == b.length() && regionEqualsIgnoreCase(a, 0, b);
    }

    /** Whether {@code b} is found in {@code a} at {@code offset}, ignoring ASCII case. */
    static boolean regionEqualsIgnoreCase(CharSequence a, int offset, CharSequence b) {
        if (offset + b.length() > a.length()) {
            return false;
        }
        for (int i = 0; i < b.length(); i++) {
            char x = a.charAt(offset + i);
            char y = b.charAt(i);
            if (x != y && lower(x) != lower(y)) {
                return false;
            }
        }
        return true;
    }

    private static char lower(char c) {
        return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
    }
}
