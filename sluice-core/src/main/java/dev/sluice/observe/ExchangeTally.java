package dev.sluice.observe;

import java.util.List;

/**
 * What an exchange's route learns while it runs, for its {@link ExchangeEvent}: the upstream's time
 * to answer, the policy that refused it, its parts' outcomes. Engines make one per request only when
 * an observer {@linkplain GatewayObserver#listens() listens}, and the route's threads (a blocking
 * composition's fetchers) may write it while the request's own thread later reads it.
 */
public final class ExchangeTally {

    private volatile long upstreamNanos = -1;
    private volatile String refusedBy = "";
    private volatile String client = "";
    private volatile List<PartEvent> parts = List.of();
    private volatile int grpcStatus = -1;

    /** The upstream answered its status line {@code nanos} after the call began. */
    public void answered(long nanos) {
        upstreamNanos = nanos;
    }

    /** A policy refused the request. */
    public void refused(String policy) {
        refusedBy = policy;
    }

    /** The composition's parts, once every one has settled. */
    public void parts(List<PartEvent> events) {
        parts = events;
    }

    public long upstreamNanos() {
        return upstreamNanos;
    }

    public String refusedBy() {
        return refusedBy;
    }

    /** The route resolved the client through its trusted proxies ({@code PolicyChain.client}). */
    public void client(String address) {
        client = address;
    }

    /** The client the route resolved, or empty: the connection's peer is the client. */
    public String client() {
        return client;
    }

    /** The exchange's client: the one the route resolved, else {@code peer}. */
    public String clientOr(String peer) {
        String resolved = client;
        return resolved.isEmpty() ? peer : resolved;
    }

    public List<PartEvent> parts() {
        return parts;
    }

    /**
     * A gRPC call's status as it went to the client: the gateway's own, or the upstream's ({@code
     * grpc-status} in its trailers or trailers-only head); an unreadable value is ignored.
     */
    public void grpcStatus(String value) {
        if (value != null) {
            try {
                grpcStatus = Integer.parseInt(value.trim());
            } catch (NumberFormatException ignored) {
                // not a status: nothing to note
            }
        }
    }

    /** The gRPC status noted, or -1 (not a gRPC call, or none came). */
    public int grpcStatus() {
        return grpcStatus;
    }
}
