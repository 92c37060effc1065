package dev.sluice.http;

import dev.sluice.compose.JsonSplice;
import java.nio.charset.StandardCharsets;

/**
 * The small JSON body of every error the gateway itself answers: {@code
 * {"status":404,"error":"not_found","message":"..."}}; an internal error adds {@code "request_id"}.
 */
public final class ErrorBody {

    /** Content-Type of error bodies. */
    public static final String CONTENT_TYPE = "application/json";

    private ErrorBody() {}

    public static byte[] of(int status, String error, String message) {
        return ("{\"status\":" + status + ",\"error\":" + JsonSplice.quote(error) + ",\"message\":"
                        + JsonSplice.quote(message) + "}")
                .getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The answer to a request that failed inside the gateway (a bug, not the upstream's doing): the
     * request's id, so the client can point at the log entry, and never the exception's text.
     */
    public static byte[] internalError(String requestId) {
        return ("{\"status\":500,\"error\":\"internal_error\",\"message\":"
                        + JsonSplice.quote(
                                "the gateway failed on this request; its log names the cause under this request id")
                        + ",\"request_id\":" + JsonSplice.quote(requestId) + "}")
                .getBytes(StandardCharsets.UTF_8);
    }

    public static byte[] of(UpstreamFailure failure, String upstream) {
        return of(failure.status(), failure.code(), failure.reason() + ": " + upstream);
    }

    /** A request the gateway refuses as malformed: 400, {@code bad_request}. */
    public static byte[] badRequest(String reason) {
        return of(400, "bad_request", reason);
    }

    public static byte[] notFound(String method, String path) {
        return of(404, "not_found", "no route for " + method + " " + path);
    }

    public static byte[] methodNotAllowed(String method, String path) {
        return of(405, "method_not_allowed", method + " is not allowed on " + path);
    }
}
