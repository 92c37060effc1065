package dev.sluice.engine.reactive;

import dev.sluice.http.GrpcStatus;
import dev.sluice.http.HeaderRules;
import io.netty.channel.Channel;
import java.time.Duration;
import java.util.Optional;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerResponse;

/**
 * A proxy route's exchange with an h2c upstream ({@link H2Upstream}), under the shorter of the route's
 * timeout and a gRPC call's {@code grpc-timeout} ({@link GrpcStatus#deadline}).
 */
final class H2Relay {

    private H2Relay() {}

    static Mono<Void> proxy(
            H2Upstream h2,
            ClientRequest in,
            HttpServerResponse response,
            String uri,
            HeaderRules rules,
            Channel channel,
            long routeTimeoutNanos,
            java.util.function.IntConsumer answered) {
        Optional<Duration> route =
                routeTimeoutNanos > 0 ? Optional.of(Duration.ofNanos(routeTimeoutNanos)) : Optional.empty();
        Optional<Duration> deadline = GrpcAnswers.isGrpc(in)
                ? GrpcStatus.deadline(route, in.request.requestHeaders().get(GrpcStatus.TIMEOUT_HEADER))
                : route;
        Mono<Void> exchange = Mono.defer(() -> h2.proxy(
                in,
                response,
                uri,
                rules,
                channel instanceof io.netty.handler.codec.http2.Http2StreamChannel,
                answered));
        long wait = h2.reserveStart();
        if (wait > 0) { // pace: the wait on this request's loop, inside the deadline as over HTTP/1.1
            exchange = LoopTimer.after(channel.eventLoop(), wait).then(exchange);
        }
        if (deadline.isPresent()) { // fires on this request's loop
            exchange = exchange.timeout(
                    LoopTimer.after(channel.eventLoop(), deadline.get().toNanos()),
                    Mono.error(Failures.Deadline.INSTANCE));
        }
        return exchange;
    }
}
