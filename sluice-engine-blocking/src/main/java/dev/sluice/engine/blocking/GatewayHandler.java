package dev.sluice.engine.blocking;

import dev.sluice.compose.ReadAheadBudget;
import dev.sluice.config.AnswerTarget;
import dev.sluice.config.ComposeTarget;
import dev.sluice.config.GatewayConfig;
import dev.sluice.config.ProxyTarget;
import dev.sluice.config.ServerLimits;
import dev.sluice.engine.FrontDoor;
import dev.sluice.engine.GatewaySnapshot;
import dev.sluice.engine.blocking.upstream.UpstreamClient;
import dev.sluice.http.BodyLimit;
import dev.sluice.http.ErrorBody;
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
import dev.sluice.policy.UpstreamEdits;
import dev.sluice.routing.RouteTable;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The one Jetty handler: matches the route and runs it, blocking, on the request's thread (a
 * virtual thread or a pool thread, by mode). Errors become JSON bodies while nothing is committed
 * and an aborted connection after. A failure of the gateway itself (a bug: no upstream, client or
 * route error) is logged with the request's id, and the client gets the id, never the exception.
 */
final class GatewayHandler extends Handler.Abstract {

    private final GatewaySnapshot.Holder<BlockingRoute> snapshots;
    private final GatewayObserver observer;
    private final boolean recordsTraces; // the observer's: a trace the gateway begins is then sampled
    private final boolean idOnAnswer; // server.request-id.response (a restart changes it)
    private final ServerLimits limits;

    private final ExecutorService fanout;
    private final ScheduledExecutorService timer;
    private final RingPool rings = new RingPool(16L << 20);
    private final ReadAheadBudget budget; // every composition's rings, across reloads (server.limits cannot change)
    private final dev.sluice.compose.PartCache partCache; // null: max-part-cache 0; across reloads as the budget
    /**
     * The server's buffers (its connector's too): asked once, not per request through {@code
     * request.getComponents()}, which takes the request's channel lock.
     */
    private final ByteBufferPool buffers;
    /** The policies' Redis connection and rate limits: for the gateway's life, across reloads. */
    private final PolicyResources resources;
    /** Looks at HTTP/1.1 connections whose request waits, for a client that resets its connection. */
    private final Hangups hangups = new Hangups();

    GatewayHandler(
            GatewayConfig config,
            Map<String, UpstreamClient> clients,
            ExecutorService fanout,
            ScheduledExecutorService timer,
            GatewayObserver observer,
            ByteBufferPool buffers,
            java.util.function.LongSupplier ticker) {
        super(InvocationType.BLOCKING);
        this.buffers = buffers;
        this.observer = observer;
        this.recordsTraces = observer.recordsTraces();
        this.idOnAnswer = config.server().responseRequestId();
        this.limits = config.server().limits();
        this.fanout = fanout;
        this.timer = timer;
        this.resources = PolicyResources.of(config, ticker); // local rate limits' time
        this.budget = ReadAheadBudget.of(config.server());
        this.partCache =
                dev.sluice.compose.PartCache.of(config.server().limits()).orElse(null);
        this.snapshots = new GatewaySnapshot.Holder<>(compile(config, clients));
    }

    private GatewaySnapshot<BlockingRoute> compile(GatewayConfig config, Map<String, UpstreamClient> clients) {
        return GatewaySnapshot.compile(config, resources, route -> switch (route.target()) {
            case ProxyTarget proxy -> // the core decides how backends and a mirror nest
                dev.sluice.upstream.TrafficPlan.<BlockingRoute>of(
                        route,
                        proxy,
                        observer,
                        p -> new ProxyRoute(
                                route,
                                p,
                                clients.get(p.upstream()),
                                timer,
                                BodyLimit.of(route, config.server().limits()),
                                observer,
                                buffers),
                        WeightedRoute::new,
                        (mirror, upstream, sides) -> new MirroredRoute(
                                mirror, sides, proxy, clients.get(upstream), dev.sluice.http.HeaderRules.of(route)));
            case ComposeTarget compose ->
                new ComposeRoute(
                        route,
                        compose,
                        clients,
                        fanout,
                        config.server().readAhead(),
                        rings,
                        budget,
                        observer,
                        buffers,
                        timer,
                        partCache);
            case AnswerTarget answer -> // the core decides the answer; its policies ran first
                (request, response, match, edits) -> render(
                        request,
                        response,
                        FrontDoor.answered(
                                answer,
                                match,
                                request.getHeaders().get(HttpHeader.HOST),
                                request.getHttpURI().getQuery()));
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

    /** Compiles {@code next} on {@code clients} and makes it the snapshot new requests run on. */
    void reload(GatewayConfig next, Map<String, UpstreamClient> clients) {
        snapshots.swap(compile(next, clients));
    }

    /** Frees what the handler holds for the gateway's life (the policies' Redis connection, its hangup watcher): when the gateway stops. */
    void closeResources() {
        hangups.close();
        resources.close();
    }

    @Override
    public boolean handle(Request request, Response response, Callback given) {
        Requests.Exchange exchange = new Requests.Exchange(request);
        Callback callback = departure(exchange, given);
        if (idOnAnswer) {
            response.getHeaders().put(RequestId.HEADER, Requests.answerWithId(exchange));
        }
        if (recordsTraces) {
            Requests.beginTrace(exchange, true);
        }
        try {
            return observed(exchange, response, callback);
        } finally {
            HeadTimedConnection.ended(request); // the connection's next head is timed from its first byte
        }
    }

    /**
     * Notes the exchange's client, which may leave before its answer ({@link ClientDeparture}): Jetty
     * tells an h2 stream's reset or a lost connection; an HTTP/1.x connection, which Jetty does not
     * read while its request is handled, is watched by {@link #hangups}. Returns the callback that
     * ends the watch before the connection goes back to Jetty.
     */
    private Callback departure(Requests.Exchange exchange, Callback callback) {
        ClientDeparture departure = new ClientDeparture(exchange.getConnectionMetaData());
        Requests.departure(exchange, departure);
        if (departure.channel() != null) {
            hangups.watch(departure);
        } else { // HTTP/2: Jetty reads on, and fails the request when its stream or connection is reset
            exchange.addFailureListener(
                    failure -> { // an idle timeout is not the client leaving: it may answer on
                        if (!(failure instanceof java.util.concurrent.TimeoutException)) {
                            departure.leave();
                        }
                    });
        }
        return departure.ending(callback);
    }

    private boolean observed(Request request, Response response, Callback callback) {
        if (!observer.listens()) {
            handle(request, response, callback, null);
            return true; // always handled: answered, or aborted
        }
        long start = System.nanoTime();
        String[] route = {""};
        ExchangeTally tally = new ExchangeTally();
        Requests.tally(request, tally);
        boolean aborted = handle(request, response, callback, route);
        if (route[0] == null) { // refused before routing: reported once its answer is written
            return true;
        }
        observer.exchange(ExchangeEvent.of(
                new ExchangeEvent.Asked(
                        route[0],
                        request.getMethod(),
                        request.getHttpURI().getPath(),
                        Requests.requestId(request),
                        Request.getRemoteAddr(request),
                        Requests.trace(request)),
                new ExchangeEvent.Answered(
                        response.getStatus(),
                        aborted,
                        System.nanoTime() - start,
                        Request.getContentBytesRead(request),
                        Response.getContentBytesWritten(response)),
                tally));
        return true;
    }

    /**
     * Answers the request (always: returns after the response was written, failed or aborted).
     *
     * @param route where to note the matched route's id, or null when nobody listens
     * @return whether the response was aborted after it began
     */
    private boolean handle(Request request, Response response, Callback callback, String[] route) {
        // what failures are answered on: with the policies' response edits, once admitted
        Response[] answer = {response};
        try {
            if (!HeadTimedConnection.began(request)) { // too late: its head timed out and was answered 408
                Requests.seen(request);
                callback.failed(new java.util.concurrent.TimeoutException("request head timed out"));
                if (route != null) {
                    route[0] = null;
                }
                return true;
            }
            Optional<RequestFraming.Rejection> rejection =
                    request.getConnectionMetaData().getHttpVersion() == HttpVersion.HTTP_2
                            ? RequestFraming.checkStream(head(request))
                            : RequestFraming.check(head(request));
            if (rejection.isEmpty()) {
                rejection = RequestFraming.checkSize(
                        request.getHttpURI().getPathQuery().length(), // not null: CONNECT was refused
                        request.getHeaders().size(),
                        limits);
            }
            if (rejection.isPresent()) {
                Callback answered = callback;
                if (route != null) {
                    route[0] = null; // not routed: reported here, once the answer is written
                    answered = reported(observer, request, callback, rejection.get());
                }
                reject(response, answered, rejection.get());
                return false;
            }
            GatewaySnapshot<BlockingRoute> snapshot = snapshots.current(); // this request's, to its end
            FrontDoor.Admission<BlockingRoute> admission = FrontDoor.admit(snapshot, frontDoorHead(request));
            if (route != null) {
                route[0] = admission.route();
            }
            switch (admission) {
                case FrontDoor.Answer<BlockingRoute> given -> render(request, response, given);
                case FrontDoor.Enter<BlockingRoute> enter -> enter(request, response, enter, answer);
            }
            callback.succeeded();
            return false;
        } catch (Throwable failure) {
            return fail(request, answer[0], callback, failure);
        }
    }

    /**
     * Runs the route the request entered, through its policies and compression.
     *
     * @param answer where to note the response a failure is answered on: with the policies' response
     *     edits, once admitted
     */
    private void enter(Request request, Response response, FrontDoor.Enter<BlockingRoute> enter, Response[] answer)
            throws Exception {
        GatewaySnapshot.Compiled<BlockingRoute> compiled = enter.compiled();
        RouteTable.Result.Matched matched = enter.match();
        if (enter.websocket()) { // marked for WebSocketRelay, with the tunnel's idle timeout
            request.setAttribute(WebSocketRelay.REQUESTED, limits.websocketIdleTimeout());
        }
        ResponseCompressor compressed = compiled.compression().isOn()
                ? new ResponseCompressor(request, response, compiled.compression())
                : null; // no route without the filter pays for it
        Response routed = compressed == null ? response : compressed;
        try {
            if (compiled.policies().isEmpty()) {
                compiled.handler().handle(request, routed, matched, UpstreamEdits.NONE);
                return;
            }
            Decision decision = decide(compiled.policies(), request, matched);
            if (decision instanceof Decision.Proceed proceed) {
                Response edited = routed;
                if (!proceed.response().isEmpty()) {
                    edited = new EditedResponse(request, routed, proceed.response());
                    answer[0] = compressed == null ? edited : new EditedResponse(request, response, proceed.response());
                }
                try {
                    compiled.handler().handle(request, edited, matched, proceed.edits());
                } finally {
                    proceed.permit().release();
                }
            } else {
                FrontDoor.Answer<BlockingRoute> given = FrontDoor.decided(decision, matched);
                if (given == null) {
                    throw new IllegalStateException("a pending decision decided nothing");
                }
                render(request, response, given);
            }
        } finally {
            if (compressed != null) {
                compressed.close();
            }
        }
    }

    /**
     * What the route's policies decide about the request: a pending decision is waited for here
     * (this engine's requests have threads of their own: a virtual thread parks). The caller runs
     * the route of a request that proceeds, releasing its permit when the response is over, and
     * answers the others.
     */
    private static Decision decide(PolicyChain policies, Request request, RouteTable.Result.Matched matched)
            throws InterruptedException {
        RoutedRequest routed = new RoutedRequest(
                request.getMethod(),
                matched,
                request.getHeaders()::get,
                request.getHttpURI().getQuery(),
                Request.getRemoteAddr(request));
        policies.noteClient(Requests.tally(request), routed);
        Decision decision = policies.admit(routed);
        if (decision instanceof Decision.Pending pending) {
            try {
                decision = pending.decision().toCompletableFuture().get();
            } catch (InterruptedException e) {
                pending.abandon();
                throw e;
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException("a policy failed to decide", e.getCause());
            }
        }
        return decision;
    }

    /** What the core's front door reads of the request's head. */
    private static FrontDoor.Head frontDoorHead(Request request) {
        HttpFields headers = request.getHeaders();
        return new FrontDoor.Head(
                request.getMethod(),
                request.getConnectionMetaData().getHttpVersion().asString(),
                request.getHttpURI().getPath(), // raw: RouteTable normalises it
                request.getHttpURI().getQuery(), // raw, or null
                headers::get,
                headers::getValuesList);
    }

    /**
     * What Jetty's parser left of the head, for the core's framing rules (Jetty enforces some itself).
     * The target is its path and query with the fragment Jetty took off put back; an absolute form's
     * scheme and authority are not there (Jetty completes every request's URI with them, and refuses
     * an authority that is not the Host's itself), and CONNECT's authority form has neither (the core
     * refuses CONNECT by its method).
     */
    private static RequestFraming.Head head(Request request) {
        HttpFields headers = request.getHeaders();
        org.eclipse.jetty.http.HttpURI uri = request.getHttpURI();
        String pathQuery = uri.getPathQuery() == null ? "" : uri.getPathQuery();
        return new RequestFraming.Head(
                request.getConnectionMetaData().getHttpVersion().asString(),
                request.getMethod(),
                uri.getFragment() == null ? pathQuery : pathQuery + '#' + uri.getFragment(),
                headers.getValuesList(HttpHeader.HOST),
                headers.getValuesList(HttpHeader.TRANSFER_ENCODING),
                headers.getValuesList(HttpHeader.CONTENT_LENGTH),
                headers.contains(HttpHeader.EXPECT) ? headers.getValuesList(HttpHeader.EXPECT) : java.util.List.of());
    }

    /**
     * {@code callback}, which first reports the head's refusal ({@link RefusedHead}) once its answer
     * is written or has failed: only when an observer listens.
     */
    private static Callback reported(
            GatewayObserver observer, Request request, Callback callback, RequestFraming.Rejection rejection) {
        long start = System.nanoTime();
        Runnable report = () -> observer.exchange(RefusedHead.event(
                rejection.status(),
                request.getMethod(),
                request.getHttpURI().getPathQuery(),
                Request.getRemoteAddr(request),
                System.nanoTime() - start,
                rejection.errorBody().length));
        return Callback.from(report, callback); // reported before the connection closes
    }

    /** Answers a refused head and closes: nothing of its body is read, so nothing after it is either. */
    private static void reject(Response response, Callback callback, RequestFraming.Rejection rejection) {
        response.setStatus(rejection.status());
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, ErrorBody.CONTENT_TYPE);
        response.getHeaders().put(HttpHeader.CONNECTION, "close");
        response.write(true, ByteBuffer.wrap(rejection.errorBody()), callback);
    }

    /**
     * Answers a failure as the core's {@link FailureAnswer} maps it (and logs it: at ERROR with the
     * request's id only when it is inside the gateway), or aborts a response that already began;
     * returns whether it aborted.
     */
    private static boolean fail(Request request, Response response, Callback callback, Throwable failure) {
        if (Requests.departure(request).left()) { // nobody to answer, and nothing to log: the client left
            Requests.seen(request);
            // quiet: Jetty would log a failure it tries to answer with its stack trace, at WARN
            callback.failed(new org.eclipse.jetty.io.QuietException.Exception("the client left", failure));
            return true;
        }
        FailureAnswer answer = FailureAnswer.of(failure);
        String id = answer.internal() ? Requests.requestId(request) : null; // the one its upstream requests carried
        answer.log(failure, id, request.getMethod(), request.getHttpURI().getPath(), response.isCommitted());
        if (response.isCommitted()) {
            Requests.seen(request);
            callback.failed(failure); // aborts the connection: the client sees no clean end
            return true;
        }
        response.reset();
        if (GrpcAnswers.isGrpc(request)) { // a gRPC client reads grpc-status, not the HTTP status
            GrpcAnswers.answer(request, response, answer.status(), answer.message(), callback);
            return false;
        }
        response.setStatus(answer.status());
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, ErrorBody.CONTENT_TYPE);
        String shown = Requests.answerId(request, answer.internal());
        if (shown != null) {
            response.getHeaders().put(RequestId.HEADER, shown);
        }
        if (failure instanceof GatewayError e && e.closes()) {
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
        }
        response.write(true, ByteBuffer.wrap(answer.body(id)), callback);
        return false;
    }

    /** Writes an answer of the front door's, whole, and ends the exchange. */
    static void render(Request request, Response response, FrontDoor.Answer<?> answer) throws java.io.IOException {
        if (!answer.refusedBy().isEmpty() && Requests.tally(request) instanceof ExchangeTally tally) {
            tally.refused(answer.refusedBy());
        }
        HttpFields.Mutable fields = response.getHeaders();
        answer.headers().forEach(fields::put);
        if (answer.status() >= 400 && GrpcAnswers.isGrpc(request)) { // a gRPC client reads grpc-status
            String message = dev.sluice.http.GrpcStatus.messageOf(answer.body(), "refused by the gateway");
            try (org.eclipse.jetty.util.Blocker.Callback done = org.eclipse.jetty.util.Blocker.callback()) {
                GrpcAnswers.answer(request, response, answer.status(), message, done);
                done.block();
            }
            return;
        }
        response.setStatus(answer.status());
        if (answer.contentType() != null) {
            fields.put(HttpHeader.CONTENT_TYPE, answer.contentType());
        }
        if (answer.closes()) { // its body is never read, so nothing after it is either
            fields.put(HttpHeader.CONNECTION, "close");
        }
        ClientOutput.send(response, true, ByteBuffer.wrap(answer.body()));
    }
}
