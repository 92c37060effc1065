package dev.sluice.routing;

import java.util.ArrayList;
import java.util.List;

/**
 * The one place that decides what path a request is for: every engine normalises the raw request
 * path here before routing, and routes, strips prefixes and proxies only the normalised form, so
 * that no dot-segment, encoded dot or encoded slash reaches an upstream in a form the route did not
 * intend (the model is Envoy's {@code normalize_path: true}, {@code merge_slashes: true} and {@code
 * path_with_escaped_slashes_action: REJECT_REQUEST}).
 *
 * <ol>
 *   <li>Percent-encoded unreserved characters ({@code ALPHA DIGIT - . _ ~}) are decoded (RFC 3986
 *       §6.2.2.2), so {@code %2e%2e} is {@code ..}; every other escape is kept, its hex digits in upper
 *       case (§6.2.2.1), and never decoded.
 *   <li>Runs of {@code /} are merged into one ({@code /shop//overview} is {@code /shop/overview}).
 *   <li>Dot-segments are removed (RFC 3986 §5.2.4): {@code /api/../admin} is {@code /admin}.
 * </ol>
 *
 * Rejected, so the client gets a 400: a path not starting with {@code /}; a {@code ..} that climbs
 * above the root ({@code /../x}); an escape that is not {@code %} and two hex digits ({@code /%zz});
 * an encoded slash or backslash ({@code %2F}, {@code %5C}: an upstream that decodes them would see
 * other segments than the gateway routed on); a raw backslash, space, non-ASCII or control byte, or an
 * encoded control byte ({@code %00}); a dot-segment with path parameters ({@code ..;x}, which some
 * servers treat as {@code ..}); a raw {@code #} (a request target has no fragment, and an upstream
 * that cuts one off would see {@code /api/..#x} as {@code /api/..}).
 */
public final class RequestPath {

    private RequestPath() {}

    /** What {@link #normalise} decided. */
    public sealed interface Result {}

    /** The path to route on and forward: absolute, without dot-segments or empty segments. */
    public record Normalised(String path) implements Result {}

    /** The path cannot be normalised safely; {@code reason} is for the client (it never echoes the path). */
    public record Rejected(String reason) implements Result {}

    /**
     * Normalises a raw request path (without the query).
     *
     * @param raw the path as the client sent it, still percent-encoded
     */
    public static Result normalise(String raw) {
        if (raw == null || raw.isEmpty() || raw.charAt(0) != '/') {
            return new Rejected("the request path must start with '/'");
        }
        boolean plain = true; // nothing to decode, merge or remove: the common case returns raw itself
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c <= ' ' || c >= 0x7f || c == '\\') {
                return new Rejected("the request path has a character that is not allowed in a URI path");
            }
            if (c == '#') {
                // a request target has no fragment (RFC 9112 3.2); an upstream would cut the path at
                // the '#', so "/api/..#x" (no dot-segment here) would be "/api/.." there
                return new Rejected("the request path has a '#', which is refused (a fragment is never sent)");
            }
            if (c == '%'
                    || (c == '/' && i + 1 < raw.length() && (raw.charAt(i + 1) == '/' || raw.charAt(i + 1) == '.'))) {
                plain = false;
            }
        }
        return plain ? new Normalised(raw) : normaliseSegments(raw);
    }

    private static Result normaliseSegments(String raw) {
        List<String> out = new ArrayList<>();
        boolean trailingSlash = false;
        int pos = 1;
        while (pos <= raw.length()) {
            int end = raw.indexOf('/', pos);
            boolean last = end < 0;
            if (last) {
                end = raw.length();
            }
            String segment;
            if (raw.indexOf('%', pos) >= 0 && raw.indexOf('%', pos) < end) {
                StringBuilder decoded = new StringBuilder(end - pos);
                String problem = decodeUnreserved(raw, pos, end, decoded);
                if (problem != null) {
                    return new Rejected(problem);
                }
                segment = decoded.toString();
            } else {
                segment = raw.substring(pos, end);
            }
            if (segment.isEmpty() || segment.equals(".")) {
                trailingSlash = last; // "/a/" and "/a/." end in a slash; "/a//b" merges
            } else if (segment.equals("..")) {
                if (out.isEmpty()) {
                    return new Rejected("the request path climbs above '/' with a '..' segment");
                }
                out.removeLast();
                trailingSlash = last;
            } else if (segment.startsWith(".;") || segment.startsWith("..;")) {
                return new Rejected("the request path has a dot-segment with parameters");
            } else {
                out.add(segment);
                trailingSlash = false;
            }
            pos = end + 1;
        }
        if (out.isEmpty()) {
            return new Normalised("/");
        }
        StringBuilder path = new StringBuilder(raw.length());
        for (String segment : out) {
            path.append('/').append(segment);
        }
        if (trailingSlash) {
            path.append('/');
        }
        return new Normalised(path.toString());
    }

    /** Decodes unreserved escapes of {@code raw[from, to)} into {@code out}; a reason when one is refused. */
    private static String decodeUnreserved(String raw, int from, int to, StringBuilder out) {
        for (int i = from; i < to; i++) {
            char c = raw.charAt(i);
            if (c != '%') {
                out.append(c);
                continue;
            }
            int hi = i + 2 < to ? Character.digit(raw.charAt(i + 1), 16) : -1;
            int lo = hi < 0 ? -1 : Character.digit(raw.charAt(i + 2), 16);
            if (lo < 0) {
                return "the request path has a '%' that is not followed by two hex digits";
            }
            int b = (hi << 4) | lo;
            if (b == '/' || b == '\\') {
                return "the request path has an encoded slash (%2F or %5C), which is refused";
            }
            if (b < 0x20 || b == 0x7f) {
                return "the request path has an encoded control character";
            }
            if (isUnreserved(b)) {
                out.append((char) b);
            } else {
                out.append('%').append(HEX[hi]).append(HEX[lo]);
            }
            i += 2;
        }
        return null;
    }

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    static boolean isUnreserved(int c) {
        return (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || c == '-'
                || c == '.'
                || c == '_'
                || c == '~';
    }
}
