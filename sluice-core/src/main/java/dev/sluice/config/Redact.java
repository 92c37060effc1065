package dev.sluice.config;

import java.net.URI;

/**
 * What a message may say of a value that can hold a secret: a problem, a reload's refusal, a log
 * line names such a value without it. A URL's user info keeps its user and loses its password
 * ({@code http://user:***@host}); user info without a password (a token as user) is hidden whole.
 */
public final class Redact {

    /** What stands for a secret in a message. */
    public static final String HIDDEN = "***";

    private Redact() {}

    /**
     * {@code text}, a URL or what was meant as one (it need not parse), with the password of its user
     * info hidden: everything between the scheme's {@code //} (or the start) and the last {@code @}
     * of the authority.
     */
    public static String url(String text) {
        if (text == null) {
            return null;
        }
        int start = text.indexOf("//");
        start = start < 0 ? 0 : start + 2;
        int end = text.length();
        for (int i = start; i < text.length(); i++) { // the authority ends at the path, query or fragment
            char c = text.charAt(i);
            if (c == '/' || c == '?' || c == '#') {
                end = i;
                break;
            }
        }
        int at = text.lastIndexOf('@', end - 1);
        if (at < start) {
            at = text.lastIndexOf('@'); // a password with '/' in it: hide up to the last '@' whatever
            if (at < start) {
                return text;
            }
        }
        String info = text.substring(start, at);
        int colon = info.indexOf(':');
        String shown = colon < 0 ? HIDDEN : info.substring(0, colon) + ":" + HIDDEN;
        return text.substring(0, start) + shown + text.substring(at);
    }

    /** {@code uri} as {@link #url(String)} shows it. */
    public static String url(URI uri) {
        return uri == null ? null : url(uri.toString());
    }
}
