package dev.sluice.engine.reactive;

import dev.sluice.http.FailureAnswer;
import dev.sluice.http.RequestId;
import java.io.IOException;
import reactor.core.publisher.Mono;
import reactor.netty.channel.AbortedException;
import reactor.netty.http.server.HttpServerResponse;

/**
 * A request that failed inside the gateway (a bug: not the upstream's, the client's or the
 * route's doing). It is logged at ERROR with the request's id; the client gets a 500 {@code
 * internal_error} carrying the id (body and {@code X-Request-Id}), never the exception's text, or an
 * aborted connection when the response had begun.
 */
final class InternalFailure {

    private InternalFailure() {}

    /**
     * Whether {@link #answer} answers {@code error}; the client's connection going away is not
     * answered (it is passed on to Reactor Netty, as before).
     */
    static boolean isAnswered(Throwable error) {
        return !(error instanceof AbortedException || error instanceof IOException);
    }

    /**
     * Answers the failure as the core's {@link FailureAnswer} says: a failure inside the gateway is
     * logged at ERROR and answered 500 with the request's id (the client's own sane {@code
     * X-Request-Id} is kept); anything else the gateway decided (a 4xx) is answered and never an ERROR.
     */
    static Mono<Void> answer(ClientRequest in, HttpServerResponse response, Throwable error) {
        FailureAnswer decided = FailureAnswer.of(error);
        boolean begun = response.hasSentHeaders();
        String id = decided.internal() ? in.requestId() : null; // the one its upstream requests carried
        decided.log(error, id, in.method, in.path, begun);
        if (begun) {
            in.request.withConnection(connection -> Responses.abort(connection.channel()));
            return Mono.empty();
        }
        response.responseHeaders().clear();
        if (id != null) {
            response.header(RequestId.HEADER, id);
        }
        return Responses.send(response, decided.status(), decided.body(id));
    }
}
