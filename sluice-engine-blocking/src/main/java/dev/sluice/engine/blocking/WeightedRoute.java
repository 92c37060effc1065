package dev.sluice.engine.blocking;

import dev.sluice.policy.UpstreamEdits;
import dev.sluice.routing.RouteTable;
import dev.sluice.routing.WeightedChoice;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

/** A weighted route ({@code backends:}): runs the side the core's {@link WeightedChoice} picks. */
final class WeightedRoute implements BlockingRoute {

    private final WeightedChoice choice;
    private final BlockingRoute[] sides; // in the order of the backends

    WeightedRoute(WeightedChoice choice, java.util.List<BlockingRoute> sides) {
        this.choice = choice;
        this.sides = sides.toArray(BlockingRoute[]::new);
    }

    @Override
    public void handle(Request request, Response response, RouteTable.Result.Matched match, UpstreamEdits edits)
            throws Exception {
        sides[choice.pick(request.getHeaders()::getValuesList)].handle(request, response, match, edits);
    }
}
