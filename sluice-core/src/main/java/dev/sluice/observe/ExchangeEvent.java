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
 * @param path the request's path as the client sent it, without the query ({@code -} when unknown)
 * @param requestId the exchange's id ({@code X-Request-Id}, the one its upstream requests carried)
 * @param client the client's address (the connection's peer)
 */
public record ExchangeEvent(
        String route,
        String method,
        int status,
        boolean aborted,
        long durationNanos,
        String path,
        String requestId,
        String client) {
    public ExchangeEvent {
        requireNonNull(route, "route");
        requireNonNull(method, "method");
        requireNonNull(path, "path");
        requireNonNull(requestId, "requestId");
        requireNonNull(client, "client");
    }

    /** An event without the request's path, id and client (tests, and observers that need none). */
    public ExchangeEvent(String route, String method, int status, boolean aborted, long durationNanos) {
        this(route, method, status, aborted, durationNanos, "-", "-", "-");
    }
}
