package dev.sluice.engine.reactive;

import dev.sluice.http.HeaderRules;
import dev.sluice.http.QueryString;
import dev.sluice.http.RequestId;
import dev.sluice.http.TraceContext;
import dev.sluice.http.UpstreamHead;
import dev.sluice.observe.ExchangeTally;
import dev.sluice.policy.UpstreamEdits;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.net.InetSocketAddress;
import java.util.Iterator;
import java.util.Map;
import reactor.netty.http.server.HttpServerRequest;

/**
 * What the gateway reads from an incoming request: its raw path and query, its query parameters
 * (decoded on first use), and the headers it sends upstream.
 */
final class ClientRequest {

    final HttpServerRequest request;
    final String method;
    final String path; // raw, without the query
    final String rawQuery; // null when the target has no '?'
    private Forwarding forwarding;
    private String requestId;
    private boolean idOnAnswer; // server.request-id.response: every answer carries requestId
    private TraceContext trace;
    private boolean recordTraces; // a trace this request begins is recorded (sampled)
    /** Made only when an observer listens. */
    private ExchangeTally tally;
    /** Set for a valid WebSocket upgrade on a proxy route: the tunnel's idle timeout. */
    private java.time.Duration websocketIdle;
    /** What the route's policies add to and take from its upstream requests: set once, before the route runs. */
    private UpstreamEdits edits = UpstreamEdits.NONE;
    /** Set by a mirrored route whose copy carries the body: it sees each piece as the route reads it. */
    private MirroredRoute.Tee tee;

    private ClientRequest(HttpServerRequest request, String method, String path, String rawQuery) {
        this.request = request;
        this.method = method;
        this.path = path;
        this.rawQuery = rawQuery;
    }

    static ClientRequest of(HttpServerRequest request) {
        String target = request.uri();
        if (!target.startsWith("/")) { // absolute-form: scheme://authority/path?query
            int scheme = target.indexOf("://");
            int slash = scheme < 0 ? -1 : target.indexOf('/', scheme + 3);
            target = slash < 0 ? "/" : target.substring(slash);
        }
        int q = target.indexOf('?');
        String path = q < 0 ? target : target.substring(0, q);
        String query = q < 0 ? null : target.substring(q + 1);
        return new ClientRequest(request, request.method().name(), path, query);
    }

    /** The client's body as the route reads it: through the mirror's tee when its copy carries it. */
    reactor.netty.ByteBufFlux receive() {
        return tee == null ? request.receive() : tee.tap(request.receive());
    }

    /** A mirrored route's tee, before the route runs. */
    void tee(MirroredRoute.Tee tee) {
        this.tee = tee;
    }

    /** Sets the policies' edits; before the route runs, so before {@link #forwarding()} is first asked. */
    void edits(UpstreamEdits edits) {
        this.edits = edits;
    }

    /** {@link #rawQuery} as it goes upstream: without the query parameters the policies drop. */
    String upstreamQuery() {
        return edits.query(rawQuery);
    }

    HttpHeaders headers() {
        return request.requestHeaders();
    }

    /** The decoded query parameters, first value per name ({@link QueryString#parameters}). */
    Map<String, String> query() {
        return QueryString.parameters(rawQuery);
    }

    /** Copies the client's end-to-end headers that the route lets through (proxy only). */
    void copyHeaders(HeaderRules rules, HttpHeaders out) {
        HttpHeaders in = request.requestHeaders();
        String connection = in.get(HeaderRules.CONNECTION);
        Iterator<Map.Entry<CharSequence, CharSequence>> it = in.iteratorCharSequence();
        while (it.hasNext()) {
            Map.Entry<CharSequence, CharSequence> header = it.next();
            if (rules.forwardRequest(header.getKey(), connection) && !edits.removes(header.getKey())) {
                out.add(header.getKey(), header.getValue());
            }
        }
    }

    /** Writes the headers the gateway adds ({@link UpstreamHead}), Host included (proxy and parts). */
    void addForwarding(HeaderRules rules, String authority, HttpHeaders out) {
        forwarding().addTo(rules, authority, out);
    }

    /** This request's {@link UpstreamHead} and policies' edits, made once; safe to use from any thread. */
    Forwarding forwarding() {
        Forwarding f = forwarding;
        if (f == null) {
            HttpHeaders in = request.requestHeaders();
            f = new Forwarding(
                    UpstreamHead.of(
                            in.get(UpstreamHead.X_FORWARDED_FOR),
                            in.get(UpstreamHead.X_FORWARDED_PROTO),
                            in.get(UpstreamHead.X_FORWARDED_HOST),
                            in.get(HttpHeaderNames.HOST),
                            request.scheme(),
                            clientAddress(),
                            requestId(),
                            trace()),
                    edits);
            forwarding = f;
        }
        return f;
    }

    /** What a request's upstream requests carry besides the client's own headers. */
    record Forwarding(UpstreamHead head, UpstreamEdits edits) {
        void addTo(HeaderRules rules, String authority, HttpHeaders out) {
            head.addTo(rules, edits.set(), authority, out::set);
        }
    }

    /** The exchange's id, noted as one every answer to it carries ({@code server.request-id.response}). */
    String answerWithId() {
        idOnAnswer = true;
        return requestId();
    }

    /** The {@code X-Request-Id} of an answer to this request ({@link RequestId#onAnswer}), or null. */
    String answerId(boolean internalFailure) {
        return RequestId.onAnswer(idOnAnswer, internalFailure, idOnAnswer || internalFailure ? requestId() : null);
    }

    /**
     * The exchange's id ({@link RequestId}): the client's when sane, else a new one, the same for
     * every upstream request and the log. Made on the request's loop, before any part starts.
     */
    String requestId() {
        String id = requestId;
        if (id == null) {
            id = RequestId.reuseOrNext(request.requestHeaders().get(RequestId.HEADER));
            requestId = id;
        }
        return id;
    }

    /** The gateway records traces (its observer exports spans): a trace this request begins is sampled. */
    void recordTraces() {
        recordTraces = true;
    }

    /** The exchange's trace context ({@link TraceContext}), made once on the request's loop. */
    TraceContext trace() {
        TraceContext t = trace;
        if (t == null) {
            HttpHeaders in = request.requestHeaders();
            t = TraceContext.of(in.get(TraceContext.TRACEPARENT), in.get(TraceContext.TRACESTATE), recordTraces);
            trace = t;
        }
        return t;
    }

    /**
     * Marks the request a valid WebSocket upgrade on a proxy route ({@link
     * dev.sluice.http.WebSocketUpgrade}), with the tunnel's idle timeout: before the route runs.
     */
    void websocket(java.time.Duration idle) {
        this.websocketIdle = idle;
    }

    /** The tunnel's idle timeout of a valid WebSocket upgrade, or null for any other request. */
    java.time.Duration websocketIdle() {
        return websocketIdle;
    }

    /** Notes the exchange's tally: when an observer listens, before the route runs. */
    void tally(ExchangeTally tally) {
        this.tally = tally;
    }

    /** The exchange's tally, or null when nobody listens. */
    ExchangeTally tally() {
        return tally;
    }

    /** The peer's IP address as a literal ({@code unknown} when the channel has none). */
    String clientAddress() {
        InetSocketAddress remote = request.remoteAddress();
        if (remote == null) {
            return "unknown";
        }
        return remote.getAddress() != null ? remote.getAddress().getHostAddress() : remote.getHostString();
    }
}
