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

    /** The idempotent methods of RFC 9110, section 9.2.2. */
    public static boolean idempotent(String method) {
        return switch (method) {
            case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE" -> true;
            default -> false;
        };
    }
}
