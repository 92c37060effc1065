package dev.sluice.demo;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

/**
 * The common part of every demo upstream: GET (and HEAD) only, {@code GET /health}, JSON 404 and
 * 400 answers. Handlers never block: delayed answers are scheduled.
 */
abstract class DemoService extends Handler.Abstract.NonBlocking {

    private final String name;
    private final ByteBuffer health;

    DemoService(String name) {
        this.name = name;
        this.health = JsonReply.prebuilt(
                ("{\"status\":\"up\",\"service\":\"" + name + "\"}").getBytes(StandardCharsets.UTF_8));
    }

    /** The service's name, as in {@link DemoUpstreams#NAMES}. */
    final String name() {
        return name;
    }

    @Override
    public final boolean handle(Request request, Response response, Callback callback) {
        String method = request.getMethod();
        String path = request.getHttpURI().getPath();
        if (!method.equals("GET") && !method.equals("HEAD")) {
            response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
            JsonReply.error(response, callback, 405, "method_not_allowed", method + " is not allowed on " + path);
        } else if (path.equals("/health")) {
            JsonReply.send(response, callback, 200, health);
        } else {
            try {
                if (!serve(path, request, response, callback)) {
                    JsonReply.error(response, callback, 404, "not_found", "the " + name + " service has no " + path);
                }
            } catch (BadParameterException e) {
                JsonReply.error(response, callback, 400, "bad_request", e.getMessage());
            }
        }
        return true;
    }

    /**
     * Answers a GET for {@code path} (decoded, not {@code /health}).
     *
     * @return false when this service has no such path (the caller answers 404)
     */
    abstract boolean serve(String path, Request request, Response response, Callback callback);

    /** Reads an optional integer query parameter within bounds. */
    static long number(Request request, String name, long defaultValue, long min, long max) {
        Fields query = Request.extractQueryParameters(request);
        String text = query.getValue(name);
        if (text == null) {
            return defaultValue;
        }
        try {
            long value = Long.parseLong(text);
            if (value >= min && value <= max) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new BadParameterException(name + ": '" + text + "' (expected: an integer " + min + ".." + max + ")");
    }

    /** An optional text query parameter, or {@code defaultValue}. */
    static String text(Request request, String name, String defaultValue) {
        String value = Request.extractQueryParameters(request).getValue(name);
        return value == null ? defaultValue : value;
    }

    /** A query parameter the service cannot use: answered with 400. */
    static final class BadParameterException extends RuntimeException {
        BadParameterException(String message) {
            super(message, null, false, false);
        }
    }
}
