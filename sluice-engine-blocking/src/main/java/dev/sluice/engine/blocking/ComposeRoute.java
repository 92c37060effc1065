package dev.sluice.engine.blocking;

import dev.sluice.compose.CompositionPlan;
import dev.sluice.compose.DeliveryNegotiation;
import dev.sluice.compose.JsonSplice;
import dev.sluice.compose.ReadAheadBudget;
import dev.sluice.config.ComposeTarget;
import dev.sluice.config.ComposeTarget.Delivery;
import dev.sluice.config.PartConfig;
import dev.sluice.config.RouteConfig;
import dev.sluice.engine.FrontDoor;
import dev.sluice.engine.blocking.upstream.UpstreamClient;
import dev.sluice.engine.blocking.upstream.UpstreamRequest;
import dev.sluice.http.HeaderRules;
import dev.sluice.observe.ExchangeTally;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.policy.UpstreamEdits;
import dev.sluice.routing.RouteTable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

/** A {@code compose:} route: fans out to its parts and relays their JSON as it arrives. */
final class ComposeRoute implements BlockingRoute {

    private final ComposeTarget target;
    private final List<PartConfig> parts;
    private final UpstreamClient[] clients;
    private final JsonSplice splice;
    private final HeaderRules rules;
    private final Executor fanout;
    private final int readAhead;
    private final RingPool rings;
    private final ReadAheadBudget budget; // the gateway's: every part's ring is taken from it
    private final String id;
    private final GatewayObserver observer;
    private final ByteBufferPool buffers; // the server's: the response's staging buffer
    private final ScheduledExecutorService timer; // the gateway's: a composition's deadlines

    ComposeRoute(
            RouteConfig route,
            ComposeTarget target,
            Map<String, UpstreamClient> clients,
            Executor fanout,
            int readAhead,
            RingPool rings,
            ReadAheadBudget budget,
            GatewayObserver observer,
            ByteBufferPool buffers,
            ScheduledExecutorService timer) {
        this.id = route.id();
        this.buffers = buffers;
        this.timer = timer;
        this.observer = observer;
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
        this.budget = budget;
    }

    @Override
    public void handle(Request request, Response response, RouteTable.Result.Matched match, UpstreamEdits edits)
            throws Exception {
        Delivery delivery = DeliveryNegotiation.choose(target, accept(request)).orElse(null);
        if (delivery == null) {
            GatewayHandler.render(request, response, FrontDoor.notAcceptable(target, id));
            return;
        }
        ExchangeTally tally = Requests.tally(request);
        CompositionPlan plan =
                new CompositionPlan(id, target, splice, readAhead, System::nanoTime, observer, tally, delivery);
        Composition composition = new Composition(plan, fanout, parts.size(), buffers, timer);
        Map<String, String> query = Requests.lazyQuery(request);
        PartFetch[] fetches = new PartFetch[parts.size()];
        for (int i = 0; i < parts.size(); i++) {
            PartConfig part = parts.get(i);
            UpstreamClient client = clients[i];
            String path = client.config().basePath() + part.path().expand(match.variables(), query, match.remainder());
            UpstreamRequest out = new UpstreamRequest("GET", path).header("Accept", "application/json");
            Requests.addForwarding(request, rules, edits, out);
            fetches[i] = new PartFetch(composition, i, part, client, out, readAhead, plan.validator(i), rings, budget);
            composition.add(fetches[i]);
        }
        try {
            composition.run(request, response, rules);
        } finally {
            composition.cancelAll();
            for (PartFetch fetch : fetches) {
                fetch.letGoOfRing(); // the relay reads from the rings no more
            }
        }
    }

    /** The request's Accept values, joined; null when it has none (only a route that negotiates asks). */
    private String accept(Request request) {
        if (!target.negotiatesDelivery()) {
            return null;
        }
        List<String> values = request.getHeaders().getValuesList(HttpHeader.ACCEPT);
        return values.isEmpty() ? null : String.join(",", values);
    }
}
