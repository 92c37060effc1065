package dev.sluice.engine.reactive;

import dev.sluice.config.UpstreamConfig;
import dev.sluice.http.GrpcStatus;
import dev.sluice.http.GrpcWeb;
import dev.sluice.http.HeaderRules;
import dev.sluice.http.PseudoHeaders;
import dev.sluice.upstream.UpstreamCall;
import dev.sluice.upstream.UpstreamCall.Action;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.publisher.Mono;
import reactor.netty.http.HttpProtocol;
import reactor.netty.http.client.Http2AllocationStrategy;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServerResponse;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

/**
 * An upstream spoken to over HTTP/2 ({@code protocol: h2c} in clear text, {@code h2} by ALPN over TLS) on Reactor Netty's {@link
 * HttpClient}: a pool per endpoint of at most {@code max-connections} connections, each carrying up to
 * {@code max-streams-per-connection} streams. The request body streams up as the client sends it; the
 * response body streams down under Reactor's demand (so HTTP/2 flow control reaches the upstream), and
 * the upstream's trailers go to the client after it. The core's {@link UpstreamCall} picks the endpoint
 * and hears how the call ended, so breakers and outlier ejection see h2 calls too; a streamed call is
 * not retried.
 */
final class H2Upstream {

    private static final CharSequence STREAM_ID =
            io.netty.handler.codec.http2.HttpConversionUtil.ExtensionHeaderNames.STREAM_ID.text();

    private final Upstream upstream;
    private final HttpClient[] clients; // by endpoint index
    private final ConnectionProvider[] pools;

    /**
     * {@code nativeIo}: the server's transport ({@code server.transport}), so calls stay on its loops;
     * {@code channels}: where each connection is added (the gateway's stop closes them, and waits for
     * their closes, before its loops stop), or null.
     */
    H2Upstream(Upstream upstream, LoopResources loops, boolean nativeIo, io.netty.channel.group.ChannelGroup channels) {
        this.upstream = upstream;
        UpstreamConfig config = upstream.config();
        int count = config.resilience().endpoints().size();
        this.clients = new HttpClient[count];
        this.pools = new ConnectionProvider[count];
        dev.sluice.tls.UpstreamTls tls = config.tls()
                .map(t -> dev.sluice.tls.UpstreamTls.create(t, "upstreams." + config.name() + ".tls"))
                .orElse(null);
        io.netty.handler.ssl.SslContext alpn = tls == null ? null : alpnContext(tls);
        for (int e = 0; e < count; e++) {
            UpstreamConfig endpoint = config.endpoint(e);
            pools[e] = ConnectionProvider.builder("sluice-h2-" + config.name() + "-" + e)
                    .maxConnections(config.maxConnections())
                    .pendingAcquireMaxCount(Math.max(1, config.maxPending()))
                    .pendingAcquireTimeout(config.acquireTimeout())
                    .maxIdleTime(config.idleTimeout())
                    .maxLifeTime(config.maxLifetime().orElse(Duration.ofDays(365)))
                    .allocationStrategy(Http2AllocationStrategy.builder()
                            .maxConnections(config.maxConnections())
                            .maxConcurrentStreams(config.maxStreamsPerConnection())
                            .build())
                    .build();
            HttpClient client = HttpClient.create(pools[e])
                    .runOn(loops, nativeIo)
                    // after Reactor Netty's own handlers: a connection's error ends here, not at the tail's WARN
                    .doOnChannelInit((observer, channel, remote) -> {
                        if (channels != null) {
                            // closed before the loops stop: an io_uring channel whose close was still
                            // under way when its loop stopped logged a rejected task with a stack trace
                            channels.add(channel);
                        }
                        channel.pipeline().addLast(H2ConnectionErrors.NAME, H2ConnectionErrors.INSTANCE);
                    });
            if (tls != null) { // h2 chosen by ALPN, on the core's context and parameters (SNI, verification)
                String host = endpoint.host();
                client = client.protocol(HttpProtocol.H2)
                        .secure(spec -> spec.sslContext(alpn).handlerConfigurator(handler -> {
                            javax.net.ssl.SSLEngine engine = handler.engine();
                            javax.net.ssl.SSLParameters parameters = tls.parameters(host);
                            parameters.setApplicationProtocols(
                                    engine.getSSLParameters().getApplicationProtocols());
                            engine.setSSLParameters(parameters);
                        }));
            } else {
                client = client.protocol(HttpProtocol.H2C);
            }
            clients[e] = client.baseUrl((tls != null ? "https://" : "http://") + endpoint.authority())
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int)
                            Math.min(Integer.MAX_VALUE, config.connectTimeout().toMillis()))
                    .responseTimeout(config.readTimeout());
        }
    }

    /**
     * Proxies the request to {@code uri} and relays the answer; errors are the upstream's failures (for
     * the route's failure path).
     */
    Mono<Void> proxy(
            ClientRequest in,
            HttpServerResponse response,
            String uri,
            HeaderRules rules,
            boolean http2,
            java.util.function.IntConsumer onAnswer) {
        UpstreamCall call = new UpstreamCall(upstream.guard(), in.method, hasBody(in) ? -1 : 0, System::nanoTime);
        return attempt(call, call.next(), in, response, uri, rules, http2, onAnswer);
    }

    /** Whether a body follows the head: a length above 0, or a body framed by its end (chunked, or an h2 stream's). */
    private static boolean hasBody(ClientRequest in) {
        HttpHeaders h = in.request.requestHeaders();
        String length = h.get(HttpHeaderNames.CONTENT_LENGTH);
        return length != null ? !length.equals("0") : h.contains(HttpHeaderNames.TRANSFER_ENCODING);
    }

    /** One try as {@code action} says; a try that failed before its answer goes as the call decides next. */
    private Mono<Void> attempt(
            UpstreamCall call,
            Action action,
            ClientRequest in,
            HttpServerResponse response,
            String uri,
            HeaderRules rules,
            boolean http2,
            java.util.function.IntConsumer onAnswer) {
        if (action instanceof Action.RetryAfter retry) {
            return Mono.delay(Duration.ofNanos(Math.max(0, retry.nanos())))
                    .then(Mono.defer(() -> attempt(call, call.next(), in, response, uri, rules, http2, onAnswer)));
        }
        if (!(action instanceof Action.Send send)) {
            return Mono.error(Failures.notSent(action));
        }
        HttpHeaders headers =
                H2CallHeaders.of(in, rules, upstream, send.attempt().endpoint());
        headers.set(HttpHeaderNames.TE, "trailers");
        GrpcWeb web = GrpcWeb.of(in.request.requestHeaders().get(HttpHeaderNames.CONTENT_TYPE));
        if (web != null) { // translated to a gRPC call (GrpcWeb)
            web.upstreamHead(headers::remove, headers::set);
        }
        boolean takesTrailers = web == null && (http2 || takesTrailers(in));
        AtomicReference<HttpHeaders> trailers = new AtomicReference<>();
        boolean[] answered = {false};
        H2AnswerEnd end = new H2AnswerEnd();
        return clients[send.attempt().endpoint().index()]
                .headers(h -> h.set(headers))
                .doOnRequest(
                        (request, connection) -> connection.channel().pipeline().addFirst(end))
                .request(HttpMethod.valueOf(in.method))
                .uri(uri)
                .send((request, out) -> out.send(web == null ? in.receive().retain() : GrpcWebBytes.request(web, in)))
                .response((head, body) -> {
                    Action after = call.answered(head.status().code());
                    if (after instanceof Action.Send || after instanceof Action.RetryAfter) {
                        // an answer to try again (a body-less call's 503, say): dropped, then the next try
                        return body.then(Mono.<Void>error(new TryAgain(after)));
                    }
                    answered[0] = true;
                    onAnswer.accept(head.status().code()); // the call's event: answered
                    response.status(head.status());
                    HttpHeaders out = response.responseHeaders();
                    out.clear();
                    String connection = head.responseHeaders().get(HttpHeaderNames.CONNECTION);
                    for (Map.Entry<String, String> h : head.responseHeaders()) {
                        if (rules.forwardResponse(h.getKey(), connection)) {
                            out.add(h.getKey(), h.getValue());
                        }
                    }
                    for (Map.Entry<String, String> set : rules.responseSets().entrySet()) {
                        out.set(set.getKey(), set.getValue());
                    }
                    out.remove(STREAM_ID); // the client codec's note of its stream, not the upstream's header
                    if (takesTrailers && !http2) { // HTTP/1.1 carries trailers in the last chunk only
                        out.remove(HttpHeaderNames.CONTENT_LENGTH);
                        response.chunkedTransfer(true);
                    } else if (!http2
                            && (web != null || !out.contains(HttpHeaderNames.CONTENT_LENGTH))
                            && dev.sluice.http.ResponseHeadCheck.chunksUnknownLength(
                                    in.request.version().equals(io.netty.handler.codec.http.HttpVersion.HTTP_1_1),
                                    in.method.equals("HEAD"),
                                    head.status().code())) {
                        // a body of unknown length goes chunked to every HTTP/1.1 client, Connection: close
                        // or not: an answer cut short shows as one (no last chunk), never as an end
                        response.chunkedTransfer(true);
                    }
                    dev.sluice.observe.ExchangeTally tally = in.tally();
                    if (tally != null) { // a trailers-only answer carries its gRPC status in the head
                        tally.grpcStatus(head.responseHeaders().get(GrpcStatus.STATUS_HEADER));
                    }
                    if (web != null) {
                        out.remove(HttpHeaderNames.CONTENT_LENGTH);
                        out.set(HttpHeaderNames.CONTENT_TYPE, web.contentType());
                    }
                    if (head.responseHeaders().contains(GrpcStatus.STATUS_HEADER)) {
                        // trailers-only: the status came in the head, which must end the stream
                        return body.then(response.send().then());
                    }
                    if (web != null) { // messages as they arrive, then the trailers as the last frame
                        return response.send(GrpcWebBytes.response(web, body, end, head.trailerHeaders(), tally))
                                .then();
                    }
                    head.trailerHeaders().subscribe(t -> {
                        trailers.set(t);
                        if (tally != null) {
                            tally.grpcStatus(t.get(GrpcStatus.STATUS_HEADER));
                        }
                    });
                    if (takesTrailers) {
                        response.trailerHeaders(t -> {
                            HttpHeaders got = trailers.get();
                            if (got != null) {
                                for (Map.Entry<String, String> h : got) {
                                    if (!PseudoHeaders.notATrailer(h.getKey())) {
                                        t.add(h.getKey(), h.getValue());
                                    }
                                }
                            }
                        });
                    }
                    return response.send(end.whole(body.retain())).then();
                })
                .then()
                .onErrorResume(error -> {
                    if (error instanceof TryAgain again) {
                        return attempt(call, again.action, in, response, uri, rules, http2, onAnswer);
                    }
                    if (answered[0] || !Failures.isUpstreams(error)) {
                        return Mono.error(error);
                    }
                    Action next = call.failed(Failures.classify(error), false);
                    if (next instanceof Action.Send || next instanceof Action.RetryAfter) {
                        return attempt(
                                call, next, in, response, uri, rules, http2, onAnswer); // nothing of it was answered
                    }
                    return Mono.error(error);
                })
                .doOnCancel(call::abandoned);
    }

    private static boolean takesTrailers(ClientRequest in) { // the core decides (HTTP/1.x here)
        return dev.sluice.http.ClientTrailers.accepted(
                false, in.request.requestHeaders().getAll(HttpHeaderNames.TE));
    }

    /** The signal of an answer the call tries again: no stack, never seen outside this class. */
    private static final class TryAgain extends RuntimeException {
        final transient Action action;

        TryAgain(Action action) {
            super(null, null, false, false);
            this.action = action;
        }
    }

    /** The upstream (its guard, name and authorities), for a transcoded call ({@link TranscodeRelay}). */
    Upstream upstream() {
        return upstream;
    }

    /** The client of one endpoint, for a transcoded call ({@link TranscodeRelay}). */
    HttpClient client(dev.sluice.upstream.Endpoint endpoint) {
        return clients[endpoint.index()];
    }

    /** How long the call waits for its turn when the upstream is paced (0 when it is not). */
    long reserveStart() {
        return upstream.reserveStart();
    }

    /** The core's TLS context offering h2 by ALPN. */
    @SuppressWarnings("deprecation") // JdkSslContext over a JDK SSLContext: the core builds the context
    private static io.netty.handler.ssl.SslContext alpnContext(dev.sluice.tls.UpstreamTls tls) {
        return new io.netty.handler.ssl.JdkSslContext(
                tls.context(),
                true,
                null,
                io.netty.handler.ssl.IdentityCipherSuiteFilter.INSTANCE,
                new io.netty.handler.ssl.ApplicationProtocolConfig(
                        io.netty.handler.ssl.ApplicationProtocolConfig.Protocol.ALPN,
                        io.netty.handler.ssl.ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        io.netty.handler.ssl.ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                        io.netty.handler.ssl.ApplicationProtocolNames.HTTP_2),
                io.netty.handler.ssl.ClientAuth.NONE,
                null,
                false);
    }

    void dispose() {
        for (ConnectionProvider pool : pools) {
            pool.disposeLater().subscribe();
        }
    }
}
