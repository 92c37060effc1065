package dev.sluice.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * The gateway's own answers to a gRPC call ({@code content-type: application/grpc…}): a gRPC client
 * reads a call's outcome from {@code grpc-status} and {@code grpc-message}, not from the HTTP status, so a
 * refusal or a failure of the gateway's is answered as a trailers-only response (HTTP 200, {@code
 * content-type: application/grpc}, the status in the one header block) with the status the gateway's
 * HTTP answer maps to, as Envoy maps them:
 *
 * <pre>
 *   HTTP answer of the gateway                       grpc-status
 *   401 (auth)                                       16 UNAUTHENTICATED
 *   403 (IP rules, auth)                             7  PERMISSION_DENIED
 *   404 (no route)                                   12 UNIMPLEMENTED
 *   429 (rate limit)                                 8  RESOURCE_EXHAUSTED
 *   502, 503 (connect failure, open breaker, pool)   14 UNAVAILABLE
 *   504 (a timeout, grpc-timeout's deadline)         4  DEADLINE_EXCEEDED
 *   anything else                                    13 INTERNAL
 * </pre>
 *
 * It also reads {@code grpc-timeout}, the call's deadline, which the engines honour as the route's
 * timeout when it is shorter.
 */
public final class GrpcStatus {

    public static final int OK = 0;
    public static final int DEADLINE_EXCEEDED = 4;
    public static final int PERMISSION_DENIED = 7;
    public static final int RESOURCE_EXHAUSTED = 8;
    public static final int UNIMPLEMENTED = 12;
    public static final int INTERNAL = 13;
    public static final int UNAVAILABLE = 14;
    public static final int UNAUTHENTICATED = 16;

    /** The content type of a trailers-only answer. */
    public static final String CONTENT_TYPE = "application/grpc";

    public static final String STATUS_HEADER = "grpc-status";
    public static final String MESSAGE_HEADER = "grpc-message";
    public static final String TIMEOUT_HEADER = "grpc-timeout";

    private GrpcStatus() {}

    /**
     * Whether a request of this content type is a gRPC call ({@code application/grpc}, {@code
     * application/grpc+proto}, …; gRPC-Web is not: its clients read HTTP statuses).
     */
    public static boolean isGrpc(String contentType) {
        if (contentType == null || contentType.length() < 16) {
            return false;
        }
        if (!contentType.regionMatches(true, 0, CONTENT_TYPE, 0, 16)) {
            return false;
        }
        if (contentType.length() == 16) {
            return true;
        }
        char next = contentType.charAt(16);
        return next == '+' || next == ';';
    }

    /**
     * Whether a request of this {@code Content-Type} is a gRPC or gRPC-Web call, which the gateway
     * answers with a gRPC status ({@link #answerHead}) instead of a JSON error: both engines ask.
     */
    public static boolean answeredWithStatus(String contentType) {
        return isGrpc(contentType) || GrpcWeb.is(contentType);
    }

    /**
     * The head of the gateway's own answer to a gRPC call, trailers-only (HTTP {@code 200}, the body
     * empty, the head ending the stream): its {@code content-type} (gRPC-Web's to a gRPC-Web call),
     * {@code grpc-status} as HTTP {@code status} maps to, and {@code grpc-message} unless {@code
     * message} is empty; each field given to {@code put}, which replaces any value the name had. The
     * engine sets the status {@code 200}, drops any {@code Content-Length} and writes the head.
     *
     * @param requestContentType the call's {@code Content-Type}
     * @return the grpc-status code, for the exchange's tally
     */
    public static int answerHead(
            int status, String message, String requestContentType, java.util.function.BiConsumer<String, String> put) {
        int code = of(status);
        put.accept("content-type", GrpcWeb.answerContentType(requestContentType));
        put.accept(STATUS_HEADER, Integer.toString(code));
        if (!message.isEmpty()) {
            put.accept(MESSAGE_HEADER, message(message));
        }
        return code;
    }

    /** The gRPC status a gateway answer of HTTP {@code status} maps to (see the table above). */
    public static int of(int status) {
        return switch (status) {
            case 401 -> UNAUTHENTICATED;
            case 403 -> PERMISSION_DENIED;
            case 404 -> UNIMPLEMENTED;
            case 429 -> RESOURCE_EXHAUSTED;
            case 502, 503 -> UNAVAILABLE;
            case 504 -> DEADLINE_EXCEEDED;
            default -> INTERNAL;
        };
    }

    /**
     * The call's deadline from {@code grpc-timeout} (at most 8 digits and a unit: {@code H M S m u n}),
     * or empty when absent or malformed (gRPC servers ignore a malformed one too).
     */
    public static Optional<Duration> timeout(String value) {
        if (value == null || value.length() < 2 || value.length() > 9) {
            return Optional.empty();
        }
        long amount = 0;
        for (int i = 0; i < value.length() - 1; i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return Optional.empty();
            }
            amount = amount * 10 + (c - '0');
        }
        return switch (value.charAt(value.length() - 1)) {
            case 'H' -> Optional.of(Duration.ofHours(amount));
            case 'M' -> Optional.of(Duration.ofMinutes(amount));
            case 'S' -> Optional.of(Duration.ofSeconds(amount));
            case 'm' -> Optional.of(Duration.ofMillis(amount));
            case 'u' -> Optional.of(Duration.ofNanos(amount * 1000));
            case 'n' -> Optional.of(Duration.ofNanos(amount));
            default -> Optional.empty();
        };
    }

    /** The shorter of a route's timeout and the call's deadline, either of which may be absent. */
    public static Optional<Duration> deadline(Optional<Duration> route, String grpcTimeout) {
        Optional<Duration> call = timeout(grpcTimeout);
        if (call.isEmpty()) {
            return route;
        }
        if (route.isEmpty() || call.get().compareTo(route.get()) < 0) {
            return call;
        }
        return route;
    }

    /**
     * The {@code message} of an {@link ErrorBody} (what a gRPC client shows as the status's message), or
     * {@code fallback} when the body has none.
     */
    public static String messageOf(byte[] errorBody, String fallback) {
        String body = new String(errorBody, StandardCharsets.UTF_8);
        int at = body.indexOf("\"message\":\"");
        if (at < 0) {
            return fallback;
        }
        StringBuilder out = new StringBuilder();
        for (int i = at + 11; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c == '"') {
                return out.toString();
            }
            if (c == '\\' && i + 1 < body.length()) {
                char e = body.charAt(++i);
                switch (e) {
                    case 'n' -> out.append('\n');
                    case 't' -> out.append('\t');
                    case 'r' -> out.append('\r');
                    case 'u' -> {
                        if (i + 4 < body.length()) {
                            out.append((char) Integer.parseInt(body.substring(i + 1, i + 5), 16));
                            i += 4;
                        }
                    }
                    default -> out.append(e);
                }
            } else {
                out.append(c);
            }
        }
        return fallback;
    }

    /**
     * {@code message} as a {@code grpc-message} value: percent-encoded UTF-8, every byte outside
     * printable ASCII and {@code %} itself escaped, as the gRPC HTTP/2 protocol asks.
     */
    public static String message(String message) {
        byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length + 8);
        for (byte b : bytes) {
            int c = b & 0xff;
            if (c >= 0x20 && c < 0x7f && c != '%') {
                out.write(c);
            } else {
                String hex = Integer.toHexString(c).toUpperCase(Locale.ROOT);
                out.write('%');
                if (hex.length() == 1) {
                    out.write('0');
                }
                out.writeBytes(hex.getBytes(StandardCharsets.US_ASCII));
            }
        }
        return out.toString(StandardCharsets.US_ASCII);
    }
}
