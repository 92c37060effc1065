package dev.sluice.engine.blocking;

import dev.sluice.config.UpstreamConfig;
import dev.sluice.engine.blocking.upstream.GuardedUpstreamClient;
import dev.sluice.engine.blocking.upstream.UpgradeCall;
import dev.sluice.engine.blocking.upstream.UpstreamClient;
import dev.sluice.engine.blocking.upstream.UpstreamException;
import dev.sluice.engine.blocking.upstream.UpstreamRequest;
import dev.sluice.http.HeaderRules;
import dev.sluice.http.UpstreamFailure;
import dev.sluice.http.WebSocketUpgrade;
import dev.sluice.policy.UpstreamEdits;
import dev.sluice.upstream.Attempt;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.HttpStream;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

/**
 * A proxy route's WebSocket handshake ({@link WebSocketUpgrade}): the upgrade request goes upstream
 * on a connection of its own ({@link UpgradeCall}) with the route's path, header rules and policy
 * edits; a {@code 101} is relayed and the client connection becomes a {@link WebSocketTunnel} once
 * it is written; any other answer is relayed as the route relays every response.
 */
final class WebSocketRelay {

    /** The request attribute that marks a valid upgrade: the tunnel's idle timeout, a {@link Duration}. */
    static final String REQUESTED = "dev.sluice.websocket";

    private final ProxyRoute route;
    private final UpstreamClient client;
    private final HeaderRules rules;
    private final Duration idle;

    WebSocketRelay(ProxyRoute route, UpstreamClient client, HeaderRules rules, Duration idle) {
        this.route = route;
        this.client = client;
        this.rules = rules;
        this.idle = idle;
    }

    void relay(Request request, Response response, String target, UpstreamEdits edits) throws Exception {
        long began = System.nanoTime();
        UpstreamConfig endpoint = client.config();
        Attempt attempt = null;
        if (client instanceof GuardedUpstreamClient guarded) { // the endpoint, its breaker's permission taken
            attempt = guarded.guard().begin(null);
            if (attempt == null) {
                UpstreamException open = new UpstreamException(UpstreamFailure.CIRCUIT_OPEN, endpoint.name(), null);
                if (route.observed()) {
                    route.failed(open.failure(), System.nanoTime() - began);
                }
                throw open;
            }
            endpoint = endpoint.endpoint(attempt.endpoint().index());
        }
        UpstreamRequest out = new UpstreamRequest(request.getMethod(), target);
        Requests.forwardHeaders(request, rules, edits, endpoint.authority(), out);
        WebSocketUpgrade.UPSTREAM_HEADERS.forEach(out::header);
        UpgradeCall call;
        try {
            call = UpgradeCall.open(endpoint, out);
        } catch (UpstreamException e) {
            if (attempt != null) {
                attempt.failed(e.failure());
            }
            if (route.observed()) {
                route.failed(e.failure(), System.nanoTime() - began);
            }
            throw e;
        }
        if (attempt != null) {
            attempt.answered(call.status());
        }
        if (route.observed()) {
            route.answered(request, call.status(), System.nanoTime() - began);
        }
        if (!call.switched()) {
            try (call) {
                route.relay(call, response);
            }
            return;
        }
        boolean handedOver = false;
        try {
            response.setStatus(101);
            HttpFields.Mutable headers = response.getHeaders();
            String connection = call.header(HeaderRules.CONNECTION);
            for (int i = 0, n = call.headerCount(); i < n; i++) {
                String name = call.headerName(i);
                if (rules.forwardResponse(name, connection)) {
                    headers.add(name, call.headerValue(i));
                }
            }
            for (Map.Entry<String, String> set : rules.responseSets().entrySet()) {
                headers.put(set.getKey(), set.getValue());
            }
            WebSocketUpgrade.UPSTREAM_HEADERS.forEach(headers::put);
            EndPoint endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
            request.setAttribute(
                    HttpStream.UPGRADE_CONNECTION_ATTRIBUTE,
                    new WebSocketTunnel(
                            endPoint,
                            request.getConnectionMetaData().getConnector().getExecutor(),
                            call.socket(),
                            call.early(),
                            idle));
            ClientOutput.send(response, true, ByteBuffer.allocate(0)); // Jetty switches once the handler ends
            handedOver = true;
        } finally {
            if (!handedOver) {
                call.close();
            }
        }
    }
}
