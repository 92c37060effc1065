package dev.sluice.compose;

import dev.sluice.observe.ExchangeTally;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.observe.PartEvent;
import dev.sluice.observe.PartKind;
import dev.sluice.observe.UpstreamEvent;
import dev.sluice.observe.UpstreamOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * What a {@link CompositionPlan} reports, apart from its steps: each part's {@link PartOutcome} as
 * it settles, told to the observer (and the exchange's tally once all have), and {@code _meta}.
 * Guarded as the plan is.
 */
final class CompositionReport {

    private final String route;
    private final GatewayObserver observer;
    private final ExchangeTally tally; // null when nobody listens
    private final LongSupplier clock;
    private final long start;
    private final PartState[] parts;
    private int settled;

    CompositionReport(
            String route,
            GatewayObserver observer,
            ExchangeTally tally,
            LongSupplier clock,
            long start,
            PartState[] parts) {
        this.route = route;
        this.observer = observer;
        this.tally = tally;
        this.clock = clock;
        this.start = start;
        this.parts = parts;
    }

    /** Whether every part has settled. */
    boolean allSettled() {
        return settled == parts.length;
    }

    /** {@code ,"_meta":{...}}} with every part's outcome. */
    byte[] meta() {
        return JsonSplice.meta(outcomes(), extras(), clock.getAsLong() - start);
    }

    /** The closing bytes of a composition delivered part by part, with {@code _meta}. */
    byte[] meta(DeliveryFrames frames) {
        return frames.meta(outcomes(), extras(), clock.getAsLong() - start);
    }

    /**
     * A collection part's entry's added members, {@code ,"elements":[...]} (and {@code ,"skipped":n}
     * for elements past {@code max}); null when no part is a collection.
     */
    private List<String> extras() {
        List<String> extras = null;
        for (int i = 0; i < parts.length; i++) {
            PartState p = parts[i];
            if (p.col == null || !p.col.listed) {
                continue;
            }
            if (extras == null) {
                extras = new ArrayList<>(java.util.Collections.nCopies(parts.length, (String) null));
            }
            StringBuilder sb = new StringBuilder(",\"elements\":[");
            for (int e = 0; e < p.col.count; e++) {
                PartState el = p.col.elements[e];
                if (e > 0) {
                    sb.append(',');
                }
                long end = (el.failed || el.ended ? el.endNanos : clock.getAsLong()) - start;
                sb.append("{\"status\":").append(el.status);
                sb.append(",\"latency_ms\":").append(JsonSplice.millis(end));
                sb.append(",\"bytes\":").append(el.relayed);
                if (el.attempts > 1) {
                    sb.append(",\"attempts\":").append(el.attempts);
                }
                if (el.failed) {
                    sb.append(",\"error\":").append(JsonSplice.quote(el.error));
                }
                sb.append('}');
            }
            sb.append(']');
            if (p.col.skipped > 0) {
                sb.append(",\"skipped\":").append(p.col.skipped);
            }
            extras.set(i, sb.toString());
        }
        return extras;
    }

    private List<PartOutcome> outcomes() {
        List<PartOutcome> outcomes = new ArrayList<>(parts.length);
        for (PartState p : parts) {
            outcomes.add(p.outcome);
        }
        return outcomes;
    }

    /** Part {@code p} is written (relayed whole, or {@code null}): its outcome is final. */
    void settle(PartState p) {
        p.outcome = (p.failed
                        ? PartOutcome.failed(p.config.name(), p.status, p.error, p.endNanos - start)
                        : PartOutcome.ok(p.config.name(), p.status, p.endNanos - start, p.relayed))
                .withAttempts(p.attempts);
        if (p.cached) {
            p.outcome = p.outcome.fromCache();
        }
        settled++;
        if (observer.listens()) {
            tell(p, p.failed ? p.kind : PartKind.OK);
            if (settled == parts.length) {
                tallyParts();
            }
        }
    }

    /** Tells the observer of part {@code p}'s settling, and of its upstream call if it made one. */
    private void tell(PartState p, PartKind kind) {
        long firstByte = p.answeredNanos < 0 ? -1 : p.answeredNanos - p.startNanos;
        p.event = new PartEvent(route, p.config.upstream(), p.outcome, kind, firstByte);
        observer.part(p.event);
        if (p.begun) {
            tellCall(p, kind);
        }
    }

    /**
     * A collection part's element is written (relayed whole, or {@code null}): the observer is told
     * of its upstream call, if it made one (the element is reported in its part's {@code _meta}).
     */
    void element(PartState e) {
        if (observer.listens() && e.begun) {
            tellCall(e, e.failed ? e.kind : PartKind.OK);
        }
    }

    private void tellCall(PartState p, PartKind kind) {
        long firstByte = p.answeredNanos < 0 ? -1 : p.answeredNanos - p.startNanos;
        UpstreamOutcome call;
        long latency;
        if (p.answeredNanos >= 0) {
            call = UpstreamOutcome.of(p.status);
            latency = firstByte;
        } else {
            call = p.failure != null
                    ? UpstreamOutcome.of(p.failure)
                    : kind == PartKind.TIMEOUT ? UpstreamOutcome.TIMEOUT : UpstreamOutcome.CANCELLED;
            latency = (p.failure != null ? p.failedNanos : p.failed ? p.endNanos : clock.getAsLong()) - p.startNanos;
        }
        observer.upstream(new UpstreamEvent(route, p.config.upstream(), call, p.status, latency));
    }

    private void tallyParts() {
        if (tally != null) {
            List<PartEvent> events = new ArrayList<>(parts.length);
            for (PartState p : parts) {
                events.add(p.event);
            }
            tally.parts(events);
        }
    }

    /**
     * The response failed or is aborted: tells the observer of every part not settled, a failed one
     * with its own error, the one being relayed and those never relayed with {@code reason}.
     */
    void closeOut(String reason) {
        if (!observer.listens()) {
            return;
        }
        long now = clock.getAsLong();
        for (PartState p : parts) {
            if (p.outcome == null) {
                String error = p.failed ? p.error : reason;
                long end = p.failed || p.ended ? p.endNanos : now;
                p.outcome = new PartOutcome(
                        p.config.name(), p.status, Optional.of(error), end - start, p.relayed, p.attempts);
                tell(p, p.failed ? p.kind : PartKind.ABORTED);
            }
        }
        tallyParts();
    }
}
