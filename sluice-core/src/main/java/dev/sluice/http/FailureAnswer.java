package dev.sluice.http;

import dev.sluice.routing.PathTemplate;
import java.io.IOException;

/**
 * What the client gets for a request that failed with an exception, and whether the gateway logs it
 * at ERROR: the one decision both engines ask. Only a failure inside the gateway (a bug: neither
 * the upstream's, the client's nor the route's doing) is a 500 {@code internal_error} logged at ERROR
 * with the request's id; everything the gateway decides, a 4xx above all, is an answer and never an
 * ERROR.
 *
 * @param status the response's status
 * @param code the error body's {@code error}
 * @param message the error body's {@code message} (empty for an internal failure: its text is never shown)
 * @param internal whether it is a failure inside the gateway: 500, logged at ERROR with the request's id
 */
public record FailureAnswer(int status, String code, String message, boolean internal) {

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

    /** Whether {@code failure} is a failure inside the gateway: see {@link #internal()}. */
    public static boolean isInternal(Throwable failure) {
        return of(failure).internal();
    }

    /** The error body; an internal failure's names the request's id and nothing of the exception. */
    public byte[] body(String requestId) {
        return internal ? ErrorBody.internalError(requestId) : ErrorBody.of(status, code, message);
    }
}
