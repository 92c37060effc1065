package dev.sluice.http;

import java.util.Map;

/**
 * The headers the gateway adds to an exchange's upstream requests (the proxied one, each
 * composition part's, a WebSocket upgrade's), besides the client's copied ones: {@code Host}, the
 * exchange's {@code X-Request-Id} ({@link RequestId}), its {@code traceparent} / {@code tracestate}
 * ({@link TraceContext}), the {@code X-Forwarded-*} trio, the route's {@code request-headers} sets
 * and the policies' sets. Decided here once; an engine only writes them through a {@link Sink} over
 * its own header type. {@code Host} is the route's or a policy's set, else the endpoint's
 * {@code host:port}: given here when the engine knows the endpoint, else left to its client, which
 * writes the endpoint's as {@link #addTo} says and never decides it by reading the headers.
 *
 * <p>Every name is written at most once, the later word winning: a policy's set (decided for this
 * request) over the route's set of the same name (the same for every request), and either over the
 * gateway's own value. The client's copies of all of these are never forwarded ({@link
 * HeaderRules#forwardRequest}), so a sink may simply add.
 *
 * <p>Made once per exchange from the client's headers; immutable, so any part's thread may use it.
 */
public final class UpstreamHead {

    public static final String HOST = "Host";
    public static final String X_FORWARDED_FOR = "X-Forwarded-For";
    public static final String X_FORWARDED_PROTO = "X-Forwarded-Proto";
    public static final String X_FORWARDED_HOST = "X-Forwarded-Host";

    /** Where an engine writes the added headers: its own header type, no copy made. */
    @FunctionalInterface
    public interface Sink {
        /** Adds {@code name: value}; the head writes each name once. */
        void add(String name, String value);
    }

    private final String forwardedFor;
    private final String proto;
    private final String host; // null: neither X-Forwarded-Host nor Host came
    private final String clientHost; // null: no Host came
    private final String requestId;
    private final TraceContext trace;

    private UpstreamHead(
            String forwardedFor, String proto, String host, String clientHost, String requestId, TraceContext trace) {
        this.forwardedFor = forwardedFor;
        this.proto = proto;
        this.host = host;
        this.clientHost = clientHost;
        this.requestId = requestId;
        this.trace = trace;
    }

    /**
     * The head of an exchange whose client sent these headers (each null when absent).
     *
     * @param forwardedFor the client's {@code X-Forwarded-For}
     * @param forwardedProto the client's {@code X-Forwarded-Proto}
     * @param forwardedHost the client's {@code X-Forwarded-Host}
     * @param clientHost the client's {@code Host} (or HTTP/2 {@code :authority})
     * @param scheme the scheme the client used ({@code http} or {@code https})
     * @param clientAddress the peer's address as a literal
     * @param requestId the exchange's id ({@link RequestId#reuseOrNext})
     * @param trace the exchange's trace context
     */
    public static UpstreamHead of(
            String forwardedFor,
            String forwardedProto,
            String forwardedHost,
            String clientHost,
            String scheme,
            String clientAddress,
            String requestId,
            TraceContext trace) {
        return new UpstreamHead(
                HeaderRules.forwardedFor(forwardedFor, clientAddress),
                forwardedProto != null ? forwardedProto : scheme,
                forwardedHost != null ? forwardedHost : clientHost,
                clientHost,
                requestId,
                trace);
    }

    /**
     * Writes the added headers of one upstream request.
     *
     * @param rules the route's header rules (its {@code request-headers} sets)
     * @param policySets the policies' sets ({@code UpstreamEdits.set()}), empty when none
     * @param authority the endpoint's {@code host:port}, or null when the endpoint is chosen later,
     *     per try (the blocking client's balancing); on a {@code preserve-host} route ({@link
     *     HeaderRules#preservesHost}) the client's {@code Host} is written instead, either way
     * @return whether {@code Host} is left to the endpoint's authority: {@code authority} was null,
     *     the route does not preserve the client's Host, and neither the route nor a policy sets
     *     {@code Host}; the engine's client then writes {@code Host: <endpoint's host:port>} ({@link
     *     #HOST}) once it has chosen the endpoint, and otherwise no {@code Host} of its own
     */
    public boolean addTo(HeaderRules rules, Map<String, String> policySets, String authority, Sink out) {
        Map<String, String> routeSets = rules.requestSets();
        boolean plain = routeSets.isEmpty() && policySets.isEmpty(); // the common route: nothing to weigh
        String hostField = rules.preservesHost() && clientHost != null ? clientHost : authority;
        boolean endpointHost = plain || !setLater(HOST, rules, policySets);
        if (hostField != null && endpointHost) {
            out.add(HOST, hostField);
        }
        add(RequestId.HEADER, requestId, plain, rules, policySets, out);
        add(TraceContext.TRACEPARENT, trace.traceparent(), plain, rules, policySets, out);
        if (trace.tracestate() != null) {
            add(TraceContext.TRACESTATE, trace.tracestate(), plain, rules, policySets, out);
        }
        add(X_FORWARDED_FOR, forwardedFor, plain, rules, policySets, out);
        add(X_FORWARDED_PROTO, proto, plain, rules, policySets, out);
        if (host != null) {
            add(X_FORWARDED_HOST, host, plain, rules, policySets, out);
        }
        if (plain) {
            return hostField == null;
        }
        for (Map.Entry<String, String> set : routeSets.entrySet()) {
            if (!named(set.getKey(), policySets)) {
                out.add(set.getKey(), set.getValue());
            }
        }
        for (Map.Entry<String, String> set : policySets.entrySet()) {
            out.add(set.getKey(), set.getValue());
        }
        return hostField == null && endpointHost;
    }

    private static void add(
            String name, String value, boolean plain, HeaderRules rules, Map<String, String> policySets, Sink out) {
        if (plain || !setLater(name, rules, policySets)) {
            out.add(name, value);
        }
    }

    /** Whether the route or a policy sets {@code name}, which then replaces the gateway's value. */
    private static boolean setLater(String name, HeaderRules rules, Map<String, String> policySets) {
        return rules.setsRequest(name) || named(name, policySets);
    }

    /** Whether {@code sets} has {@code name} in any case: a policy sets a header or two. */
    private static boolean named(String name, Map<String, String> sets) {
        if (sets.isEmpty()) {
            return false;
        }
        for (String set : sets.keySet()) {
            if (set.equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    /** The exchange's {@code X-Request-Id}. */
    public String requestId() {
        return requestId;
    }

    /** The exchange's trace context. */
    public TraceContext trace() {
        return trace;
    }
}
