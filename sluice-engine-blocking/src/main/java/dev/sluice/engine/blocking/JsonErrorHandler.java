package dev.sluice.engine.blocking;

import dev.sluice.http.ErrorBody;
import dev.sluice.http.RequestFraming;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.observe.RefusedHead;
import dev.sluice.routing.RequestPath;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * The answers Jetty writes itself, before or around the gateway's handler (its parser refusing a
 * request: 400, 414, 431, 505; a request the handler failed before committing), as the contract's
 * JSON instead of Jetty's HTML page. The status maps to a code and a reason through the core's
 * {@link RequestFraming.Rejection#forParserStatus}, so neither Jetty's wording nor any exception text
 * reaches the client, and both engines answer the same head alike. An answer to a head the gateway's
 * handler never saw is reported to the observer here ({@link RefusedHead}), once it is written. On
 * HTTP/2 the answer to a stream the client reset before its request was handled fails quietly: no
 * RST_STREAM in answer to the client's ({@link StrictHttp2#keepClosed}).
 */
final class JsonErrorHandler extends ErrorHandler {

    /** Jetty's request line for a head whose own line it could not read whole. */
    private static final String UNREAD_METHOD = "BAD";

    private static final String UNREAD_TARGET = "/badMessage";

    private final GatewayObserver observer;

    JsonErrorHandler(GatewayObserver observer) {
        this.observer = observer;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        StrictHttp2.keepClosed(request); // a stream the client reset: no RST_STREAM back when this write fails
        int status = response.getStatus();
        if (request.getAttribute(ERROR_EXCEPTION) instanceof HttpException failure) {
            status = failure.getCode();
        }
        RequestFraming.Rejection rejection = RequestFraming.Rejection.forParserStatus(status);
        String pathReason = rejection.status() == 400 ? pathReason(request) : null;
        response.setStatus(rejection.status());
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, ErrorBody.CONTENT_TYPE);
        if (request.getConnectionMetaData().getHttpVersion() != org.eclipse.jetty.http.HttpVersion.HTTP_2) {
            // a head Jetty refused on its own (GET *, an absolute form naming another host): the
            // connection closes after it, as after every refusal of the core's (RequestFraming)
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
        }
        byte[] body = pathReason != null ? ErrorBody.badRequest(pathReason) : rejection.errorBody();
        response.write(true, ByteBuffer.wrap(body), reported(request, callback, rejection.status(), body.length));
        return true;
    }

    /**
     * {@code callback}, reporting the answer first when an observer listens and the gateway's handler
     * never saw the request (Jetty refused its head): one the handler saw reports itself.
     */
    private Callback reported(Request request, Callback callback, int status, int bodyLength) {
        if (!observer.listens() || Requests.wasSeen(request)) { // one the handler saw reports itself
            return callback;
        }
        long start = System.nanoTime();
        String method = request.getMethod();
        String target = request.getHttpURI().getPathQuery();
        boolean unread = UNREAD_METHOD.equals(method) && UNREAD_TARGET.equals(target);
        return Callback.from(
                () -> observer.exchange(RefusedHead.event(
                        status,
                        unread ? null : method,
                        unread ? null : target,
                        Request.getRemoteAddr(request),
                        System.nanoTime() - start,
                        bodyLength)),
                callback);
    }

    /** Why {@link RequestPath} refuses this request's path (the reactive engine's words), or null. */
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

    /** The body of an answer Jetty writes without a request to hand (a head it could not parse). */
    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        RequestFraming.Rejection rejection = RequestFraming.Rejection.forParserStatus(status);
        fields.put(HttpHeader.CONTENT_TYPE, ErrorBody.CONTENT_TYPE);
        return ByteBuffer.wrap(rejection.errorBody());
    }
}
