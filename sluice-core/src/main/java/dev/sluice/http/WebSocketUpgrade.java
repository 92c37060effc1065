package dev.sluice.http;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.ProxyTarget;
import dev.sluice.config.Target;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * What a request head says about a WebSocket upgrade (RFC 6455 section 4.1), decided once for every
 * engine. A request asks for one when its {@code Connection} lists {@code upgrade} and its {@code
 * Upgrade} names {@code websocket}; such a request is a valid handshake only as a {@code GET} on
 * HTTP/1.1 with {@code Sec-WebSocket-Key} and {@code Sec-WebSocket-Version} and no body. A valid one on
 * a proxy route becomes a tunnel: the engine sends it upstream with {@link #UPSTREAM_HEADERS} (the two
 * hop-by-hop headers every other request loses), relays a {@code 101} and then bytes both ways, frames
 * never parsed. Any other request that asks is refused {@code 400}. A request whose {@code Upgrade}
 * names something else ({@code h2c}) is an ordinary request: its hop-by-hop headers are dropped.
 *
 * <pre>
 *   client ──GET, Upgrade: websocket──► gateway ──same, + Connection/Upgrade──► upstream
 *   client ◄──────── 101 ─────────────── gateway ◄─────────── 101 ─────────────── upstream
 *   client ◄═══════ bytes, until either side closes or the tunnel idles ═══════► upstream
 * </pre>
 */
public final class WebSocketUpgrade {

    /** The header whose values {@link #switched} reads; the engine hands them in as they came. */
    public static final String HEADER = "Upgrade";

    /** The hop-by-hop headers a tunnelled request carries upstream, in this order. */
    public static final Map<String, String> UPSTREAM_HEADERS = orderedUpstreamHeaders();

    /** What a request asks: nothing of WebSocket, a valid handshake, or a malformed one. */
    public enum Kind {
        NONE,
        VALID,
        INVALID
    }

    private static final WebSocketUpgrade NONE = new WebSocketUpgrade(Kind.NONE, "");
    private static final WebSocketUpgrade VALID = new WebSocketUpgrade(Kind.VALID, "");

    private final Kind kind;
    private final String problem;

    private WebSocketUpgrade(Kind kind, String problem) {
        this.kind = kind;
        this.problem = problem;
    }

    private static Map<String, String> orderedUpstreamHeaders() {
        java.util.LinkedHashMap<String, String> headers = new java.util.LinkedHashMap<>();
        headers.put("Connection", "Upgrade");
        headers.put("Upgrade", "websocket");
        return java.util.Collections.unmodifiableMap(headers);
    }

    /**
     * Reads a request head.
     *
     * @param method the request method
     * @param version the protocol, {@code HTTP/1.1} or {@code HTTP/1.0}
     * @param headers every value of a header by name (any case), an empty list when absent
     */
    public static WebSocketUpgrade of(String method, String version, Function<String, List<String>> headers) {
        requireNonNull(method, "method");
        requireNonNull(headers, "headers");
        if (!hasToken(headers.apply("Connection"), "upgrade") || !hasToken(headers.apply("Upgrade"), "websocket")) {
            return NONE;
        }
        if (!"GET".equals(method)) {
            return invalid("a WebSocket upgrade must be a GET, not " + method);
        }
        if (!"HTTP/1.1".equals(version)) {
            return invalid("a WebSocket upgrade needs HTTP/1.1, not " + version);
        }
        if (headers.apply("Sec-WebSocket-Key").size() != 1) {
            return invalid("a WebSocket upgrade needs one Sec-WebSocket-Key header");
        }
        if (headers.apply("Sec-WebSocket-Version").size() != 1) {
            return invalid("a WebSocket upgrade needs one Sec-WebSocket-Version header");
        }
        if (!headers.apply("Transfer-Encoding").isEmpty() || carriesBody(headers.apply("Content-Length"))) {
            return invalid("a WebSocket upgrade carries no body");
        }
        return VALID;
    }

    /** Whether a declared length ({@link RequestFraming#declaredLength}) says a body follows. */
    private static boolean carriesBody(List<String> contentLengths) {
        try {
            long length = RequestFraming.declaredLength(contentLengths);
            return length != RequestFraming.UNDECLARED && length != 0;
        } catch (IllegalArgumentException e) { // RequestFraming refused the head before
            return true;
        }
    }

    private static WebSocketUpgrade invalid(String problem) {
        return new WebSocketUpgrade(Kind.INVALID, problem);
    }

    public Kind kind() {
        return kind;
    }

    /** Whether the request asks for a WebSocket upgrade at all, valid or not. */
    public boolean requested() {
        return kind != Kind.NONE;
    }

    /**
     * Why a request that asks is refused on a route with this target ({@code 400 bad_request}), or
     * null when it is not: a valid handshake on a proxy route, or a request that asks nothing.
     */
    public String refusal(Target target) {
        return switch (kind) {
            case NONE -> null;
            case INVALID -> problem;
            case VALID ->
                target instanceof ProxyTarget
                        ? null
                        : "a WebSocket upgrade is relayed on proxy routes only, not on a composition or an answered route";
        };
    }

    /**
     * Whether an upstream's answer to a tunnelled request switched to WebSocket: a {@code 101} whose
     * {@code Upgrade} names {@code websocket}. Any other answer is relayed as an ordinary response.
     */
    public static boolean switched(int status, List<String> upgrade) {
        return status == 101 && hasToken(upgrade, "websocket");
    }

    /**
     * What is wrong with an upstream's answer to a tunnelled request, or null: a {@code 101} that
     * switches to something other than WebSocket is an upstream failure (a 502), never relayed.
     */
    public static String switchProblem(int status, List<String> upgrade) {
        return status == 101 && !switched(status, upgrade)
                ? "101 Switching Protocols to something other than websocket"
                : null;
    }

    /**
     * Whether an answer to a tunnelled request is an interim one to skip (a 100 or 103): the answer
     * that counts follows. A {@code 101} is not skipped: it is the switch, or {@link #switchProblem}.
     */
    public static boolean skipped(int status) {
        return ResponseHeadCheck.interim(status) && status != 101;
    }

    /** Whether a header name is {@code Upgrade} (any case), whose values {@link #switched} reads. */
    public static boolean upgradeHeader(CharSequence name) {
        return HeaderNameSet.equalsIgnoreCase("upgrade", name);
    }

    /** Whether one of the comma-separated values holds {@code token} (any case). */
    static boolean hasToken(List<String> values, String token) {
        for (String value : values) {
            if (HopByHop.listed(token, value)) { // the one reading of a token list, in place
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return problem.isEmpty() ? kind.name() : kind + ": " + problem;
    }
}
