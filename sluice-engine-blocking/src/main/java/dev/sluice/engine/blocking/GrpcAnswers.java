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
        return GrpcStatus.answeredWithStatus(request.getHeaders().get(HttpHeader.CONTENT_TYPE));
    }

    /** Answers the call as the gateway's HTTP answer {@code status} maps to, and ends the exchange. */
    static void answer(Request request, Response response, int status, String message, Callback callback) {
        response.setStatus(200);
        HttpFields.Mutable fields = response.getHeaders();
        fields.remove(HttpHeader.CONTENT_LENGTH);
        int code = GrpcStatus.answerHead( // the core decides the head
                status, message, request.getHeaders().get(HttpHeader.CONTENT_TYPE), fields::put);
        if (Requests.tally(request) instanceof dev.sluice.observe.ExchangeTally tally) {
            tally.grpcStatus(Integer.toString(code));
        }
        response.write(true, ByteBuffer.allocate(0), callback);
    }
}
