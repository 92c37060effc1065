package dev.sluice.engine.blocking;

import dev.sluice.compose.ComposedHead;
import dev.sluice.compose.CompositionPlan;
import dev.sluice.compose.DeliveryNegotiation;
import dev.sluice.compose.JsonSplice;
import dev.sluice.compose.PartCache;
import dev.sluice.compose.PartRequest;
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
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

/** A {@code compose:} route: fans out to its parts and relays their JSON as it arrives. */
final class ComposeRoute implements BlockingRoute {

    private final ComposeTarget target;
    private final List<PartConfig> parts;
    private final UpstreamClient[] clients;
    private final PartRequest requests;
    private final JsonSplice splice;
    private final HeaderRules rules;
    private final Executor fanout;
    private final int readAhead;
    private final RingPool rings;
    private final ReadAheadBudget budget; // the gateway's: every composition's floor and part's ring
    private final String id;
    private final GatewayObserver observer;
    private final ByteBufferPool buffers; // the server's: the response's staging buffer
    private final ScheduledExecutorService timer; // the gateway's: a composition's deadlines
    private final PartCache cache; // the gateway's, or null: none

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
            ScheduledExecutorService timer,
            PartCache cache) {
        this.cache = cache;
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
        this.requests = new PartRequest(
                parts,
                java.util.Arrays.stream(this.clients)
                        .map(c -> c == null ? "" : c.config().basePath()) // undeclared: fails per request
                        .toList());
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
        if (ComposedHead.asked(request.getMethod())) { // the head alone: no part is called
            response.setStatus(ComposedHead.STATUS);
            HttpFields.Mutable fields = response.getHeaders();
            ComposedHead.fields(target, delivery, rules, fields::put, fields::add);
            ClientOutput.send(response, false, ByteBuffer.allocate(0)); // committed unsized, as a GET's would be
            ClientOutput.send(response, true, ByteBuffer.allocate(0));
            return;
        }
        PartRequest.Targets targets =
                requests.expand(match.variables(), Requests.lazyQuery(request), match.remainder());
        ExchangeTally tally = Requests.tally(request);
        ClientDeparture departure = Requests.departure(request);
        departure.markReadWhole(); // a composition reads no body: Jetty reads nothing more of the connection
        CompositionPlan plan = new CompositionPlan(
                id, target, splice, readAhead, System::nanoTime, observer, tally, delivery, targets);
        Composition composition = new Composition(
                plan,
                fanout,
                plan.slots(),
                buffers,
                timer,
                (method, path) -> {
                    UpstreamRequest out = new UpstreamRequest(method, path);
                    Requests.addForwarding(request, rules, edits, out);
                    departure.cancels(out); // a part fetched after the client left is cancelled at once
                    return out;
                },
                budget,
                readAhead);
        PartFetch[] fetches = new PartFetch[plan.slots()]; // a collection part's elements after the parts
        for (int i = 0; i < fetches.length; i++) {
            int c = plan.configured(i);
            PartConfig part = parts.get(c);
            UpstreamClient client = clients[c];
            if (cache != null && part.cache().isPresent()) {
                int index = i;
                client = new CachedPartClient(
                        client, cache, part.cache().get(), part.upstream(), () -> composition.cached(index));
            }
            fetches[i] = new PartFetch(composition, i, part, client, readAhead, plan.validator(i), rings);
            composition.add(fetches[i]);
        }
        try {
            composition.run(request, response, rules);
        } finally {
            composition.cancelAll();
            for (PartFetch fetch : fetches) {
                fetch.relayLetsGo(); // the relay reads from the rings no more
            }
            composition.closeBudget(); // its floor back; rings still being read go back as their fetches stop
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
