package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.List;

/**
 * Streamed API composition: the parts' JSON bodies are spliced, verbatim, into {@code {"<part>":
 * <bytes>, ..., "_meta": {...}}} as they arrive.
 *
 * @param fanout {@code parallel} (default) or {@code sequential}
 * @param order {@code arrival} (default): whichever part is ready first is relayed first; {@code
 *     declared}: the configured order
 * @param onError {@code partial} (default): a failed part is {@code null} and reported in {@code
 *     _meta}; {@code fail}: 502/504 before the status line is committed
 * @param timeout bound on the whole composition (default 10s)
 * @param validateJson check each part's bytes are JSON, not only its Content-Type (default false)
 * @param parts in declared order, names unique
 * @param delivery the formats the route serves, in preference order (default {@code [JSON]}): one
 *     format is served whatever {@code Accept} says; several are negotiated by {@code Accept} (see
 *     {@code dev.sluice.compose.DeliveryNegotiation})
 * @param requirements {@code status-from} and {@code require} ({@link Requirements#NONE}: neither)
 */
public record ComposeTarget(
        Fanout fanout,
        Order order,
        OnError onError,
        Duration timeout,
        boolean validateJson,
        List<PartConfig> parts,
        List<Delivery> delivery,
        Requirements requirements)
        implements Target {

    /** How the parts reach the client. */
    public enum Delivery {
        /** One JSON object, {@code {"<part>": ..., "_meta": {...}}} (the default). */
        JSON("json", "application/json"),
        /** A JSON line per part, then a line for {@code _meta}. */
        NDJSON("ndjson", "application/x-ndjson"),
        /** A server-sent event per part, then an event for {@code _meta}. */
        SSE("sse", "text/event-stream"),
        /** {@code multipart/mixed} as GraphQL's incremental delivery: a JSON payload per part. */
        MULTIPART("multipart", "multipart/mixed; boundary=\"-\"");

        private final String configName;
        private final String contentType;

        Delivery(String configName, String contentType) {
            this.configName = configName;
            this.contentType = contentType;
        }

        /** The name in the config ({@code delivery: ndjson}). */
        public String configName() {
            return configName;
        }

        /** The response's Content-Type. */
        public String contentType() {
            return contentType;
        }

        /** The media type alone, without parameters ({@code multipart/mixed}). */
        public String mediaType() {
            int semi = contentType.indexOf(';');
            return semi < 0 ? contentType : contentType.substring(0, semi);
        }
    }

    /** A composition without {@code status-from} or {@code require}. */
    public ComposeTarget(
            Fanout fanout,
            Order order,
            OnError onError,
            Duration timeout,
            boolean validateJson,
            List<PartConfig> parts,
            List<Delivery> delivery) {
        this(fanout, order, onError, timeout, validateJson, parts, delivery, Requirements.NONE);
    }

    /** A composition delivered as one JSON object. */
    public ComposeTarget(
            Fanout fanout,
            Order order,
            OnError onError,
            Duration timeout,
            boolean validateJson,
            List<PartConfig> parts) {
        this(fanout, order, onError, timeout, validateJson, parts, List.of(Delivery.JSON));
    }

    public enum Fanout {
        PARALLEL,
        SEQUENTIAL
    }

    public enum Order {
        ARRIVAL,
        DECLARED
    }

    public enum OnError {
        PARTIAL,
        FAIL
    }

    public ComposeTarget {
        requireNonNull(fanout, "fanout");
        requireNonNull(order, "order");
        requireNonNull(onError, "onError");
        requireNonNull(timeout, "timeout");
        parts = List.copyOf(parts);
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("parts: [] (expected: at least one part)");
        }
        delivery = List.copyOf(delivery);
        if (delivery.isEmpty() || delivery.stream().distinct().count() != delivery.size()) {
            throw new IllegalArgumentException("delivery: " + delivery + " (expected: distinct formats, at least one)");
        }
        requireNonNull(requirements, "requirements");
    }

    /** Whether {@code Accept} chooses the format (the route serves several): the response then varies by it. */
    public boolean negotiatesDelivery() {
        return delivery.size() > 1;
    }

    /**
     * Whether an {@code Accept} that allows none of the route's formats is refused (406): when the
     * route negotiates among some formats, not all ({@code delivery: negotiate} serves its first,
     * JSON, to such a request, as a route with one format does).
     */
    public boolean refusesUnacceptable() {
        return negotiatesDelivery() && delivery.size() < Delivery.values().length;
    }

    /** Whether parts are relayed in declared order: asked for, or implied by fetching them one after another. */
    public boolean relaysInDeclaredOrder() {
        return order == Order.DECLARED || fanout == Fanout.SEQUENTIAL;
    }

    /**
     * Whether a response waiting for every part's status line ({@code on-error: fail}) commits as soon
     * as a part's {@code read-ahead} is full: fetched one after another, such a part can only end by
     * being relayed, so the parts after it cannot answer first. A part failing after that is {@code
     * null}.
     */
    public boolean commitsWhenAPartIsFull() {
        return fanout == Fanout.SEQUENTIAL;
    }
}
