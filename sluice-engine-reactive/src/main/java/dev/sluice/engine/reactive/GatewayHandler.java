package dev.sluice.engine.reactive;

import dev.sluice.compose.ReadAheadBudget;
import dev.sluice.config.AnswerTarget;
import dev.sluice.config.ComposeTarget;
import dev.sluice.config.GatewayConfig;
import dev.sluice.config.ProxyTarget;
import dev.sluice.config.ServerLimits;
import dev.sluice.engine.FrontDoor;
import dev.sluice.engine.GatewaySnapshot;
import dev.sluice.http.FailureAnswer;
import dev.sluice.http.RequestFraming;
import dev.sluice.http.RequestId;
import dev.sluice.observe.ExchangeEvent;
import dev.sluice.observe.ExchangeTally;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.observe.RefusedHead;
import dev.sluice.policy.Decision;
import dev.sluice.policy.PolicyChain;
import dev.sluice.policy.PolicyResources;
import dev.sluice.policy.RoutedRequest;
import dev.sluice.routing.RouteTable;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http2.Http2StreamChannel;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.netty.channel.AbortedException;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * The server's one handler, run on the connection's event loop: matches the route and hands the
 * request to its {@link ProxyRoute} or {@link ComposeRoute}; answers 404, 405 and 400 itself, and
 * and any failure as the core's {@link FailureAnswer} maps it.
 */
final class GatewayHandler implements BiFunction<HttpServerRequest, HttpServerResponse, Publisher<Void>> {

    /** A route compiled for this engine: a {@link ProxyRoute}'s or a {@link ComposeRoute}'s {@code handle}. */
    @FunctionalInterface
    interface ReactiveRoute {
        Mono<Void> handle(
                ClientRequest in, HttpServerResponse response, RouteTable.Result.Matched match, Channel channel);
    }

    private final GatewaySnapshot.Holder<ReactiveRoute> snapshots;
    private final GatewayObserver observer;
    private final boolean recordsTraces; // the observer's: a trace the gateway begins is then sampled
    private final boolean idOnAnswer; // server.request-id.response (a restart changes it)
    /** {@code server.limits.websocket-idle-timeout}: how long a silent WebSocket tunnel stays open. */
    private final java.time.Duration websocketIdle;

    /** The policies' Redis connection and rate limits: for the gateway's life, across reloads. */
    private final PolicyResources resources;

    /** {@code server.limits}, for the heads of h2 streams (restart-only: a reload keeps them). */
    private final ServerLimits limits;

    private final ReadAheadBudget budget; // every composition's, across reloads (server.limits cannot change)
    private final dev.sluice.compose.PartCache partCache; // null: max-part-cache 0; across reloads as the budget

    /** @param ticker local rate limits' clock (the engine's start parameter) */
    GatewayHandler(
            GatewayConfig config,
            Map<String, Upstream> upstreams,
            GatewayObserver observer,
            java.util.function.LongSupplier ticker) {
        this.observer = observer;
        this.recordsTraces = observer.recordsTraces();
        this.websocketIdle = config.server().limits().websocketIdleTimeout();
        this.limits = config.server().limits();
        this.idOnAnswer = config.server().responseRequestId();
        this.resources = PolicyResources.of(config, ticker); // local rate limits' time
        this.budget = ReadAheadBudget.of(config.server());
        this.partCache =
                dev.sluice.compose.PartCache.of(config.server().limits()).orElse(null);
        this.snapshots =
                new GatewaySnapshot.Holder<>(compile(config, resources, upstreams, observer, budget, partCache));
    }

    private static GatewaySnapshot<ReactiveRoute> compile(
            GatewayConfig config,
            PolicyResources resources,
            Map<String, Upstream> upstreams,
            GatewayObserver observer,
            ReadAheadBudget budget,
            dev.sluice.compose.PartCache partCache) {
        return GatewaySnapshot.compile(config, resources, route -> switch (route.target()) {
            case ProxyTarget proxy -> // the core decides how backends and a mirror nest
                dev.sluice.upstream.TrafficPlan.<ReactiveRoute>of(
                        route,
                        proxy,
                        observer,
                        p -> new ProxyRoute(route, p, upstreams.get(p.upstream()), observer)::handle,
                        WeightedRoute::new,
                        (mirror, upstream, sides) -> new MirroredRoute(
                                mirror, sides, proxy, upstreams.get(upstream), dev.sluice.http.HeaderRules.of(route)));
            case ComposeTarget compose ->
                new ComposeRoute(route, compose, upstreams, config.server().readAhead(), budget, observer, partCache)
                        ::handle;
            case AnswerTarget answer -> // the core decides the answer; its policies ran first
                (in, response, match, channel) -> render(
                        in,
                        response,
                        FrontDoor.answered(answer, match, in.headers().get(HttpHeaderNames.HOST), in.rawQuery));
        });
    }

    /** The part cache every composition of this gateway shares, or empty. */
    java.util.Optional<dev.sluice.compose.PartCache> partCache() {
        return java.util.Optional.ofNullable(partCache);
    }

    /** The budget every composition of this gateway reads ahead within. */
    ReadAheadBudget readAheadBudget() {
        return budget;
    }

    /** Compiles {@code next} on {@code upstreams} and makes it the snapshot new requests run on. */
    void reload(GatewayConfig next, Map<String, Upstream> upstreams) {
        snapshots.swap(compile(next, resources, upstreams, observer, budget, partCache));
    }

    /** Frees what the route policies hold (a Redis connection): when the gateway stops. */
    void close() {
        resources.close();
    }

    @Override
    public Publisher<Void> apply(HttpServerRequest request, HttpServerResponse response) {
        ClientRequest in = ClientRequest.of(request);
        if (idOnAnswer) {
            response.header(RequestId.HEADER, in.answerWithId());
        }
        if (recordsTraces) {
            in.recordTraces();
        }
        HttpHeaders headers = request.requestHeaders();
        if (channel(in) instanceof Http2StreamChannel) { // an HTTP/1.1 head was checked by RequestHeadCheck
            Optional<RequestFraming.Rejection> refused =
                    RequestHeadCheck.streamRejection(request.method().name(), request.uri(), headers, limits);
            if (refused.isPresent()) {
                RequestFraming.Rejection rejection = refused.get();
                Mono<Void> answer = Responses.error(response, rejection.status(), rejection.errorBody());
                if (!observer.listens()) {
                    return answer;
                }
                long start = System.nanoTime();
                return answer.doFinally(signal -> observer.exchange(RefusedHead.event(
                        rejection.status(),
                        in.method,
                        request.uri(),
                        in.clientAddress(),
                        System.nanoTime() - start,
                        rejection.errorBody().length)));
            }
        }
        FrontDoor.Admission<ReactiveRoute> admission;
        try {
            admission = FrontDoor.admit(snapshots.current(), head(in)); // this request's snapshot, to its end
        } catch (RuntimeException e) { // a failure inside the gateway
            return fail(in, response, e);
        }
        if (!observer.listens()) {
            return answer(in, response, admission);
        }
        long start = System.nanoTime();
        ExchangeTally tally = new ExchangeTally();
        in.tally(tally);
        // The connection is taken now: once the answer completes, Reactor Netty may already have
        // disposed of the request's connection view (on NIO it has, for the gateway's own answers),
        // and its pipeline no longer shows the byte counter.
        Channel channel = channel(in);
        RequestBodyCheck bytes =
                channel != null && channel.pipeline().get(RequestBodyCheck.NAME) instanceof RequestBodyCheck check
                        ? check
                        : null;
        return answer(in, response, admission).doFinally(signal -> {
            boolean aborted = signal == SignalType.CANCEL
                    || (channel != null && channel.attr(Responses.ABORTED).get() != null);
            observer.exchange(ExchangeEvent.of(
                    new ExchangeEvent.Asked(
                            admission.route(), in.method, in.path, in.requestId(), in.clientAddress(), in.trace()),
                    new ExchangeEvent.Answered(
                            response.status().code(),
                            aborted,
                            System.nanoTime() - start,
                            bytes == null ? 0 : bytes.received(),
                            bytes == null ? 0 : bytes.sent()),
                    tally));
        });
    }

    /** What the core's front door reads of the request's head. */
    private static FrontDoor.Head head(ClientRequest in) {
        HttpHeaders headers = in.headers();
        return new FrontDoor.Head(
                in.method, in.request.version().text(), in.path, in.rawQuery, headers::get, headers::getAll);
    }

    private Mono<Void> answer(
            ClientRequest in, HttpServerResponse response, FrontDoor.Admission<ReactiveRoute> admission) {
        Mono<Void> answer;
        try {
            answer = switch (admission) {
                case FrontDoor.Answer<ReactiveRoute> given -> render(in, response, given);
                case FrontDoor.Enter<ReactiveRoute> enter -> enter(in, response, enter);
            };
        } catch (RuntimeException e) { // a path variable missing or unsafe, or a failure inside the gateway
            return fail(in, response, e);
        }
        // the client's connection going away is not answered: it is passed on to Reactor Netty
        return answer.onErrorResume(
                error -> !(error instanceof AbortedException || error instanceof java.io.IOException),
                error -> fail(in, response, error));
    }

    /** Runs the route the request entered: its body limit armed, its compression, its policies. */
    private Mono<Void> enter(ClientRequest in, HttpServerResponse response, FrontDoor.Enter<ReactiveRoute> enter) {
        GatewaySnapshot.Compiled<ReactiveRoute> compiled = enter.compiled();
        RouteTable.Result.Matched matched = enter.match();
        if (!enter.readsBody()) { // a composition: a chunked body it is sent goes unread, as in the blocking engine
            if (in.request.version().majorVersion() == 2) {
                Http2StreamCheck.bodyUnread(channel(in)); // its head waits for no DATA frame
            }
        } else if (compiled.maxBody() != ServerLimits.UNLIMITED) { // counted as it streams upstream
            Channel channel = channel(in);
            if (channel != null && channel.pipeline().get(RequestBodyCheck.NAME) instanceof RequestBodyCheck check) {
                check.limit(compiled.maxBody());
            }
        }
        if (enter.websocket()) {
            in.websocket(websocketIdle);
        }
        if (compiled.compression().isOn()) {
            ResponseCompressor.arm(
                    channel(in),
                    compiled.compression(),
                    compiled.compression()
                            .wanted(
                                    in.request.version().text(),
                                    in.method,
                                    in.headers().get(HttpHeaderNames.ACCEPT_ENCODING)));
        }
        PolicyChain policies = compiled.policies();
        ReactiveRoute handler = compiled.handler();
        return policies.isEmpty()
                ? handler.handle(in, response, matched, channel(in))
                : admitted(policies.admit(routed(policies, in, matched)), in, response, matched, handler);
    }

    /** Writes an answer of the front door's, whole. */
    static Mono<Void> render(ClientRequest in, HttpServerResponse response, FrontDoor.Answer<?> given) {
        if (!given.refusedBy().isEmpty() && in.tally() != null) {
            in.tally().refused(given.refusedBy());
        }
        Responses.clearHeaders(response);
        given.headers().forEach(response::header);
        if (given.status() >= 400 && GrpcAnswers.isGrpc(in)) { // a gRPC client reads grpc-status
            return GrpcAnswers.answer(
                    in,
                    response,
                    given.status(),
                    dev.sluice.http.GrpcStatus.messageOf(given.body(), "refused by the gateway"));
        }
        if (given.closes()) { // its body is never read, so the connection closes after the answer
            response.keepAlive(false);
        }
        return given.contentType() == null
                ? Responses.empty(response, given.status())
                : Responses.send(response, given.status(), given.contentType(), given.body());
    }

    /**
     * Carries out a policy decision: the route runs (its permit released when the response is over,
     * however it ends), a rejection is answered, a pending decision is awaited without blocking the
     * loop (resumed on it) and abandoned when the client goes away first.
     */
    private static Mono<Void> admitted(
            Decision decision,
            ClientRequest in,
            HttpServerResponse response,
            RouteTable.Result.Matched matched,
            ReactiveRoute handler) {
        return switch (decision) {
            case Decision.Proceed proceed -> {
                Mono<Void> run;
                in.edits(proceed.edits());
                if (!proceed.response().isEmpty()
                        && channel(in).pipeline().get(WriteGate.NAME) instanceof WriteGate gate) {
                    gate.editNextHead(proceed.response());
                }
                try {
                    run = handler.handle(in, response, matched, channel(in));
                } catch (RuntimeException e) {
                    proceed.permit().release();
                    throw e;
                }
                yield run.doFinally(signal -> proceed.permit().release());
            }
            case Decision.Reject reject -> render(in, response, FrontDoor.decided(reject, matched));
            case Decision.Answer given -> render(in, response, FrontDoor.decided(given, matched));
            case Decision.Pending pending -> {
                Channel channel = channel(in);
                Mono<Decision> later = Mono.create(sink -> {
                    sink.onCancel(pending::abandon);
                    pending.decision()
                            .whenComplete((d, error) -> channel.eventLoop().execute(() -> {
                                if (error != null) {
                                    sink.error(error);
                                } else {
                                    sink.success(d);
                                }
                            }));
                });
                yield later.flatMap(d -> d instanceof Decision.Pending
                        ? Mono.error(new IllegalStateException("a pending decision decided nothing"))
                        : admitted(d, in, response, matched, handler));
            }
        };
    }

    /** The request as the route's policies see it; its client, resolved through trusted proxies, noted for the log. */
    private static RoutedRequest routed(PolicyChain policies, ClientRequest in, RouteTable.Result.Matched matched) {
        RoutedRequest routed =
                new RoutedRequest(in.method, matched, in.headers()::get, in.rawQuery, in.clientAddress());
        policies.noteClient(in.tally(), routed);
        return routed;
    }

    private static Channel channel(ClientRequest in) {
        Channel[] channel = new Channel[1];
        in.request.withConnection(connection -> channel[0] = connection.channel());
        return channel[0];
    }

    /**
     * Answers a failure as the core's {@link FailureAnswer} maps it (and logs it: at ERROR with the
     * request's id, which the client gets in its body and {@code X-Request-Id}, only when it is
     * inside the gateway), or aborts the connection when the response had begun.
     */
    static Mono<Void> fail(ClientRequest in, HttpServerResponse response, Throwable error) {
        FailureAnswer decided = FailureAnswer.of(error);
        boolean begun = response.hasSentHeaders();
        String id = decided.internal() ? in.requestId() : null; // the one its upstream requests carried
        decided.log(error, id, in.method, in.path, begun);
        if (begun) {
            in.request.withConnection(connection -> Responses.abort(connection.channel()));
            return Mono.empty();
        }
        Responses.clearHeaders(response);
        String shown = in.answerId(decided.internal());
        if (shown != null) {
            response.header(RequestId.HEADER, shown);
        }
        if (GrpcAnswers.isGrpc(in)) { // a gRPC client reads grpc-status, not the HTTP status
            return GrpcAnswers.answer(in, response, decided.status(), decided.message());
        }
        return Responses.send(response, decided.status(), decided.body(id));
    }
}
