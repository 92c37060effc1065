package dev.sluice.engine.reactive;

import dev.sluice.config.ComposeTarget;
import dev.sluice.config.GatewayConfig;
import dev.sluice.config.ProxyTarget;
import dev.sluice.engine.GatewaySnapshot;
import dev.sluice.http.ErrorBody;
import dev.sluice.observe.ExchangeEvent;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.routing.PathTemplate;
import dev.sluice.routing.RouteTable;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.BiFunction;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * The server's one handler, run on the connection's event loop: matches the route and hands the
 * request to its {@link ProxyRoute} or {@link ComposeRoute}; answers 404, 405 and 400 itself, and
 * any failure of its own as an {@link InternalFailure}.
 */
final class GatewayHandler implements BiFunction<HttpServerRequest, HttpServerResponse, Publisher<Void>> {

    /** A route compiled for this engine: a {@link ProxyRoute}'s or a {@link ComposeRoute}'s {@code handle}. */
    @FunctionalInterface
    interface RouteHandler {
        Mono<Void> handle(
                ClientRequest in, HttpServerResponse response, RouteTable.Result.Matched match, Channel channel);
    }

    private final GatewaySnapshot.Holder<RouteHandler> snapshots;
    private final GatewayObserver observer;

    GatewayHandler(GatewayConfig config, Map<String, Upstream> upstreams, GatewayObserver observer) {
        this.observer = observer;
        this.snapshots = new GatewaySnapshot.Holder<>(GatewaySnapshot.compile(config, route -> switch (route.target()) {
            case ProxyTarget proxy -> new ProxyRoute(route, proxy, upstreams.get(proxy.upstream()))::handle;
            case ComposeTarget compose ->
                new ComposeRoute(route, compose, upstreams, config.server().readAhead(), observer)::handle;
        }));
    }

    @Override
    public Publisher<Void> apply(HttpServerRequest request, HttpServerResponse response) {
        ClientRequest in = ClientRequest.of(request);
        HttpHeaders headers = request.requestHeaders();
        GatewaySnapshot<RouteHandler> snapshot = snapshots.current(); // this request's, to its end
        RouteTable.Result result = snapshot.match(in.method, headers.get(HttpHeaderNames.HOST), in.path, headers::get);
        if (!observer.listens()) {
            return answer(snapshot, in, response, result);
        }
        long start = System.nanoTime();
        String route = result instanceof RouteTable.Result.Matched matched
                ? matched.route().id()
                : "";
        return answer(snapshot, in, response, result).doFinally(signal -> {
            Channel channel = channel(in);
            boolean aborted = signal == SignalType.CANCEL
                    || (channel != null && channel.attr(Responses.ABORTED).get() != null);
            observer.exchange(
                    new ExchangeEvent(route, in.method, response.status().code(), aborted, System.nanoTime() - start));
        });
    }

    private Mono<Void> answer(
            GatewaySnapshot<RouteHandler> snapshot,
            ClientRequest in,
            HttpServerResponse response,
            RouteTable.Result result) {
        Mono<Void> answer;
        try {
            answer = switch (result) {
                case RouteTable.Result.Matched matched ->
                    snapshot.handler(matched).handle(in, response, matched, channel(in));
                case RouteTable.Result.MethodNotAllowed notAllowed -> {
                    response.header(HttpHeaderNames.ALLOW, String.join(", ", new TreeSet<>(notAllowed.allowed())));
                    yield Responses.send(response, 405, ErrorBody.methodNotAllowed(in.method, in.path));
                }
                case RouteTable.Result.NotFound notFound ->
                    Responses.error(response, 404, ErrorBody.notFound(in.method, in.path));
                case RouteTable.Result.BadPath bad ->
                    Responses.error(response, 400, ErrorBody.badRequest(bad.reason()));
            };
        } catch (PathTemplate.ExpansionException e) {
            return Responses.error(response, 400, ErrorBody.of(400, "bad_request", e.getMessage()));
        } catch (RuntimeException e) {
            return InternalFailure.answer(in, response, e);
        }
        return answer.onErrorResume(InternalFailure::isInternal, error -> InternalFailure.answer(in, response, error));
    }

    private static Channel channel(ClientRequest in) {
        Channel[] channel = new Channel[1];
        in.request.withConnection(connection -> channel[0] = connection.channel());
        return channel[0];
    }
}
