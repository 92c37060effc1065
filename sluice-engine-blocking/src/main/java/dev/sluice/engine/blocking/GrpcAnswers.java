package dev.sluice.engine.blocking;

import dev.sluice.http.GrpcStatus;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The gateway's own answer to a gRPC call, as the core's {@link GrpcStatus} maps it: a trailers-only
 * response (HTTP 200, {@code content-type: application/grpc}, {@code grpc-status} and {@code
 * grpc-message} in its one header block, which ends the stream).
 */
final class GrpcAnswers {

    private GrpcAnswers() {}

    /** Whether {@code request} is a gRPC or gRPC-Web call, answered with a gRPC status instead of a JSON error. */
    static boolean isGrpc(Request request) {
        String type = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
        return GrpcStatus.isGrpc(type) || dev.sluice.http.GrpcWeb.is(type);
    }

    /** Answers the call as the gateway's HTTP answer {@code status} maps to, and ends the exchange. */
    static void answer(Request request, Response response, int status, String message, Callback callback) {
        int code = GrpcStatus.of(status);
        if (Requests.tally(request) instanceof dev.sluice.observe.ExchangeTally tally) {
            tally.grpcStatus(Integer.toString(code));
        }
        response.setStatus(200);
        HttpFields.Mutable fields = response.getHeaders();
        fields.remove(HttpHeader.CONTENT_LENGTH);
        fields.put( // gRPC-Web's type to a gRPC-Web call
                HttpHeader.CONTENT_TYPE,
                dev.sluice.http.GrpcWeb.answerContentType(request.getHeaders().get(HttpHeader.CONTENT_TYPE)));
        fields.put(GrpcStatus.STATUS_HEADER, Integer.toString(code));
        if (!message.isEmpty()) {
            fields.put(GrpcStatus.MESSAGE_HEADER, GrpcStatus.message(message));
        }
        response.write(true, ByteBuffer.allocate(0), callback);
    }
}
