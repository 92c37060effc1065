package dev.sluice.engine.reactive;

import dev.sluice.config.ComposeTarget;
import dev.sluice.config.GatewayConfig;
import dev.sluice.config.ProxyTarget;
import dev.sluice.config.RouteConfig;
import dev.sluice.http.ErrorBody;
import dev.sluice.observe.ExchangeEvent;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.routing.PathTemplate;
import dev.sluice.routing.RouteTable;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.IdentityHashMap;
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

    private final RouteTable table;
    private final Map<RouteConfig, ProxyRoute> proxies = new IdentityHashMap<>();
    private final Map<RouteConfig, ComposeRoute> compositions = new IdentityHashMap<>();
    private final GatewayObserver observer;

    GatewayHandler(GatewayConfig config, Map<String, Upstream> upstreams, GatewayObserver observer) {
        this.table = new RouteTable(config.routes());
        this.observer = observer;
        for (RouteConfig route : config.routes()) {
            switch (route.target()) {
                case ProxyTarget proxy ->
                    proxies.put(route, new ProxyRoute(route, proxy, upstreams.get(proxy.upstream())));
                case ComposeTarget compose ->
                    compositions.put(
                            route,
                            new ComposeRoute(
                                    route, compose, upstreams, config.server().readAhead(), observer));
            }
        }
    }

    @Override
    public Publisher<Void> apply(HttpServerRequest request, HttpServerResponse response) {
        ClientRequest in = ClientRequest.of(request);
        HttpHeaders headers = request.requestHeaders();
        RouteTable.Result result = table.match(in.method, headers.get(HttpHeaderNames.HOST), in.path, headers::get);
        if (!observer.listens()) {
            return answer(in, response, result);
        }
        long start = System.nanoTime();
        String route = result instanceof RouteTable.Result.Matched matched
                ? matched.route().id()
                : "";
        return answer(in, response, result).doFinally(signal -> {
            Channel channel = channel(in);
            boolean aborted = signal == SignalType.CANCEL
                    || (channel != null && channel.attr(Responses.ABORTED).get() != null);
            observer.exchange(
                    new ExchangeEvent(route, in.method, response.status().code(), aborted, System.nanoTime() - start));
        });
    }

    private Mono<Void> answer(ClientRequest in, HttpServerResponse response, RouteTable.Result result) {
        Mono<Void> answer;
        try {
            answer = switch (result) {
                case RouteTable.Result.Matched matched -> route(in, response, matched);
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

    private Mono<Void> route(ClientRequest in, HttpServerResponse response, RouteTable.Result.Matched matched) {
        Channel channel = channel(in);
        ProxyRoute proxy = proxies.get(matched.route());
        if (proxy != null) {
            return proxy.handle(in, response, matched, channel);
        }
        return compositions.get(matched.route()).handle(in, response, matched, channel);
    }

    private static Channel channel(ClientRequest in) {
        Channel[] channel = new Channel[1];
        in.request.withConnection(connection -> channel[0] = connection.channel());
        return channel[0];
    }
}
