package dev.sluice.lab.compose;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The compose scenario's routes on the lab's sizes upstream: {@code GET /doc/N}, {@code GET /reviews?ids=…}
 * and {@code GET /products/{id}} (see {@link Documents}). Documents are made once per size and kept.
 */
public final class DocRoutes {

    private final ConcurrentHashMap<Integer, ByteBuffer> docs = new ConcurrentHashMap<>();

    /** Answers the request when its path is one of these routes; false otherwise. */
    public boolean serve(Request request, Response response, Callback callback) {
        String path = Request.getPathInContext(request);
        if (path.startsWith("/doc/")) {
            int n = parse(path.substring("/doc/".length()));
            if (n < Documents.MIN || n > Documents.MAX) {
                Response.writeError(
                        request,
                        response,
                        callback,
                        400,
                        "size: '" + path.substring(5) + "' (expected: " + Documents.MIN + ".." + Documents.MAX + ")");
                return true;
            }
            write(
                    response,
                    callback,
                    docs.computeIfAbsent(
                                    n, k -> ByteBuffer.wrap(Documents.doc(k)).asReadOnlyBuffer())
                            .slice());
            return true;
        }
        if (path.equals("/reviews")) {
            write(
                    response,
                    callback,
                    ByteBuffer.wrap(Documents.reviews(request.getHttpURI().getQuery())));
            return true;
        }
        if (path.startsWith("/products/")) {
            int id = parse(path.substring("/products/".length()));
            if (id < 0) {
                Response.writeError(request, response, callback, 404, "no such product");
                return true;
            }
            write(response, callback, ByteBuffer.wrap(Documents.product(id)));
            return true;
        }
        return false;
    }

    private static void write(Response response, Callback callback, ByteBuffer body) {
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.remaining());
        response.write(true, body, callback);
    }

    private static int parse(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
