package dev.sluice.engine.reactive;

import dev.sluice.config.ProxyTarget;
import dev.sluice.http.HeaderRules;
import dev.sluice.http.RequestFraming;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.observe.UpstreamEvent;
import dev.sluice.observe.UpstreamOutcome;
import dev.sluice.routing.ProxyPath;
import dev.sluice.routing.RouteTable;
import dev.sluice.upstream.Attempt;
import dev.sluice.upstream.Mirror;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http2.Http2StreamChannel;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerResponse;

/**
 * A route with a {@code mirror:}: when the core's {@link Mirror} says so, a bodiless copy of the
 * request's head goes to the mirror's upstream, then the route runs as it would without it. The
 * copy's head is made before the route runs; the copy is never waited for, and nothing of its
 * outcome reaches the client.
 */
final class MirroredRoute implements GatewayHandler.ReactiveRoute {

    private final Mirror mirror;
    private final GatewayHandler.ReactiveRoute route;
    private final ProxyTarget target;
    private final Upstream upstream;
    private final HeaderRules rules;
    private final String id;
    private final GatewayObserver observer;

    MirroredRoute(
            Mirror mirror,
            GatewayHandler.ReactiveRoute route,
            ProxyTarget target,
            Upstream upstream,
            HeaderRules rules,
            String id,
            GatewayObserver observer) {
        this.mirror = mirror;
        this.route = route;
        this.target = target;
        this.upstream = upstream;
        this.rules = rules;
        this.id = id;
        this.observer = observer;
    }

    @Override
    public Mono<Void> handle(
            ClientRequest in, HttpServerResponse response, RouteTable.Result.Matched match, Channel channel) {
        if (in.websocketIdle() == null) {
            HttpHeaders headers = in.headers();
            boolean coded = headers.contains(HttpHeaderNames.TRANSFER_ENCODING); // on h2: Netty's, for a body
            boolean stream = channel instanceof Http2StreamChannel;
            long body = RequestFraming.upstreamBody(
                    stream, headers.get(HttpHeaderNames.CONTENT_LENGTH), coded, stream && !coded);
            if (mirror.decide(body != 0) == Mirror.Decision.COPY) {
                copy(in, match, channel);
            }
        }
        return route.handle(in, response, match, channel);
    }

    private void copy(ClientRequest in, RouteTable.Result.Matched match, Channel channel) {
        Attempt attempt = null;
        try {
            String uri = ProxyPath.target(target, upstream.basePath(), match, in.query(), in.upstreamQuery());
            attempt = upstream.guard().begin(null); // the endpoint; its breaker's permission taken
            if (attempt == null) { // every endpoint's breaker is open: no copy
                mirror.ended();
                return;
            }
            HttpHeaders headers = UpstreamConnection.newHeaders();
            in.copyHeaders(rules, headers);
            in.addForwarding(rules, upstream.authority(attempt.endpoint()), headers);
            Copy copy = new Copy(attempt, in.request.method(), uri, headers);
            upstream.lane(attempt.endpoint(), channel.eventLoop()).acquire(copy);
        } catch (RuntimeException e) { // the route answers the same refusal (a path it cannot make)
            if (attempt != null) {
                attempt.abandoned();
            }
            mirror.ended();
        }
    }

    /** One copy in flight: its answer is read to the end and discarded. */
    private final class Copy implements Lane.Acquirer, UpstreamConnection.Exchange {
        private final Attempt attempt;
        private final HttpMethod method;
        private final String uri;
        private final HttpHeaders headers;
        private final long began = System.nanoTime();
        private final AtomicBoolean ended = new AtomicBoolean();
        private volatile UpstreamConnection connection;

        Copy(Attempt attempt, HttpMethod method, String uri, HttpHeaders headers) {
            this.attempt = attempt;
            this.method = method;
            this.uri = uri;
            this.headers = headers;
        }

        @Override
        public void acquired(UpstreamConnection c) {
            connection = c;
            c.send(this, method, uri, headers);
        }

        @Override
        public void failed(Throwable error) {
            onError(error);
        }

        @Override
        public void onHead(HttpResponse head, UpstreamConnection c) {
            int status = head.status().code();
            attempt.answered(status);
            if (observer.listens()) {
                observer.upstream(new UpstreamEvent(
                        id, upstream.name(), UpstreamOutcome.of(status), status, System.nanoTime() - began));
            }
            connection = c;
            c.read();
        }

        @Override
        public void onContent(ByteBuf content) {
            content.release();
            UpstreamConnection c = connection;
            if (c != null) {
                c.read();
            }
        }

        @Override
        public void onEnd() {
            end();
        }

        @Override
        public void onError(Throwable error) {
            if (ended.get()) {
                return;
            }
            dev.sluice.http.UpstreamFailure failure = Failures.classify(error);
            attempt.failed(failure);
            if (observer.listens()) {
                observer.upstream(new UpstreamEvent(
                        id, upstream.name(), UpstreamOutcome.of(failure), 0, System.nanoTime() - began));
            }
            end();
        }

        private void end() {
            if (ended.compareAndSet(false, true)) {
                mirror.ended();
            }
        }
    }
}
