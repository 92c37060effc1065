package dev.sluice.engine.blocking;

import dev.sluice.compose.JsonSplice;
import dev.sluice.config.ComposeTarget;
import dev.sluice.config.PartConfig;
import dev.sluice.config.RouteConfig;
import dev.sluice.engine.blocking.upstream.UpstreamClient;
import dev.sluice.engine.blocking.upstream.UpstreamRequest;
import dev.sluice.http.HeaderRules;
import dev.sluice.routing.RouteTable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

/** A {@code compose:} route: fans out to its parts and relays their JSON as it arrives. */
final class ComposeRoute implements RouteHandler {

    private static final int STAGING = 32 * 1024;

    private final ComposeTarget target;
    private final List<PartConfig> parts;
    private final UpstreamClient[] clients;
    private final JsonSplice splice;
    private final HeaderRules rules;
    private final Executor fanout;
    private final int readAhead;
    private final RingPool rings;

    ComposeRoute(
            RouteConfig route,
            ComposeTarget target,
            Map<String, UpstreamClient> clients,
            Executor fanout,
            int readAhead,
            RingPool rings) {
        this.target = target;
        this.parts = target.parts();
        this.clients = new UpstreamClient[parts.size()];
        for (int i = 0; i < parts.size(); i++) {
            this.clients[i] = clients.get(parts.get(i).upstream());
        }
        this.splice = new JsonSplice(parts.stream().map(PartConfig::name).toList());
        this.rules = HeaderRules.of(route.filters());
        this.fanout = fanout;
        this.readAhead = readAhead;
        this.rings = rings;
    }

    @Override
    public void handle(Request request, Response response, RouteTable.Result.Matched match) throws Exception {
        long start = System.nanoTime();
        long deadline = start + target.timeout().toNanos();
        Composition composition = new Composition(target, splice, fanout, start, deadline, parts.size());
        Map<String, String> query = Requests.lazyQuery(request);
        PartFetch previous = null;
        PartFetch[] fetches = new PartFetch[parts.size()];
        for (int i = 0; i < parts.size(); i++) {
            PartConfig part = parts.get(i);
            UpstreamClient client = clients[i];
            String path = client.config().basePath() + part.path().expand(match.variables(), query, match.remainder());
            UpstreamRequest out = new UpstreamRequest("GET", path).header("Accept", "application/json");
            Requests.addForwarding(request, client.config(), rules, out);
            long partDeadline = part.timeout()
                    .map(t -> Math.min(start + t.toNanos(), deadline))
                    .orElse(deadline);
            fetches[i] = new PartFetch(
                    composition, i, part, client, out, partDeadline, readAhead, target.validateJson(), rings);
            composition.add(fetches[i]);
            if (previous != null) {
                previous.next = fetches[i];
            }
            previous = target.fanout() == ComposeTarget.Fanout.SEQUENTIAL ? fetches[i] : null;
        }
        try {
            if (target.fanout() == ComposeTarget.Fanout.SEQUENTIAL) {
                composition.start(fetches[0]);
            } else {
                for (PartFetch fetch : fetches) {
                    composition.start(fetch);
                }
            }
            if (target.onError() == ComposeTarget.OnError.FAIL) {
                PartFetch failed = composition.awaitStatusLines();
                if (failed != null) {
                    boolean timeout = failed.failure.timeout();
                    throw new GatewayError(
                            timeout ? 504 : 502,
                            timeout ? "part_timeout" : "part_failed",
                            "part '" + failed.config.name() + "': " + failed.failure.reason());
                }
            }
            response.setStatus(200);
            for (Map.Entry<String, String> set : rules.composedResponseHeaders().entrySet()) {
                response.getHeaders().put(set.getKey(), set.getValue());
            }
            try (ClientOutput out =
                    new ClientOutput(response, request.getComponents().getByteBufferPool(), STAGING)) {
                composition.relay(out);
            }
        } finally {
            composition.cancelAll();
            for (PartFetch fetch : fetches) {
                fetch.letGoOfRing(); // the relay reads from the rings no more
            }
        }
    }
}
