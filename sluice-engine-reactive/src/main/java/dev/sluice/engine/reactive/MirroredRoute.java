package dev.sluice.engine.reactive;

import dev.sluice.config.ProxyTarget;
import dev.sluice.http.HeaderRules;
import dev.sluice.http.RequestFraming;
import dev.sluice.routing.ProxyPath;
import dev.sluice.routing.RouteTable;
import dev.sluice.upstream.Attempt;
import dev.sluice.upstream.Mirror;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2StreamChannel;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.server.HttpServerResponse;

/**
 * A route with a {@code mirror:}: when the core's {@link Mirror} says so, a copy of the request goes
 * to the mirror's upstream, then the route runs as it would without it. The copy's head is made
 * before the route runs; the copy is never waited for, and nothing of its outcome reaches the
 * client. A request with a body gets a {@link Tee} ({@link ClientRequest#receive}): each piece the
 * route reads is copied ({@link Mirror.Body} says whether) and written to the copy's connection,
 * never waited for; a body past {@code max-body}, broken, or not read to its end by the time the
 * route is over, closes the copy's connection before its request ends.
 */
final class MirroredRoute implements GatewayHandler.ReactiveRoute {

    private final Mirror mirror;
    private final GatewayHandler.ReactiveRoute route;
    private final ProxyTarget target;
    private final Upstream upstream;
    private final HeaderRules rules;

    MirroredRoute(
            Mirror mirror,
            GatewayHandler.ReactiveRoute route,
            ProxyTarget target,
            Upstream upstream,
            HeaderRules rules) {
        this.mirror = mirror;
        this.route = route;
        this.target = target;
        this.upstream = upstream;
        this.rules = rules;
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
            if (mirror.decide(body) == Mirror.Decision.COPY) {
                Tee tee = body == 0 ? null : new Tee(mirror.body(), body);
                if (copy(in, match, channel, tee, body) && tee != null) {
                    in.tee(tee);
                    return route.handle(in, response, match, channel).doFinally(signal -> tee.abort());
                }
            }
        }
        return route.handle(in, response, match, channel);
    }

    /** @return whether the copy was started */
    private boolean copy(ClientRequest in, RouteTable.Result.Matched match, Channel channel, Tee tee, long body) {
        Attempt attempt = null;
        try {
            String uri = ProxyPath.target(target, upstream.basePath(), match, in.query(), in.upstreamQuery());
            attempt = upstream.guard().begin(null); // the endpoint; its breaker's permission taken
            if (attempt == null) { // every endpoint's breaker is open: no copy, reported as a proxied call is
                mirror.failed(dev.sluice.http.UpstreamFailure.CIRCUIT_OPEN, 0);
                mirror.ended();
                return false;
            }
            HttpHeaders headers = UpstreamConnection.newHeaders();
            in.copyHeaders(rules, headers);
            in.addForwarding(rules, upstream.authority(attempt.endpoint()), headers);
            if (body > 0) {
                headers.set(HttpHeaderNames.CONTENT_LENGTH, body);
            } else if (body < 0) { // chunked, or an h2 body of unknown length
                headers.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
            }
            Lane lane = upstream.lane(attempt.endpoint(), channel.eventLoop());
            Copy copy = new Copy(attempt, in.request.method(), uri, headers, tee, lane);
            if (tee != null) {
                tee.copy = copy;
            }
            lane.acquire(copy);
            return true;
        } catch (RuntimeException e) { // the route answers the same refusal (a path it cannot make)
            if (attempt != null) {
                attempt.abandoned();
            }
            mirror.ended();
            return false;
        }
    }

    /**
     * The copy's body: each piece the route reads, copied while the core's tally allows, held until
     * the copy's connection is there, then written to it without waiting. At most {@code max-body}
     * bytes are ever copied, so that is all a slow mirror's copy can hold.
     */
    static final class Tee {
        private final Mirror.Body tally;
        private final long length; // the declared length, or negative
        private long copied;
        private Copy copy; // set before the route runs
        private UpstreamConnection target; // null until the copy has its connection
        private java.util.ArrayList<ByteBuf> held = new java.util.ArrayList<>();
        private boolean ended;
        private boolean aborted;

        Tee(Mirror.Body tally, long length) {
            this.tally = tally;
            this.length = length;
        }

        /** The client's body with this tee on it: what the route reads, unchanged. */
        ByteBufFlux tap(ByteBufFlux body) {
            return ByteBufFlux.fromInbound(body.doOnNext(this::offer)
                    .doOnComplete(this::end)
                    .doOnError(error -> abort())
                    .doOnCancel(this::abort));
        }

        private synchronized void offer(ByteBuf piece) {
            int n = piece.readableBytes();
            if (aborted || ended || n == 0) {
                return;
            }
            if (!tally.take(n)) { // past max-body: the copy is aborted
                abort();
                return;
            }
            ByteBuf bytes = piece.copy(); // the route's buffer and its indexes are left as they are
            if (target == null) {
                held.add(bytes);
            } else {
                target.writeBody(new DefaultHttpContent(bytes));
            }
            copied += n;
            if (copied == length) { // the route may stop reading here, before the body's end signal
                end();
            }
        }

        private synchronized void end() {
            if (aborted || ended) {
                return;
            }
            ended = true;
            if (target != null) {
                target.endBody(copy);
            }
        }

        /** Abandons the copy unless its body ended: its connection is closed before the request ends. */
        synchronized void abort() {
            if (aborted || ended) {
                return;
            }
            aborted = true;
            release();
            if (target != null) {
                target.abandon(copy);
                copy.abandoned();
            }
        }

        /** The copy got no connection: what it holds, and what still comes, is dropped. */
        synchronized void noConnection() {
            aborted = true;
            release();
        }

        /** The copy has its connection and has sent its head: held pieces follow, then the rest. */
        private synchronized boolean attach(UpstreamConnection c) {
            if (aborted) {
                return false;
            }
            target = c;
            for (ByteBuf bytes : held) {
                c.writeBody(new DefaultHttpContent(bytes));
            }
            held = null;
            if (ended) {
                c.endBody(copy);
            }
            return true;
        }

        private void release() {
            if (held != null) {
                held.forEach(ByteBuf::release);
                held = null;
            }
        }
    }

    /** One copy in flight: its answer is read to the end and discarded. */
    private final class Copy implements Lane.Acquirer, UpstreamConnection.Exchange {
        private final Attempt attempt;
        private final HttpMethod method;
        private final String uri;
        private final HttpHeaders headers;
        private final Tee tee; // null for a bodiless copy
        private final Lane lane;
        private final long began = System.nanoTime();
        private final AtomicBoolean ended = new AtomicBoolean();
        private volatile UpstreamConnection connection;

        Copy(Attempt attempt, HttpMethod method, String uri, HttpHeaders headers, Tee tee, Lane lane) {
            this.attempt = attempt;
            this.method = method;
            this.uri = uri;
            this.headers = headers;
            this.tee = tee;
            this.lane = lane;
        }

        @Override
        public void acquired(UpstreamConnection c) {
            connection = c;
            if (tee == null) {
                c.send(this, method, uri, headers);
                return;
            }
            synchronized (tee) {
                if (tee.aborted) { // abandoned before it had a connection: nothing was sent on it
                    lane.release(c);
                    abandoned();
                    return;
                }
                c.send(this, new DefaultHttpRequest(HttpVersion.HTTP_1_1, method, uri, headers), true);
                tee.attach(c);
            }
        }

        /** The tee gave the copy up: the attempt counts as abandoned, and the copy is over. */
        void abandoned() {
            if (!ended.get()) {
                attempt.abandoned();
                end();
            }
        }

        @Override
        public void failed(Throwable error) {
            if (tee != null) {
                tee.noConnection();
            }
            onError(error);
        }

        @Override
        public void onHead(HttpResponse head, UpstreamConnection c) {
            int status = head.status().code();
            attempt.answered(status);
            mirror.answered(status, System.nanoTime() - began);
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
            mirror.failed(failure, System.nanoTime() - began);
            end();
        }

        private void end() {
            if (ended.compareAndSet(false, true)) {
                mirror.ended();
            }
        }
    }
}
