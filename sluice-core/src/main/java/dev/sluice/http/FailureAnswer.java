package dev.sluice.http;

import dev.sluice.routing.PathTemplate;
import java.io.IOException;

/**
 * What the client gets for a request that failed with an exception, and whether the gateway logs it
 * at ERROR: the one decision both engines ask. Only a failure inside the gateway (a bug: neither
 * the upstream's, the client's nor the route's doing) is a 500 {@code internal_error} logged at ERROR
 * with the request's id; everything the gateway decides, a 4xx above all, is an answer and never an
 * ERROR. An upstream's failure is its {@link UpstreamFailure}'s 502, 503 or 504 ({@link #upstream});
 * a body past its route's limit ({@link BodyLimit.Exceeded}) a 413.
 *
 * <pre>
 *   Decided (an upstream's failure, a refusal, BodyLimit.Exceeded)   its status and code   DEBUG
 *   PathTemplate.ExpansionException (a path variable)                400 bad_request       DEBUG
 *   IOException (the client's body unreadable, the client gone)      400 bad_request       DEBUG
 *   anything else: a failure inside the gateway                      500 internal_error    ERROR, X-Request-Id
 * </pre>
 *
 * @param status the response's status
 * @param code the error body's {@code error}
 * @param message the error body's {@code message} (empty for an internal failure: its text is never shown)
 * @param internal whether it is a failure inside the gateway: 500, logged at ERROR with the request's id
 */
public record FailureAnswer(int status, String code, String message, boolean internal) {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(FailureAnswer.class);

    /** An exception that carries the answer the gateway decided: an upstream's failure, a refusal. */
    public interface Decided {
        int status();

        String code();

        String getMessage();
    }

    /** The answer to {@code failure}. */
    public static FailureAnswer of(Throwable failure) {
        return switch (failure) {
            case Decided d -> new FailureAnswer(d.status(), d.code(), String.valueOf(d.getMessage()), false);
            // a path variable missing or unsafe: the client's doing (PathTemplate's message names it)
            case PathTemplate.ExpansionException e -> new FailureAnswer(400, "bad_request", e.getMessage(), false);
            // the client's side: its body could not be read, or it went away
            case IOException e -> new FailureAnswer(400, "bad_request", "the request could not be read", false);
            default -> new FailureAnswer(500, "internal_error", "", true);
        };
    }

    /**
     * The answer to an upstream call that failed so ({@code 502}, {@code 503} or {@code 504}, the
     * upstream named in its message): the upstream's doing, never an ERROR of the gateway's.
     */
    public static FailureAnswer upstream(UpstreamFailure failure, String upstream) {
        return new FailureAnswer(failure.status(), failure.code(), failure.reason() + ": " + upstream, false);
    }

    /**
     * Logs the failure of request {@code requestId}: a failure inside the gateway at ERROR, its
     * exception and stack trace included, under the request's id (the one the client gets in its
     * body and {@code X-Request-Id}); any other at DEBUG, without its exception's text, since the
     * client, the route or an upstream caused it and the answer says what happened. The line names
     * the method and path, never a header value or a byte of the body.
     *
     * @param committed the response had begun: the connection is aborted instead of answered
     */
    public void log(Throwable failure, String requestId, String method, String path, boolean committed) {
        if (internal) {
            LOG.atError()
                    .setCause(failure)
                    .addKeyValue("request_id", requestId)
                    .log(
                            "request {}: {} {} failed inside the gateway{}",
                            requestId,
                            method,
                            path,
                            committed ? " after its response began (connection aborted)" : "");
        } else if (LOG.isDebugEnabled()) {
            LOG.atDebug()
                    .addKeyValue("request_id", requestId)
                    .log(
                            "request {}: {} {} answered {} {}{}",
                            requestId,
                            method,
                            path,
                            status,
                            code,
                            committed ? " after its response began (connection aborted)" : "");
        }
    }

    /** The error body; an internal failure's names the request's id and nothing of the exception. */
    public byte[] body(String requestId) {
        return internal ? ErrorBody.internalError(requestId) : ErrorBody.of(status, code, message);
    }
}
