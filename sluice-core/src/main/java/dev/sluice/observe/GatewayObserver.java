package dev.sluice.observe;

/**
 * What metrics, access logs and traces consume: one event per request, one per composition part and
 * one per upstream call, with timings, sizes and outcomes. Engines and the core call it on the request's own thread or
 * event loop, so an implementation must be quick and must not block (hand the event to a queue).
 *
 * <p>{@link #NONE} costs nothing: engines and the core check for it before they read a clock or
 * build an event.
 */
public interface GatewayObserver {

    /** Listens to nothing. */
    GatewayObserver NONE = new GatewayObserver() {};

    /** A request was answered, or its response aborted. */
    default void exchange(ExchangeEvent event) {}

    /** A composition part settled: relayed, {@code null}, or cut short by the response's failure or abort. */
    default void part(PartEvent event) {}

    /** An upstream call ended: answered (its status line came) or failed. */
    default void upstream(UpstreamEvent event) {}

    /** A route's mirror copy was dropped or skipped ({@link MirrorEvent}). */
    default void mirror(MirrorEvent event) {}

    /**
     * A client's protocol error (plain HTTP on a TLS port, a failed handshake, a refused
     * renegotiation, an h2 protocol error…), reported through {@link ClientProtocolErrors}.
     */
    default void clientProtocolError(ClientProtocolError kind) {}

    /**
     * Whether it records traces (exports spans): then a trace the gateway begins (no valid {@code
     * traceparent} from the client) goes upstream marked sampled, since its root span is recorded.
     * A client's trace keeps the client's flag either way.
     */
    default boolean recordsTraces() {
        return false;
    }

    /** Whether anyone listens: false only for {@link #NONE}. */
    default boolean listens() {
        return this != NONE;
    }
}
