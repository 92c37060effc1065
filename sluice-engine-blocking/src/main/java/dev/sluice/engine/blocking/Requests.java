package dev.sluice.engine.blocking;

import dev.sluice.engine.blocking.upstream.UpstreamRequest;
import dev.sluice.http.HeaderRules;
import dev.sluice.http.QueryString;
import dev.sluice.http.RequestId;
import dev.sluice.http.TraceContext;
import dev.sluice.http.UpstreamHead;
import dev.sluice.observe.ExchangeTally;
import dev.sluice.policy.UpstreamEdits;
import java.util.Map;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;

/** What the proxy and composition both do with an incoming Jetty request. */
final class Requests {

    private Requests() {}

    /**
     * Marks a request the gateway's handler saw and failed through Jetty (its callback failed): an
     * error page Jetty then asks {@link JsonErrorHandler} for is this exchange's, which reports itself.
     */
    private static final String SEEN = "dev.sluice.seen";

    /**
     * One request's own state as it crosses the gateway: its id, trace context and tally, kept on a
     * wrapper the handler makes once per request rather than in Jetty's request attributes, whose
     * map (a {@code ConcurrentHashMap}) Jetty makes on the first attribute set and reads again as
     * the stream completes, a cost on every request.
     */
    static final class Exchange extends Request.Wrapper {
        private String requestId;
        private boolean idOnAnswer; // server.request-id.response: every answer carries requestId
        private TraceContext trace;
        private ExchangeTally tally;
        private UpstreamHead head;
        private ClientDeparture departure;

        Exchange(Request request) {
            super(request);
        }
    }

    /** {@code request}'s exchange: every request the handler runs is one, or wraps one. */
    private static Exchange exchange(Request request) {
        if (request instanceof Exchange e) {
            return e;
        }
        Exchange e = Request.as(request, Exchange.class);
        if (e == null) {
            throw new IllegalStateException("a request the gateway's handler did not begin");
        }
        return e;
    }

    /** Notes the exchange's client, which may leave before its answer. */
    static void departure(Request request, ClientDeparture departure) {
        exchange(request).departure = departure;
    }

    /** The exchange's client, which may leave before its answer ({@link ClientDeparture}). */
    static ClientDeparture departure(Request request) {
        return exchange(request).departure;
    }

    /** Notes that the handler saw {@code request}, before it fails the request's callback. */
    static void seen(Request request) {
        request.setAttribute(SEEN, Boolean.TRUE);
    }

    /** Whether the handler saw {@code request} (Jetty's own request, as its error handler gets it). */
    static boolean wasSeen(Request request) {
        return request.getAttribute(SEEN) != null;
    }

    /**
     * The exchange's trace context ({@link TraceContext}), made once like {@link #requestId}: asked
     * first on the request's own thread.
     */
    static TraceContext trace(Request request) {
        Exchange exchange = exchange(request);
        TraceContext trace = exchange.trace;
        return trace != null ? trace : beginTrace(exchange, false);
    }

    /**
     * Makes the exchange's trace context now: a gateway whose observer records traces calls it as the
     * request arrives, so that a trace it begins is marked sampled ({@link TraceContext#of(String,
     * String, boolean)}).
     */
    static TraceContext beginTrace(Request request, boolean recorded) {
        HttpFields headers = request.getHeaders();
        TraceContext made =
                TraceContext.of(headers.get(TraceContext.TRACEPARENT), headers.get(TraceContext.TRACESTATE), recorded);
        exchange(request).trace = made;
        return made;
    }

    /** Notes the exchange's tally, made only when an observer listens. */
    static void tally(Request request, ExchangeTally tally) {
        exchange(request).tally = tally;
    }

    /** The exchange's tally, or null when nobody listens. */
    static ExchangeTally tally(Request request) {
        return exchange(request).tally;
    }

    /**
     * The exchange's id, noted as one every answer to it carries ({@code server.request-id.response}):
     * a failure's answer, written after a reset, carries it again ({@link #answerId}).
     */
    static String answerWithId(Request request) {
        exchange(request).idOnAnswer = true;
        return requestId(request);
    }

    /** The {@code X-Request-Id} of an answer to {@code request} ({@link RequestId#onAnswer}), or null. */
    static String answerId(Request request, boolean internalFailure) {
        Exchange exchange = exchange(request);
        return RequestId.onAnswer(
                exchange.idOnAnswer,
                internalFailure,
                exchange.idOnAnswer || internalFailure ? requestId(request) : null);
    }

    /**
     * The exchange's id ({@link RequestId}): the client's when sane, else a new one, the same for
     * every upstream request and the log. Asked first on the request's own thread (before any part
     * starts), so it is set before another thread reads it.
     */
    static String requestId(Request request) {
        Exchange exchange = exchange(request);
        String id = exchange.requestId;
        if (id == null) {
            id = RequestId.reuseOrNext(request.getHeaders().get(RequestId.HEADER));
            exchange.requestId = id;
        }
        return id;
    }

    /**
     * Copies the client's headers that cross the gateway (neither the route's rules nor its policies'
     * edits hold them back), then Host, X-Forwarded-*, the route's sets and the policies' sets.
     */
    static void forwardHeaders(Request request, HeaderRules rules, UpstreamEdits edits, UpstreamRequest out) {
        forwardHeaders(request, rules, edits, null, out);
    }

    /** As {@link #forwardHeaders(Request, HeaderRules, UpstreamEdits, UpstreamRequest)}, to a known endpoint. */
    static void forwardHeaders(
            Request request, HeaderRules rules, UpstreamEdits edits, String authority, UpstreamRequest out) {
        HttpFields headers = request.getHeaders();
        String connection = headers.get(HeaderRules.CONNECTION);
        for (HttpField field : headers) {
            if (rules.forwardRequest(field.getName(), connection) && !edits.removes(field.getName())) {
                out.header(field.getName(), field.getValue());
            }
        }
        addForwarding(request, rules, edits, authority, out);
    }

    /**
     * The headers the gateway adds ({@link UpstreamHead}), without copying any client header
     * (composition parts). {@code Host}: the route's or a policy's set, else the endpoint's, which
     * the client writes once it has chosen the endpoint (or {@code authority} when already known).
     */
    static void addForwarding(Request request, HeaderRules rules, UpstreamEdits edits, UpstreamRequest out) {
        addForwarding(request, rules, edits, null, out);
    }

    private static void addForwarding(
            Request request, HeaderRules rules, UpstreamEdits edits, String authority, UpstreamRequest out) {
        out.hostFromEndpoint(head(request).addTo(rules, edits.set(), authority, out::header));
    }

    /** The exchange's {@link UpstreamHead}, made once from the client's headers. */
    static UpstreamHead head(Request request) {
        Exchange exchange = exchange(request);
        UpstreamHead head = exchange.head;
        if (head == null) {
            HttpFields headers = request.getHeaders();
            head = UpstreamHead.of(
                    headers.get(UpstreamHead.X_FORWARDED_FOR),
                    headers.get(UpstreamHead.X_FORWARDED_PROTO),
                    headers.get(UpstreamHead.X_FORWARDED_HOST),
                    headers.get(HttpHeader.HOST),
                    request.getHttpURI().getScheme(),
                    Request.getRemoteAddr(request),
                    requestId(request),
                    trace(request));
            exchange.head = head;
        }
        return head;
    }

    /** The request's decoded query parameters ({@link QueryString#parameters}). */
    static Map<String, String> lazyQuery(Request request) {
        return QueryString.parameters(request.getHttpURI().getQuery());
    }
}
