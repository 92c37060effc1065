package dev.sluice.engine.reactive;

import dev.sluice.config.ProxyTarget;
import dev.sluice.config.RouteConfig;
import dev.sluice.http.FailureAnswer;
import dev.sluice.http.HeaderRules;
import dev.sluice.http.RequestFraming;
import dev.sluice.http.ResponseHeadCheck;
import dev.sluice.observe.ExchangeTally;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.routing.ProxyPath;
import dev.sluice.routing.RouteTable;
import dev.sluice.upstream.Attempt;
import dev.sluice.upstream.UpstreamCall;
import dev.sluice.upstream.UpstreamCall.Action;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2StreamChannel;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.netty.http.server.HttpServerResponse;

/**
 * A {@code proxy:} route. Both bodies stream: the client's request body is written upstream as it
 * arrives, and the upstream's response buffers are written to the client as they arrive, with
 * backpressure both ways (a slow reader stops the reads on the other side).
 *
 * <pre>
 *   client ──receive()──► BodyWriter ──► UpstreamConnection ──► upstream
 *   client ◄──send(Call)── Call (reads on demand) ◄── UpstreamConnection ◄── upstream
 * </pre>
 */
final class ProxyRoute {

    private final ProxyTarget target;
    private final Upstream upstream;
    private final HeaderRules rules;
    private final long timeoutNanos; // 0 when the route has none
    private final dev.sluice.observe.CallReport report; // the core makes and tells the call's event

    /** @param observer told of the upstream call ({@link GatewayObserver#NONE}: nobody is) */
    ProxyRoute(RouteConfig route, ProxyTarget target, Upstream upstream, GatewayObserver observer) {
        this.report = new dev.sluice.observe.CallReport(route.id(), upstream.name(), observer);
        this.target = target;
        this.upstream = upstream;
        this.rules = HeaderRules.of(route);
        this.timeoutNanos = target.timeout().map(Duration::toNanos).orElse(0L);
    }

    /**
     * @throws dev.sluice.routing.PathTemplate.ExpansionException when the path template lacks
     *     a value (the caller answers 400)
     */
    Mono<Void> handle(ClientRequest in, HttpServerResponse response, RouteTable.Result.Matched match, Channel channel) {
        String uri = upstreamTarget(in, match);
        EventLoop home = channel.eventLoop();
        long began = report.listens() ? System.nanoTime() : 0;
        if (in.websocketIdle() != null) {
            return new WebSocketRelay(report, upstream, rules)
                    .relay(in, response, channel, uri)
                    .onErrorResume(error -> failed(error, in, response, channel, began));
        }
        if (upstream.h2() != null) { // protocol: h2 or h2c
            java.util.function.IntConsumer answered = !report.listens()
                    ? status -> {}
                    : status -> // the answer's head: the upstream call's event, as over HTTP/1.1
                    report.answered(status, System.nanoTime() - began, in.tally());
            Mono<Void> exchange = target.transcode().isPresent() // JSON to a gRPC method (TranscodeCall)
                    ? TranscodeRelay.relay(
                            upstream.h2(),
                            target.transcode().get(),
                            in,
                            response,
                            rules,
                            channel,
                            timeoutNanos,
                            answered)
                    : H2Relay.proxy(upstream.h2(), in, response, uri, rules, channel, timeoutNanos, answered);
            return exchange.onErrorResume(error -> failed(error, in, response, channel, began));
        }
        Mono<Void> exchange = Mono.create(sink -> new Call(in, response, channel, uri, sink, began).start());
        long wait = upstream.reserveStart();
        if (wait > 0) { // the pacing wait, on this request's loop, where the call then starts
            exchange = LoopTimer.after(home, wait).then(exchange);
        }
        if (timeoutNanos > 0) { // the route's timeout, pacing included, fires on this loop too
            exchange = exchange.timeout(LoopTimer.after(home, timeoutNanos), Mono.error(Failures.Deadline.INSTANCE));
        }
        return exchange.onErrorResume(error -> failed(error, in, response, channel, began));
    }

    /**
     * One proxied exchange: it takes a connection from the upstream's {@link Lane}, writes the request
     * head and streams the client's body after it, then relays the answer's head, and its body through
     * a {@link BodyRelay} (which reads the upstream only while the client takes what was read). Its
     * state lives on the client connection's loop (the home loop).
     */
    private final class Call implements Lane.Acquirer, BodyWriter.Owner, BodyRelay.Source {
        private final ClientRequest in;
        private final HttpServerResponse response;
        private final Channel channel;
        private final EventLoop home;
        private final String uri;
        private final MonoSink<Void> sink;
        private long framing; // how the body goes upstream (RequestFraming.upstreamBody), once known
        private final boolean declared; // the client sent a Content-Length
        private BodyWriter peek; // an h2 body's writer, subscribed before its framing was known
        private ByteBuf held; // a small body of declared length, held so that a retry can send it again
        private final BodyRelay relay; // the answer's body, to the client
        private UpstreamConnection connection; // while the exchange has one
        private boolean acquiring; // asked the lane for a connection, none given yet
        private UpstreamCall tries; // decides each try's next step, once the body's framing is known
        private Attempt attempt; // the try in progress, or the last one
        private ScheduledFuture<?> tryTimer; // the try's per-try timeout
        private ScheduledFuture<?> retryTimer; // the backoff before the next try
        private boolean answered; // the upstream's status line arrived: never send this call again
        private boolean stopped;
        private final long began; // when the call began, if an observer listens

        Call(
                ClientRequest in,
                HttpServerResponse response,
                Channel channel,
                String uri,
                MonoSink<Void> sink,
                long began) {
            this.began = began;
            this.in = in;
            this.response = response;
            this.channel = channel;
            this.home = channel.eventLoop();
            this.relay = new BodyRelay(home, this);
            this.uri = uri;
            this.sink = sink;
            HttpHeaders headers = in.headers();
            // On h2, Netty's translation of a stream to HTTP/1.1 objects adds Transfer-Encoding: chunked
            // to a head without END_STREAM or content-length (the client's own would have been refused)
            boolean coded = headers.contains(HttpHeaderNames.TRANSFER_ENCODING);
            boolean stream = channel instanceof Http2StreamChannel;
            String length = headers.get(HttpHeaderNames.CONTENT_LENGTH);
            this.declared = length != null;
            this.framing = RequestFraming.upstreamBody(stream, length, coded, stream && !coded);
        }

        void start() {
            sink.onCancel(() -> onLoop(this::stop));
            if (framing == RequestFraming.AT_FIRST_DATA) { // the first DATA frame, or the end, tells
                peek = new BodyWriter(this, null);
                in.receive().retain().subscribe(peek);
                return;
            }
            tries = new UpstreamCall(upstream.guard(), in.method, framing, System::nanoTime);
            if (tries.holdsBody()) {
                in.receive()
                        .aggregate()
                        .retain()
                        .subscribe(
                                body -> onLoop(() -> {
                                    if (stopped) {
                                        body.release();
                                        return;
                                    }
                                    held = body;
                                    begin();
                                }),
                                error -> onLoop(() -> {
                                    if (!stopped) {
                                        stopped = true;
                                        sink.error(error); // the client's body broke or passed a limit
                                    }
                                }));
                return;
            }
            begin();
        }

        @Override
        public boolean stopped() {
            return stopped;
        }

        @Override
        public void bodyFailed(Throwable error) {
            if (!stopped) {
                stop();
                sink.error(error);
            }
        }

        /** An h2 body's framing, from its first buffer or its end ({@link RequestFraming#firstData}). */
        @Override
        public void framed(long bodyFraming) {
            framing = bodyFraming;
            boolean hasBody = framing != 0;
            if (!hasBody) {
                peek = null; // it has seen the end: nothing to write
            }
            // streamed whatever its length: its first buffer is already on its way
            tries = new UpstreamCall(
                    upstream.guard(), in.method, hasBody ? RequestFraming.CHUNKED : 0, System::nanoTime);
            begin();
        }

        /** Frees what is held for a try not sent yet: a held body, or an h2 body's first buffer. */
        private void releaseHeld() {
            if (held != null) {
                held.release();
                held = null;
            }
            if (peek != null) {
                peek.dropFirst();
            }
        }

        /** A try: the first, or a retry on the endpoint the guard picks. */
        private void begin() {
            retryTimer = null;
            if (!stopped) {
                carry(tries.next(), null);
            }
        }

        /**
         * Carries out the step {@link UpstreamCall} decided ({@link Action.Relay} is {@link #answered}'s).
         *
         * @param error how the try failed, or null (a per-try timeout, every endpoint's breaker open)
         */
        private void carry(Action action, Throwable error) {
            switch (action) {
                case Action.Send send -> {
                    attempt = send.attempt();
                    if (send.timeoutNanos() > 0) {
                        tryTimer = home.schedule(this::tryExpired, send.timeoutNanos(), TimeUnit.NANOSECONDS);
                    }
                    acquire(false);
                }
                case Action.Resend resend -> acquire(true); // a stale connection: the same try, on a fresh one
                case Action.RetryAfter retry -> {
                    cancelTryTimer();
                    UpstreamConnection c = connection;
                    connection = null;
                    if (c == null) { // an answer to try again is dropped unread, with its connection
                        retryAfter(retry.nanos());
                    } else {
                        c.abandonThen(this, () -> onLoop(() -> retryAfter(retry.nanos())));
                    }
                }
                case Action.Fail fail -> {
                    cancelTryTimer();
                    stopped = true;
                    releaseHeld();
                    if (connection != null) {
                        connection.abandon(this);
                        connection = null;
                    }
                    sink.error(error != null ? error : Failures.notSent(fail));
                }
                default -> {} // Ignore: a dropped try's late signal (a Relay is answered()'s)
            }
        }

        /** A dropped try's signals are ignored until the next begins. */
        private boolean between() {
            return !answered && tries != null && tries.attempt() != null && !tries.trying();
        }

        private void acquire(boolean fresh) {
            acquiring = true;
            upstream.lane(attempt.endpoint(), home).acquire(this, fresh);
        }

        /** The try's per-try timeout passed before its answer: it fails, and may be tried again. */
        private void tryExpired() {
            tryTimer = null;
            Action action = tries.expired();
            if (action == Action.Ignore.INSTANCE) {
                return;
            }
            if (acquiring) {
                acquiring = false;
                upstream.lane(attempt.endpoint(), home).cancel(this);
            }
            carry(action, null);
        }

        private void retryAfter(long wait) {
            if (stopped) {
                return;
            }
            if (wait <= 0) {
                begin();
            } else {
                retryTimer = home.schedule(this::begin, wait, TimeUnit.NANOSECONDS);
            }
        }

        private void cancelTryTimer() {
            if (tryTimer != null) {
                tryTimer.cancel(false);
                tryTimer = null;
            }
        }

        private void onLoop(Runnable task) {
            if (home.inEventLoop()) {
                task.run();
            } else {
                home.execute(task);
            }
        }

        @Override
        public void acquired(UpstreamConnection c) {
            onLoop(() -> send(c));
        }

        @Override
        public void failed(Throwable error) {
            onLoop(() -> acquiring = false);
            onError(error);
        }

        /** The request head, then its body as it arrives. */
        private void send(UpstreamConnection c) {
            acquiring = false;
            if (stopped) {
                c.lane.release(c); // never used: fit for the next call
                return;
            }
            connection = c;
            HttpHeaders headers = UpstreamConnection.newHeaders();
            in.copyHeaders(rules, headers);
            in.addForwarding(rules, upstream.authority(attempt.endpoint()), headers);
            HttpMethod method = in.request.method();
            if (declared) {
                headers.set(HttpHeaderNames.CONTENT_LENGTH, framing);
            } else if (framing == RequestFraming.CHUNKED) {
                headers.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
            }
            if (framing == 0) {
                c.send(this, method, uri, headers);
                return;
            }
            if (held != null) { // sent from memory: this try's copy, the held body kept for the next
                headers.remove(HttpHeaderNames.TRANSFER_ENCODING);
                headers.set(HttpHeaderNames.CONTENT_LENGTH, held.readableBytes());
                c.send(this, new DefaultHttpRequest(HttpVersion.HTTP_1_1, method, uri, headers), true);
                c.writeBody(new DefaultHttpContent(held.retainedDuplicate()));
                c.endBody(this);
                return;
            }
            c.send(this, new DefaultHttpRequest(HttpVersion.HTTP_1_1, method, uri, headers), true);
            if (peek != null) {
                peek.attach(c);
            } else {
                in.receive().retain().subscribe(new BodyWriter(this, c));
            }
        }

        /** The status line and headers: on the upstream connection's loop. */
        @Override
        public void onHead(HttpResponse head, UpstreamConnection c) {
            onLoop(() -> answered(head));
        }

        @Override
        public void onContent(ByteBuf content) {
            onLoop(() -> {
                if (stopped || between()) {
                    content.release();
                    return;
                }
                relay.add(content);
            });
        }

        @Override
        public void onEnd() {
            onLoop(() -> {
                if (between()) {
                    return;
                }
                connection = null; // back in its lane, or closed
                relay.end();
            });
        }

        @Override
        public void onError(Throwable error) {
            onLoop(() -> {
                if (stopped || relay.ended() || between()) {
                    return;
                }
                connection = null;
                if (!answered) {
                    carry(tries.failed(Failures.classify(error), false), error);
                    return;
                }
                relay.fail(error);
            });
        }

        /**
         * The status line and headers go back as they came (less hop-by-hop), then the body streams.
         * A body of known length follows its head at once, so the head waits for the first body bytes
         * and leaves with them in one write (Reactor Netty would flush it alone first: a second system
         * call, and a second wake-up of the client, per response). Streamed (chunked) bodies may be
         * long in coming, and their heads go out at once.
         */
        private void answered(HttpResponse head) {
            Action action = tries.answered(head.status().code()); // Ignore: dropped, or stopped
            if (!(action instanceof Action.Relay)) {
                carry(action, null); // an answer to try again (a 503 on the retry list): dropped unread
                return;
            }
            cancelTryTimer();
            answered = true;
            releaseHeld(); // the last try: nothing is sent again
            if (report.listens()) {
                report.answered(head.status().code(), System.nanoTime() - began, in.tally());
            }
            response.status(head.status());
            HttpHeaders from = head.headers();
            HttpHeaders to = response.responseHeaders();
            String connectionHeader = from.get(HeaderRules.CONNECTION);
            // names and values as the decoder made them: no String made of an AsciiString name; the
            // framing is read on the way (no lookup of its own in the head's table afterwards)
            boolean coded = false;
            CharSequence length = null;
            Iterator<Map.Entry<CharSequence, CharSequence>> it = from.iteratorCharSequence();
            while (it.hasNext()) {
                Map.Entry<CharSequence, CharSequence> header = it.next();
                CharSequence name = header.getKey();
                if (rules.forwardResponse(name, connectionHeader)) {
                    to.add(name, header.getValue());
                }
                if (HttpHeaderNames.CONTENT_LENGTH.contentEqualsIgnoreCase(name)) {
                    length = header.getValue();
                } else if (HttpHeaderNames.TRANSFER_ENCODING.contentEqualsIgnoreCase(name)) {
                    coded = true;
                }
            }
            for (Map.Entry<String, String> set : rules.responseSets().entrySet()) {
                to.set(set.getKey(), set.getValue());
            }
            if (channel.pipeline().get(WriteGate.NAME) instanceof WriteGate g) {
                relay.gate(g);
                if (in.request.version().equals(HttpVersion.HTTP_1_0) && !HttpUtil.isContentLengthSet(head)) {
                    response.keepAlive(false); // HTTP/1.0 has no chunked coding: the close ends the body
                    g.endBodyWithClose();
                }
                if (bodyFollows(in.request.method(), head.status().code(), coded, length)) {
                    g.holdHeadForBody();
                }
            }
            response.send(relay).then().subscribe(null, sink::error, sink::success);
        }

        // ---- the upstream side of the answer's body, as its relay asks (home loop) ----

        @Override
        public boolean read() {
            if (connection == null || !channel.isWritable()) {
                return false;
            }
            connection.read();
            return true;
        }

        @Override
        public void cancelled() {
            stop();
        }

        /** The exchange is over for the gateway (cancelled, timed out, or the client went away). */
        private void stop() {
            if (stopped) {
                return;
            }
            stopped = true;
            releaseHeld();
            relay.stop();
            cancelTryTimer();
            if (retryTimer != null) {
                retryTimer.cancel(false);
                retryTimer = null;
            }
            if (tries != null) {
                tries.abandoned(); // nothing if its try had ended
            }
            if (connection != null) {
                connection.abandon(this);
                connection = null;
            }
            if (acquiring) {
                acquiring = false;
                upstream.lane(attempt.endpoint(), home).cancel(this);
            }
        }
    }

    private Mono<Void> failed(
            Throwable error, ClientRequest in, HttpServerResponse response, Channel channel, long began) {
        if (!Failures.isUpstreams(error)) {
            return Mono.error(error); // the gateway's own failure: GatewayHandler logs and answers it
        }
        ExchangeTally tally = in.tally();
        if (tally != null) { // an observer listens
            report.failed(
                    Failures.classify(error),
                    tally.upstreamNanos() >= 0,
                    false, // the client's body's failures are not the upstream's (above)
                    false, // the route's deadline is classified TIMEOUT already
                    System.nanoTime() - began);
        }
        if (response.hasSentHeaders()) {
            Responses.abort(channel);
            return Mono.empty();
        }
        FailureAnswer answer = FailureAnswer.upstream(Failures.classify(error), upstream.name());
        if (GrpcAnswers.isGrpc(in)) { // a gRPC client reads grpc-status, not the HTTP status
            return GrpcAnswers.answer(in, response, answer.status(), answer.message());
        }
        return Responses.error(response, answer.status(), answer.body(null));
    }

    private String upstreamTarget(ClientRequest in, RouteTable.Result.Matched match) {
        return ProxyPath.target(target, upstream.basePath(), match, in.query(), in.upstreamQuery());
    }

    /**
     * Whether body bytes come right after this head: a known, non-zero length, and a body at all.
     *
     * @param coded the head has a Transfer-Encoding
     * @param length its Content-Length, or null
     */
    private static boolean bodyFollows(HttpMethod method, int code, boolean coded, CharSequence length) {
        if (ResponseHeadCheck.bodyless(method.equals(HttpMethod.HEAD), code) || coded) {
            return false;
        }
        return length != null && nonZero(length);
    }

    /**
     * Whether a Content-Length is more than zero, read in place: the core's check ({@code
     * ResponseHeadCheck}, in the lane) passed the head, so it is decimal digits. A {@code toString} and
     * {@code Long.parseLong} of the decoder's value cost 0.6 us per proxied response in a profile.
     */
    private static boolean nonZero(CharSequence length) {
        for (int i = 0, n = length.length(); i < n; i++) {
            char c = length.charAt(i);
            if (c >= '1' && c <= '9') {
                return true;
            }
        }
        return false;
    }
}
