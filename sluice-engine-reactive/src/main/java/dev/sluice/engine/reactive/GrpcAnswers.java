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
        return GrpcStatus.answeredWithStatus(in.request.requestHeaders().get(HttpHeaderNames.CONTENT_TYPE));
    }

    /** Answers the call as the gateway's HTTP answer {@code status} maps to. */
    static Mono<Void> answer(ClientRequest in, HttpServerResponse response, int status, String message) {
        response.status(HttpResponseStatus.OK);
        response.responseHeaders().remove(HttpHeaderNames.CONTENT_LENGTH);
        int code = GrpcStatus.answerHead( // the core decides the head
                status,
                message,
                in.request.requestHeaders().get(HttpHeaderNames.CONTENT_TYPE),
                response.responseHeaders()::set);
        if (in.tally() != null) {
            in.tally().grpcStatus(Integer.toString(code));
        }
        return response.send().then();
    }
}
