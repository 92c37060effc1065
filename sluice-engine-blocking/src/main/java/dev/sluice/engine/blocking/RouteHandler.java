package dev.sluice.engine.blocking;

import dev.sluice.routing.RouteTable;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

/** Serves one route's matched requests, blocking until the response is complete. */
interface RouteHandler {

    /**
     * Writes the whole response, ending it. Throws when it cannot: the caller answers with an error
     * if nothing was committed yet, or aborts the connection if something was.
     */
    void handle(Request request, Response response, RouteTable.Result.Matched match) throws Exception;
}
