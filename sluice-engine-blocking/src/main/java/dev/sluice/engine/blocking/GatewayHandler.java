package dev.sluice.engine.blocking;

import dev.sluice.config.ComposeTarget;
import dev.sluice.config.GatewayConfig;
import dev.sluice.config.ProxyTarget;
import dev.sluice.config.RouteConfig;
import dev.sluice.engine.blocking.upstream.UpstreamClient;
import dev.sluice.engine.blocking.upstream.UpstreamException;
import dev.sluice.http.ErrorBody;
import dev.sluice.routing.PathTemplate;
import dev.sluice.routing.RouteTable;
import java.nio.ByteBuffer;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The one Jetty handler: matches the route and runs it, blocking, on the request's thread (a
 * virtual thread or a pool thread, by mode). Errors become JSON bodies while nothing is committed
 * and an aborted connection after.
 */
final class GatewayHandler extends Handler.Abstract {

    private final RouteTable table;
    private final Map<RouteConfig, RouteHandler> handlers = new IdentityHashMap<>();

    GatewayHandler(
            GatewayConfig config,
            Map<String, UpstreamClient> clients,
            ExecutorService fanout,
            ScheduledExecutorService timer) {
        super(InvocationType.BLOCKING);
        this.table = new RouteTable(config.routes());
        RingPool rings = new RingPool(16L << 20);
        for (RouteConfig route : config.routes()) {
            RouteHandler handler = switch (route.target()) {
                case ProxyTarget proxy -> new ProxyRoute(route, proxy, clients.get(proxy.upstream()), timer);
                case ComposeTarget compose ->
                    new ComposeRoute(
                            route, compose, clients, fanout, config.server().readAhead(), rings);
            };
            handlers.put(route, handler);
        }
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        String method = request.getMethod();
        String path = request.getHttpURI().getPath(); // raw: RouteTable normalises it
        HttpFields headers = request.getHeaders();
        try {
            switch (table.match(method, headers.get(HttpHeader.HOST), path, headers::get)) {
                case RouteTable.Result.Matched matched ->
                    handlers.get(matched.route()).handle(request, response, matched);
                case RouteTable.Result.MethodNotAllowed notAllowed -> {
                    response.getHeaders()
                            .put(HttpHeader.ALLOW, String.join(", ", new java.util.TreeSet<>(notAllowed.allowed())));
                    error(response, 405, ErrorBody.methodNotAllowed(method, path));
                }
                case RouteTable.Result.NotFound notFound -> error(response, 404, ErrorBody.notFound(method, path));
                case RouteTable.Result.BadPath bad -> error(response, 400, ErrorBody.badRequest(bad.reason()));
            }
            callback.succeeded();
        } catch (Throwable failure) {
            fail(response, callback, failure);
        }
        return true;
    }

    private static void fail(Response response, Callback callback, Throwable failure) {
        if (response.isCommitted()) {
            callback.failed(failure); // aborts the connection: the client sees no clean end
            return;
        }
        int status;
        byte[] body;
        switch (failure) {
            case UpstreamException e -> {
                status = e.failure().status();
                body = ErrorBody.of(e.failure().status(), e.failure().code(), e.getMessage());
            }
            case PathTemplate.ExpansionException e -> {
                status = 400;
                body = ErrorBody.of(400, "bad_request", e.getMessage());
            }
            case GatewayError e -> {
                status = e.status();
                body = ErrorBody.of(e.status(), e.code(), e.getMessage());
            }
            default -> {
                status = 500;
                body = ErrorBody.of(500, "internal_error", String.valueOf(failure));
            }
        }
        response.reset();
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, ErrorBody.CONTENT_TYPE);
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    private static void error(Response response, int status, byte[] body) throws java.io.IOException {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, ErrorBody.CONTENT_TYPE);
        ClientOutput.send(response, true, ByteBuffer.wrap(body));
    }
}
