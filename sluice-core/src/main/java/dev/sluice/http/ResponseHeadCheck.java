package dev.sluice.http;

/**
 * Whether an upstream's response head may be relayed: the one place both engines' upstream clients
 * ask, after their parser read the status line and headers. A head it refuses is an upstream framing
 * error, {@link UpstreamFailure#BAD_RESPONSE} (502, or a {@code null} part), never relayed: RFC 9112
 * lets a recipient recover from some of these, but a gateway that guesses how a bad message is framed
 * is how responses get split and smuggled, so it refuses them all.
 *
 * <p>Fed one header at a time ({@link #header}), then asked for a {@link #verdict}: no list of headers
 * is built, so the check costs a few comparisons per header on the hot path.
 *
 * <ul>
 *   <li>at most {@value #MAX_HEADERS} header fields, each value free of control characters (CTL but
 *       HTAB, and DEL); the head's size, at most {@value #MAX_HEAD_BYTES} bytes, is the parser's limit;
 *   <li>HTTP/1.0 or HTTP/1.1 only;
 *   <li>{@code 101 Switching Protocols} only to a request that asked to upgrade (Sluice asks none);
 *   <li>{@code Transfer-Encoding} only in HTTP/1.1, only {@code chunked} (once, and without {@code
 *       Content-Length}), never on a {@code 204} or {@code 304};
 *   <li>{@code Content-Length} once, a decimal number (a list or a second field is refused, even
 *       of equal values), never on a {@code 204}.
 * </ul>
 */
public final class ResponseHeadCheck {

    /** The longest response head an upstream client reads (status line and headers). */
    public static final int MAX_HEAD_BYTES = 32 * 1024;

    /** The most header fields a response head may have. */
    public static final int MAX_HEADERS = 100;

    private int count;
    private String problem;
    private String transferEncoding; // every Transfer-Encoding value, joined with ","
    private long contentLength = -1;
    private boolean connectionClose; // a Connection field lists close
    private boolean connectionKeepAlive; // a Connection field lists keep-alive

    private static final String UNASKED_UPGRADE = "101 Switching Protocols to a request that asked for no upgrade";

    /** One header field as it arrived. */
    public void header(CharSequence name, CharSequence value) {
        if (problem != null) {
            return;
        }
        if (++count > MAX_HEADERS) {
            problem = "more than " + MAX_HEADERS + " header fields";
            return;
        }
        for (int i = 0, n = value.length(); i < n; i++) {
            char c = value.charAt(i);
            if ((c < 0x20 && c != '\t') || c == 0x7F) {
                problem = "a control character in header " + name;
                return;
            }
        }
        if (HeaderNameSet.equalsIgnoreCase("connection", name)) {
            String tokens = value.toString();
            connectionClose |= HopByHop.listed("close", tokens);
            connectionKeepAlive |= HopByHop.listed("keep-alive", tokens);
        } else if (HeaderNameSet.equalsIgnoreCase("transfer-encoding", name)) {
            transferEncoding = transferEncoding == null ? value.toString() : transferEncoding + "," + value;
        } else if (HeaderNameSet.equalsIgnoreCase("content-length", name)) {
            // one field, one number: "4, 4" or a second field is refused even when equal, as Netty's
            // and Jetty's parsers do, so that every engine frames a response the same way
            if (contentLength >= 0 || contains(value, ',')) {
                problem = "Content-Length given more than once";
                return;
            }
            long length = parseLength(value);
            if (length < 0) {
                problem = "Content-Length: " + value + " (expected: a decimal number of bytes)";
                return;
            }
            contentLength = length;
        }
    }

    /**
     * The verdict on the whole head.
     *
     * @param major the HTTP version's major number
     * @param minor its minor number
     * @param status the status code
     * @return null when the head may be relayed, else why it may not
     */
    /**
     * What is wrong with a status code, or null: it must have three digits (RFC 9110 section 15), so
     * {@code HTTP/1.1 2} is neither an interim response to skip nor a final one. Asked of every head,
     * interim ones included, before they are told apart.
     */
    public static String statusProblem(int status) {
        return status < 100 || status > 999 ? "status code " + status + " (expected: three digits)" : null;
    }

    /** Whether a status is an interim (1xx) one: the final response follows it. */
    public static boolean interim(int status) {
        return status >= 100 && status < 200;
    }

    /**
     * What is wrong with an interim response, or null when it is skipped and the final one awaited:
     * a {@code 101} to a request that asked for no upgrade (Sluice asks none on a proxied request).
     */
    public static String interimProblem(int status) {
        return status == 101 ? UNASKED_UPGRADE : null;
    }

    /**
     * Whether the connection may carry another request after this response (RFC 9112 section 9.3),
     * as its {@code Connection} fields say: an HTTP/1.1 one unless they list {@code close}, an
     * HTTP/1.0 one only when they list {@code keep-alive}. The body's framing may still end it.
     *
     * @param minor the HTTP/1 version's minor number
     */
    public boolean keepsAlive(int minor) {
        return minor == 0 ? connectionKeepAlive && !connectionClose : !connectionClose;
    }

    /**
     * Whether a response has no body whatever its head says (RFC 9112 section 6.3): one to a HEAD
     * request, an interim (1xx) one, a 204 or a 304. Both engines frame a response by it.
     */
    public static boolean bodyless(boolean headRequest, int status) {
        return headRequest || status < 200 || status == 204 || status == 304;
    }

    /**
     * Whether the gateway sends a response body it does not know the length of (an h2 upstream's answer
     * without {@code content-length}, a gRPC-Web answer) chunked to its client: to every HTTP/1.1 client,
     * which must accept chunked (RFC 9112 section 7), whether it keeps the connection or sent {@code
     * Connection: close}, so that an answer the upstream cut short shows as one (no last chunk) and never
     * as the end of the body; to an HTTP/1.0 client, which knows no chunked, the body goes delimited by
     * the close (and a cut looks like an end: HTTP/1.0 cannot tell them apart); never on a bodyless one
     * ({@link #bodyless}). Both engines frame such a response by it; an h2 client has no such framing.
     *
     * @param http11 whether the client's request was HTTP/1.1
     */
    public static boolean chunksUnknownLength(boolean http11, boolean headRequest, int status) {
        return http11 && !bodyless(headRequest, status);
    }

    /** How a response's body is delimited (RFC 9112 section 6.3). */
    public enum Framing {
        /** No body, whatever the head says ({@link #bodyless}). */
        NONE,
        /** {@code Content-Length} bytes. */
        LENGTH,
        /** The chunked coding, up to its last chunk. */
        CHUNKED,
        /** Up to the close: the connection ends with the body and is never reused. */
        CLOSE
    }

    /**
     * How the body of a head that passed {@link #verdict} is delimited: none for a bodyless one, else
     * the chunked coding, else its {@code Content-Length}, else up to the close.
     *
     * @param headRequest whether the request was a {@code HEAD}
     * @param status the final status code
     */
    public Framing framing(boolean headRequest, int status) {
        if (bodyless(headRequest, status)) {
            return Framing.NONE;
        }
        if (transferEncoding != null) {
            return Framing.CHUNKED;
        }
        return contentLength >= 0 ? Framing.LENGTH : Framing.CLOSE;
    }

    /** The head's {@code Content-Length}, or -1 when it has none. */
    public long contentLength() {
        return contentLength;
    }

    /**
     * Whether the connection may carry another request once this response's body is read: when its
     * {@code Connection} fields let it ({@link #keepsAlive}) and its body does not end with the close.
     */
    public boolean reusable(int minor, Framing framing) {
        return framing != Framing.CLOSE && keepsAlive(minor);
    }

    public String verdict(int major, int minor, int status) {
        if (problem != null) {
            return problem;
        }
        String code = statusProblem(status);
        if (code != null) {
            return code;
        }
        if (major != 1 || (minor != 0 && minor != 1)) {
            return "HTTP/" + major + "." + minor + " (expected: HTTP/1.0 or HTTP/1.1)";
        }
        if (status == 101) {
            return UNASKED_UPGRADE;
        }
        if (transferEncoding != null) {
            if (minor == 0) {
                return "Transfer-Encoding in an HTTP/1.0 response";
            }
            if (!transferEncoding.trim().equalsIgnoreCase("chunked")) {
                return "Transfer-Encoding: " + transferEncoding + " (expected: chunked)";
            }
            if (contentLength >= 0) {
                return "both Transfer-Encoding and Content-Length";
            }
            if (status == 204 || status == 304) {
                return "Transfer-Encoding on a " + status + " response, which has no body";
            }
        }
        if (status == 204 && contentLength >= 0) {
            return "Content-Length on a 204 response, which has no body";
        }
        return null;
    }

    private static boolean contains(CharSequence value, char c) {
        for (int i = 0, n = value.length(); i < n; i++) {
            if (value.charAt(i) == c) {
                return true;
            }
        }
        return false;
    }

    /**
     * A Content-Length value: one or more digits between optional spaces and tabs, else -1. Read in
     * place: every proxied response has one, and the engines hand the value over as the decoder made
     * it.
     */
    private static long parseLength(CharSequence text) {
        int start = 0;
        int end = text.length();
        while (start < end && (text.charAt(start) == ' ' || text.charAt(start) == '\t')) {
            start++;
        }
        while (end > start && (text.charAt(end - 1) == ' ' || text.charAt(end - 1) == '\t')) {
            end--;
        }
        if (start == end || end - start > 18) {
            return -1;
        }
        long length = 0;
        for (int i = start; i < end; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            length = length * 10 + (c - '0');
        }
        return length;
    }
}
