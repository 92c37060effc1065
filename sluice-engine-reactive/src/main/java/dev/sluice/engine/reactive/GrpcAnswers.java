package dev.sluice.engine.reactive;

import dev.sluice.http.GrpcStatus;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerResponse;

/**
 * The gateway's own answer to a gRPC call, as the core's {@link GrpcStatus} maps it: a trailers-only
 * response (HTTP 200, {@code content-type: application/grpc}, {@code grpc-status} and {@code
 * grpc-message} in its one header block, which ends the stream).
 */
final class GrpcAnswers {

    private GrpcAnswers() {}

    /** Whether the request is a gRPC call, answered with a gRPC status instead of a JSON error. */
    static boolean isGrpc(ClientRequest in) {
        String type = in.request.requestHeaders().get(HttpHeaderNames.CONTENT_TYPE);
        return GrpcStatus.isGrpc(type) || dev.sluice.http.GrpcWeb.is(type); // gRPC-Web's clients read it too
    }

    /** Answers the call as the gateway's HTTP answer {@code status} maps to. */
    static Mono<Void> answer(ClientRequest in, HttpServerResponse response, int status, String message) {
        int code = GrpcStatus.of(status);
        if (in.tally() != null) {
            in.tally().grpcStatus(Integer.toString(code));
        }
        response.status(HttpResponseStatus.OK);
        response.responseHeaders().remove(HttpHeaderNames.CONTENT_LENGTH);
        response.header( // gRPC-Web's type to a gRPC-Web call
                HttpHeaderNames.CONTENT_TYPE,
                dev.sluice.http.GrpcWeb.answerContentType(
                        in.request.requestHeaders().get(HttpHeaderNames.CONTENT_TYPE)));
        response.header(GrpcStatus.STATUS_HEADER, Integer.toString(code));
        if (!message.isEmpty()) {
            response.header(GrpcStatus.MESSAGE_HEADER, GrpcStatus.message(message));
        }
        return response.send().then();
    }
}
