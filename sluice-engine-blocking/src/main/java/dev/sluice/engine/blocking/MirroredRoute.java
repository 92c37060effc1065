package dev.sluice.engine.blocking;

import dev.sluice.config.ProxyTarget;
import dev.sluice.engine.blocking.upstream.UpstreamClient;
import dev.sluice.engine.blocking.upstream.UpstreamException;
import dev.sluice.engine.blocking.upstream.UpstreamRequest;
import dev.sluice.engine.blocking.upstream.UpstreamResponse;
import dev.sluice.http.HeaderRules;
import dev.sluice.http.RequestFraming;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.observe.UpstreamEvent;
import dev.sluice.observe.UpstreamOutcome;
import dev.sluice.policy.UpstreamEdits;
import dev.sluice.routing.ProxyPath;
import dev.sluice.routing.RouteTable;
import dev.sluice.upstream.Mirror;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

/**
 * A route with a {@code mirror:}: when the core's {@link Mirror} says so, a bodiless copy of the
 * request's head goes to the mirror's upstream on a virtual thread of its own, then the route runs
 * as it would without it. The copy's head is made before the route runs (nothing of the client's
 * exchange is read after), and nothing of the copy's outcome reaches the client.
 */
final class MirroredRoute implements BlockingRoute {

    private final Mirror mirror;
    private final BlockingRoute route;
    private final ProxyTarget target;
    private final UpstreamClient client;
    private final HeaderRules rules;
    private final String id;
    private final GatewayObserver observer;

    MirroredRoute(
            Mirror mirror,
            BlockingRoute route,
            ProxyTarget target,
            UpstreamClient client,
            HeaderRules rules,
            String id,
            GatewayObserver observer) {
        this.mirror = mirror;
        this.route = route;
        this.target = target;
        this.client = client;
        this.rules = rules;
        this.id = id;
        this.observer = observer;
    }

    @Override
    public void handle(Request request, Response response, RouteTable.Result.Matched match, UpstreamEdits edits)
            throws Exception {
        HttpFields headers = request.getHeaders();
        long body = RequestFraming.upstreamBody(
                request.getConnectionMetaData().getHttpVersion() == HttpVersion.HTTP_2,
                headers.get(HttpHeader.CONTENT_LENGTH),
                headers.contains(HttpHeader.TRANSFER_ENCODING),
                false);
        if (request.getAttribute(WebSocketRelay.REQUESTED) == null
                && mirror.decide(body != 0) == Mirror.Decision.COPY) {
            copy(request, match, edits);
        }
        route.handle(request, response, match, edits);
    }

    private void copy(Request request, RouteTable.Result.Matched match, UpstreamEdits edits) {
        UpstreamRequest copy;
        try {
            copy = new UpstreamRequest(
                    request.getMethod(),
                    ProxyPath.target(
                            target,
                            client.config().basePath(),
                            match,
                            Requests.lazyQuery(request),
                            edits.query(request.getHttpURI().getQuery())));
            Requests.forwardHeaders(request, rules, edits, copy);
            Thread.ofVirtual().name("sluice-mirror").start(() -> send(copy));
        } catch (RuntimeException e) { // the route answers the same refusal (a path it cannot make)
            mirror.ended();
        }
    }

    /** Sends the copy and reads its answer to the end, discarding it. */
    private void send(UpstreamRequest copy) {
        long began = System.nanoTime();
        try (UpstreamResponse answer = client.send(copy)) {
            if (observer.listens()) {
                observer.upstream(new UpstreamEvent(
                        id,
                        client.config().name(),
                        UpstreamOutcome.of(answer.status()),
                        answer.status(),
                        System.nanoTime() - began));
            }
            byte[] discard = new byte[8192];
            while (answer.read(discard, 0, discard.length) >= 0) {
                // the answer is read so that its connection can be used again
            }
        } catch (UpstreamException e) {
            if (observer.listens()) {
                observer.upstream(new UpstreamEvent(
                        id, client.config().name(), UpstreamOutcome.of(e.failure()), 0, System.nanoTime() - began));
            }
        } catch (RuntimeException e) {
            // a copy's failure is never the client's
        } finally {
            mirror.ended();
        }
    }
}
