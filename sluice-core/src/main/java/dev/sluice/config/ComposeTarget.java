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
 */
public record ComposeTarget(
        Fanout fanout, Order order, OnError onError, Duration timeout, boolean validateJson, List<PartConfig> parts)
        implements Target {

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
