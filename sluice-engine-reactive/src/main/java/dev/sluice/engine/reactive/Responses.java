package dev.sluice.engine.reactive;

import dev.sluice.http.ErrorBody;
import dev.sluice.http.RequestId;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.util.AttributeKey;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerResponse;

/** The gateway's own answers, and the abort of a response already under way. */
final class Responses {

    /** Set on a connection whose response was aborted, for the observer's {@code aborted}. */
    static final AttributeKey<Boolean> ABORTED = AttributeKey.valueOf("sluice.aborted");

    private Responses() {}

    /**
     * Answers an error with a JSON {@link ErrorBody}, replacing any status and headers set so far
     * (the route's {@code response-headers} never apply to the gateway's own errors).
     */
    static Mono<Void> error(HttpServerResponse response, int status, byte[] body) {
        clearHeaders(response);
        return send(response, status, body);
    }

    /**
     * Drops the headers set so far but the answer's {@code X-Request-Id}, set as the exchange began
     * ({@code RequestId.onAnswer}): every answer the gateway writes itself keeps it.
     */
    static void clearHeaders(HttpServerResponse response) {
        String id = response.responseHeaders().get(RequestId.HEADER);
        response.responseHeaders().clear();
        if (id != null) {
            response.header(RequestId.HEADER, id);
        }
    }

    /** Answers an error with a JSON {@link ErrorBody}, keeping the headers set so far (such as Allow). */
    static Mono<Void> send(HttpServerResponse response, int status, byte[] body) {
        return send(response, status, ErrorBody.CONTENT_TYPE, body);
    }

    /** Answers {@code status} with a whole body of {@code contentType}. */
    static Mono<Void> send(HttpServerResponse response, int status, String contentType, byte[] body) {
        response.status(status).header(HttpHeaderNames.CONTENT_TYPE, contentType);
        return response.sendObject(Unpooled.wrappedBuffer(body)).then();
    }

    /** Answers {@code status} with the headers set so far and no body (a CORS preflight's 204). */
    static Mono<Void> empty(HttpServerResponse response, int status) {
        return response.status(status).send().then();
    }

    /**
     * Ends a response whose status line is already out by closing its connection: no final chunk
     * and no missing Content-Length bytes are ever written, so no client takes a truncated body for
     * a whole one. What was written before is flushed first: the client sees the bytes relayed so
     * far, then the connection end.
     */
    static void abort(Channel channel) {
        channel.attr(ABORTED).set(Boolean.TRUE);
        channel.flush();
        channel.close();
    }
}
