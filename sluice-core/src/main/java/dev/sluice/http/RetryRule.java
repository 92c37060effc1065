package dev.sluice.http;

/**
 * The one retry every engine makes (docs/ENGINE-CONTRACT.md): a request without a body and with an
 * idempotent method whose upstream connection is closed or reset before the upstream answered (a
 * pooled connection the upstream closed while it sat idle, a fresh one it dropped) is sent once more.
 * Never after an answer, a timeout, or a status: {@code 429} and {@code 503} are the upstream's
 * answer and are relayed.
 */
public final class RetryRule {

    private RetryRule() {}

    /** Whether a request may be sent again when its connection fails before any answer. */
    public static boolean mayResend(String method, boolean hasBody) {
        return !hasBody && idempotent(method);
    }

    /**
     * The decision every engine asks when an upstream call fails: send it once more?
     *
     * @param method the request method
     * @param hasBody whether the request has a body (a streamed body cannot be sent twice)
     * @param failure how the call failed
     * @param answered whether any byte of an answer had arrived
     * @param attempts how many times the call has been sent so far (1 after the first send)
     * @return true only for a bodyless idempotent request whose connection was closed or reset before
     *     any answer, on its first attempt
     */
    public static boolean resends(
            String method, boolean hasBody, UpstreamFailure failure, boolean answered, int attempts) {
        return attempts == 1 && !answered && failure == UpstreamFailure.RESET && mayResend(method, hasBody);
    }

    /** The idempotent methods of RFC 9110, section 9.2.2. */
    public static boolean idempotent(String method) {
        return switch (method) {
            case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE" -> true;
            default -> false;
        };
    }
}
