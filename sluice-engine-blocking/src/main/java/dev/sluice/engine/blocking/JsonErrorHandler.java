package dev.sluice.engine.blocking;

import dev.sluice.http.ErrorBody;
import dev.sluice.routing.RequestPath;
import java.nio.ByteBuffer;
import java.util.Locale;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * The answers Jetty gives itself, before {@link GatewayHandler} sees a request (a request target it
 * cannot parse, such as {@code /%zz} or {@code /../x}), in the contract's JSON error body instead of
 * Jetty's HTML page. A 400 for a path that {@link RequestPath} refuses carries RequestPath's reason,
 * the same words the reactive engine answers; other statuses carry their reason phrase, never an
 * exception's text.
 */
final class JsonErrorHandler extends ErrorHandler {

    @Override
    protected void generateResponse(
            Request request, Response response, int status, String message, Throwable cause, Callback callback) {
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, ErrorBody.CONTENT_TYPE);
        response.write(true, ByteBuffer.wrap(body(status, pathReason(request))), callback);
    }

    private static byte[] body(int status, String pathReason) {
        String phrase = HttpStatus.getMessage(status);
        if (status == 400) {
            // Jetty leaves no URI on a request whose target it could not parse
            return ErrorBody.badRequest(pathReason != null ? pathReason : "the request target cannot be parsed");
        }
        String code = phrase.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_");
        return ErrorBody.of(status, code, phrase);
    }

    /** Why RequestPath refuses this request's path, or null when it does not (or there is none). */
    private static String pathReason(Request request) {
        try {
            String path = request.getHttpURI().getPath();
            return path != null && RequestPath.normalise(path) instanceof RequestPath.Rejected rejected
                    ? rejected.reason()
                    : null;
        } catch (RuntimeException unparsable) {
            return null;
        }
    }
}
