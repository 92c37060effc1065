package dev.sluice.http;

/**
 * A client's request body broke its framing (an invalid chunk, a body cut short) after the gateway
 * began to stream it upstream. The upstream exchange is aborted, never ended, so that no upstream
 * takes a cut-short body for a whole one; the client is answered {@value #STATUS} {@value #CODE} when
 * nothing was sent to it yet. Engines raise it and answer it alike.
 */
public final class BrokenRequestBody extends RuntimeException {

    public static final int STATUS = 400;
    public static final String CODE = "bad_request";

    public BrokenRequestBody(Throwable cause) {
        super("the request body is malformed (its framing broke); the upstream request was aborted", cause);
    }

    /** The JSON error body for the client. */
    public byte[] errorBody() {
        return ErrorBody.of(STATUS, CODE, getMessage());
    }
}
