package dev.sluice.engine.reactive;

import dev.sluice.config.TranscodeConfig;
import dev.sluice.http.BodyLimit;
import dev.sluice.http.GrpcStatus;
import dev.sluice.http.HeaderRules;
import dev.sluice.observe.ExchangeTally;
import dev.sluice.transcode.TranscodeCall;
import dev.sluice.transcode.TranscodeException;
import dev.sluice.upstream.UpstreamCall;
import dev.sluice.upstream.UpstreamCall.Action;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerResponse;

/**
 * A {@code grpc-transcode:} route's exchange over the upstream's h2/h2c client ({@link H2Upstream}),
 * every decision the core's {@link TranscodeCall}: the client's JSON request (read whole, at most
 * {@code max-message}; the route's body limit is the pipeline's) becomes one gRPC message, and each
 * step the call returns for the upstream's head, data and trailers is written and flushed as it comes.
 * The upstream's body is read under the client's demand, so a slow client slows the stream.
 */
final class TranscodeRelay {

    private TranscodeRelay() {}

    /** The signal of a request refused before any call: its whole answer, the core's. */
    private static final class Refused extends RuntimeException {
        final transient TranscodeCall.Step answer;

        Refused(TranscodeCall.Step answer) {
            super(null, null, false, false);
            this.answer = answer;
        }
    }

    /**
     * Relays one transcoded call; errors are the upstream's failures (for the route's failure path),
     * and a call failing after its answer began is an {@link IOException} (the answer is cut short).
     */
    static Mono<Void> relay(
            H2Upstream h2,
            TranscodeConfig config,
            ClientRequest in,
            HttpServerResponse response,
            HeaderRules rules,
            Channel channel,
            long timeoutNanos,
            IntConsumer answered) {
        TranscodeCall call;
        try {
            call = TranscodeCall.open(
                    config, in.method, in.path, in.request.requestHeaders().get(HttpHeaderNames.ACCEPT));
        } catch (TranscodeException e) { // no method here
            return in.receive().then(write(response, rules, TranscodeCall.refused(e)));
        }
        Mono<Void> exchange = body(in, config.maxMessage())
                .flatMap(body -> {
                    byte[] frame;
                    try {
                        frame = call.requestFrame(in.rawQuery, body);
                    } catch (TranscodeException e) { // a request that is not the method's
                        return write(response, rules, TranscodeCall.refused(e));
                    }
                    Mono<Void> sent =
                            Mono.defer(() -> send(h2, call, frame, in, response, rules, answered, timeoutNanos));
                    long wait = h2.reserveStart();
                    return wait > 0 ? LoopTimer.after(channel.eventLoop(), wait).then(sent) : sent;
                })
                .onErrorResume(Refused.class, refused -> write(response, rules, refused.answer));
        if (timeoutNanos > 0) { // the route's timeout, on this request's loop: cancels the call upstream
            exchange = exchange.timeout(
                    LoopTimer.after(channel.eventLoop(), timeoutNanos), Mono.error(Failures.Deadline.INSTANCE));
        }
        return exchange;
    }

    /** The client's JSON body, whole; a body over {@code max-message} is refused (413) as it arrives. */
    private static Mono<byte[]> body(ClientRequest in, int maxMessage) {
        ByteArrayOutputStream whole = new ByteArrayOutputStream();
        return in.receive()
                .doOnNext(piece -> {
                    if (BodyLimit.exceeds(whole.size() + (long) piece.readableBytes(), maxMessage)) {
                        var tooLarge = BodyLimit.rejection(maxMessage);
                        throw new Refused(new TranscodeCall.Step(
                                tooLarge.status(),
                                dev.sluice.http.ErrorBody.CONTENT_TYPE,
                                tooLarge.errorBody(),
                                true,
                                false));
                    }
                    byte[] bytes = new byte[piece.readableBytes()];
                    piece.getBytes(piece.readerIndex(), bytes);
                    whole.writeBytes(bytes);
                })
                .then(Mono.fromSupplier(whole::toByteArray));
    }

    /** The call: one try on the endpoint the core picks (a transcoded call is not retried). */
    private static Mono<Void> send(
            H2Upstream h2,
            TranscodeCall call,
            byte[] frame,
            ClientRequest in,
            HttpServerResponse response,
            HeaderRules rules,
            IntConsumer answered,
            long timeoutNanos) {
        Upstream upstream = h2.upstream();
        UpstreamCall tries = new UpstreamCall(upstream.guard(), "POST", frame.length, System::nanoTime);
        Action action = tries.next();
        if (!(action instanceof Action.Send send)) {
            return Mono.error(Failures.notSent(action));
        }
        HttpHeaders headers =
                H2CallHeaders.of(in, rules, upstream, send.attempt().endpoint());
        for (String name : TranscodeCall.CLIENT_HEADERS_DROPPED) {
            headers.remove(name);
        }
        List<String> callHeaders = TranscodeCall.requestHeaders(timeoutNanos); // the route's timeout as grpc-timeout
        for (int i = 0; i < callHeaders.size(); i += 2) {
            headers.set(callHeaders.get(i), callHeaders.get(i + 1));
        }
        ExchangeTally tally = in.tally();
        boolean[] heard = {false};
        return h2.client(send.attempt().endpoint())
                .headers(h -> h.set(headers))
                .request(HttpMethod.POST)
                .uri(upstream.basePath() + call.grpcPath())
                .send(Mono.just(Unpooled.wrappedBuffer(frame)))
                .response((head, body) -> {
                    heard[0] = true;
                    tries.answered(head.status().code()); // answered: never tried again
                    answered.accept(head.status().code());
                    String status = head.responseHeaders().get(GrpcStatus.STATUS_HEADER);
                    if (tally != null) {
                        tally.grpcStatus(status);
                    }
                    TranscodeCall.Step first = call.head(
                            head.status().code(), status, head.responseHeaders().get(GrpcStatus.MESSAGE_HEADER));
                    Flux<TranscodeCall.Step> steps = Flux.just(first)
                            .concatWith(body.map(piece -> call.data(piece.nioBuffer()))) // copied by the call
                            .concatWith(head.trailerHeaders()
                                    .defaultIfEmpty(EmptyHttpHeaders.INSTANCE)
                                    .map(t -> {
                                        String grpcStatus = t.get(GrpcStatus.STATUS_HEADER);
                                        if (tally != null && grpcStatus != null) {
                                            tally.grpcStatus(grpcStatus);
                                        }
                                        return call.end(grpcStatus, t.get(GrpcStatus.MESSAGE_HEADER));
                                    }))
                            .filter(step -> step.status() != 0 || step.body().length > 0 || step.end() || step.abort())
                            .takeUntil(TranscodeCall.Step::end); // the rest of a failed stream is cancelled
                    return steps.switchOnFirst((signal, all) -> {
                        TranscodeCall.Step start = signal.get();
                        if (start == null) {
                            return all.then();
                        }
                        head(response, rules, start);
                        return response.send(all.map(TranscodeRelay::bytes)).then();
                    });
                })
                .then()
                .doOnError(error -> {
                    if (!heard[0] && Failures.isUpstreams(error)) {
                        tries.failed(Failures.classify(error), false);
                    }
                })
                .doOnCancel(tries::abandoned);
    }

    /** A step's bytes, or the error that cuts the answer short. */
    private static ByteBuf bytes(TranscodeCall.Step step) {
        if (step.abort()) {
            throw new MidAnswer();
        }
        return Unpooled.wrappedBuffer(step.body());
    }

    /** The answer's head from its first step: status, content type, the route's response headers. */
    private static void head(HttpServerResponse response, HeaderRules rules, TranscodeCall.Step step) {
        response.status(step.status()).header(HttpHeaderNames.CONTENT_TYPE, step.contentType());
        for (Map.Entry<String, String> set : rules.responseSets().entrySet()) {
            response.header(set.getKey(), set.getValue());
        }
    }

    /** A whole answer in one step (a refusal). */
    private static Mono<Void> write(HttpServerResponse response, HeaderRules rules, TranscodeCall.Step step) {
        head(response, rules, step);
        return response.sendObject(Unpooled.wrappedBuffer(step.body())).then();
    }

    /** The gRPC call failed after its answer began: an upstream failure (the route's path cuts the answer). */
    private static final class MidAnswer extends java.io.UncheckedIOException {
        MidAnswer() {
            super(new IOException("the gRPC call failed mid-answer"));
        }
    }
}
