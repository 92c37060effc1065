package dev.sluice.observe;

import static java.util.Objects.requireNonNull;

/**
 * One request, as the client saw it.
 *
 * @param route the matched route's id, or empty when no route matched (404, 405, a refused path)
 * @param method the request method
 * @param status the status sent (for an aborted response, the one its status line carried)
 * @param aborted the response began and then its connection was closed without a clean end
 * @param durationNanos from routing to the last byte handed to the connection (or the abort)
 */
public record ExchangeEvent(String route, String method, int status, boolean aborted, long durationNanos) {
    public ExchangeEvent {
        requireNonNull(route, "route");
        requireNonNull(method, "method");
    }
}
