package dev.sluice.engine.blocking;

import dev.sluice.policy.UpstreamEdits;
import dev.sluice.routing.RouteTable;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

/** Serves one route's matched requests, blocking until the response is complete. */
interface BlockingRoute {

    /**
     * Writes the whole response, ending it. Throws when it cannot: the caller answers with an error
     * if nothing was committed yet, or aborts the connection if something was.
     *
     * @param edits what the route's policies add to and take from every upstream request
     */
    void handle(Request request, Response response, RouteTable.Result.Matched match, UpstreamEdits edits)
            throws Exception;
}
