package dev.sluice.observe;

import static java.util.Objects.requireNonNull;

import dev.sluice.http.TraceContext;
import java.util.List;

/**
 * One request, as the client saw it.
 *
 * @param route the matched route's id, or empty when no route matched (404, 405, a refused path, a
 *     head refused before routing: see {@link RefusedHead})
 * @param method the request method ({@code -} for a refused head whose request line was not read)
 * @param status the status sent (for an aborted response, the one its status line carried)
 * @param aborted the response began and then its connection was closed without a clean end
 * @param durationNanos from routing (for a refused head: the refusal) to the last byte handed to the
 *     connection (or the abort)
 * @param path the request's path as the client sent it, without the query ({@code -} when unknown)
 * @param requestId the exchange's id ({@code X-Request-Id}, the one its upstream requests carried)
 * @param client the client's address: the connection's peer, or, on a route that trusts proxies
 *     (an {@code ip-filter}'s {@code trusted-proxies}), the client they name ({@code
 *     dev.sluice.policy.ClientAddress})
 * @param bytesIn request body bytes read from the client
 * @param bytesOut response body bytes written to the client
 * @param upstreamNanos a proxy route's: from the upstream call's start to its answer's status line;
 *     -1 when there was no answer (no upstream call, a failed one, a composition: see {@link #parts})
 * @param traceId the W3C trace id its upstream requests carried ({@code -} when none)
 * @param spanId the gateway's span id in that trace, the parent id its upstream requests carried
 *     ({@code -} when none)
 * @param parentSpanId the client's span id, or empty when the gateway began the trace
 * @param sampled the trace's sampled flag as its upstream requests carried it: the client's, or, for
 *     a trace the gateway began, whether an observer records traces ({@link
 *     GatewayObserver#recordsTraces()}); a span exporter exports only sampled ones
 * @param refusedBy the policy that refused the request ({@code jwt}, {@code api-key}, {@code
 *     ip-filter}, {@code rate-limit}, {@code concurrency}, {@code server-limits}), or, for a head
 *     refused before routing, {@code request-framing} (the parser's or {@link
 *     dev.sluice.http.RequestFraming}'s 400, 501, 505) or {@code server-limits} (408, 413, 414, 431);
 *     empty otherwise
 * @param parts a composition's parts as they settled, in declared order (empty for other routes)
 * @param grpcStatus a gRPC call's {@code grpc-status} as the client got it, or -1
 */
public record ExchangeEvent(
        String route,
        String method,
        int status,
        boolean aborted,
        long durationNanos,
        String path,
        String requestId,
        String client,
        long bytesIn,
        long bytesOut,
        long upstreamNanos,
        String traceId,
        String spanId,
        String parentSpanId,
        boolean sampled,
        String refusedBy,
        List<PartEvent> parts,
        int grpcStatus) {
    public ExchangeEvent {
        requireNonNull(route, "route");
        requireNonNull(method, "method");
        requireNonNull(path, "path");
        requireNonNull(requestId, "requestId");
        requireNonNull(client, "client");
        requireNonNull(traceId, "traceId");
        requireNonNull(spanId, "spanId");
        requireNonNull(parentSpanId, "parentSpanId");
        requireNonNull(refusedBy, "refusedBy");
        parts = List.copyOf(parts);
    }

    /** Of a call that is not gRPC's. */
    public ExchangeEvent(
            String route,
            String method,
            int status,
            boolean aborted,
            long durationNanos,
            String path,
            String requestId,
            String client,
            long bytesIn,
            long bytesOut,
            long upstreamNanos,
            String traceId,
            String spanId,
            String parentSpanId,
            boolean sampled,
            String refusedBy,
            List<PartEvent> parts) {
        this(
                route,
                method,
                status,
                aborted,
                durationNanos,
                path,
                requestId,
                client,
                bytesIn,
                bytesOut,
                upstreamNanos,
                traceId,
                spanId,
                parentSpanId,
                sampled,
                refusedBy,
                parts,
                -1);
    }

    /**
     * What an engine knows of a request when its exchange ends, apart from its answer.
     *
     * @param route the matched route's id, empty when none matched
     * @param method the request method
     * @param path the request's path (its target without the query)
     * @param requestId the request's id (the one its upstream requests carried)
     * @param peer the connection's peer address (the client unless a policy resolved another)
     * @param trace the request's trace context
     */
    public record Asked(String route, String method, String path, String requestId, String peer, TraceContext trace) {}

    /**
     * What an engine measured of the answer.
     *
     * @param status the status sent
     * @param aborted the response was aborted after it began
     * @param durationNanos from the request's start to the answer's end
     * @param bytesIn request body bytes read
     * @param bytesOut response body bytes written
     */
    public record Answered(int status, boolean aborted, long durationNanos, long bytesIn, long bytesOut) {}

    /**
     * The event of a request the gateway routed (or answered 404, 405 or 400 after its head passed):
     * built here once for every engine; the client, upstream time, refusing policy and parts come
     * from the exchange's {@link ExchangeTally}.
     */
    public static ExchangeEvent of(Asked asked, Answered answered, ExchangeTally tally) {
        TraceContext trace = asked.trace();
        return new ExchangeEvent(
                asked.route(),
                asked.method(),
                answered.status(),
                answered.aborted(),
                answered.durationNanos(),
                asked.path(),
                asked.requestId(),
                tally.clientOr(asked.peer()),
                answered.bytesIn(),
                answered.bytesOut(),
                tally.upstreamNanos(),
                trace.traceId(),
                trace.spanId(),
                trace.parentId(),
                trace.sampled(),
                tally.refusedBy(),
                tally.parts(),
                tally.grpcStatus());
    }

    /** An event without the request's path, id, client, sizes and upstream details (tests). */
    public ExchangeEvent(String route, String method, int status, boolean aborted, long durationNanos) {
        this(
                route,
                method,
                status,
                aborted,
                durationNanos,
                "-",
                "-",
                "-",
                0,
                0,
                -1,
                "-",
                "-",
                "",
                false,
                "",
                List.of());
    }
}
