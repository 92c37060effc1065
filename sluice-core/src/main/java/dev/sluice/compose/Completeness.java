package dev.sluice.compose;

import dev.sluice.config.ComposeTarget;
import dev.sluice.config.PartConfig;
import dev.sluice.config.Requirements;
import dev.sluice.observe.PartKind;
import java.util.List;

/**
 * A composition's status and completeness, decided for its {@link CompositionPlan}: which parts the
 * head waits for ({@code on-error: fail}, {@code require}, {@code status-from}), which failure
 * answers an error instead of the composition, which one aborts it once its head is out, the status
 * the head carries, and whether {@value #HEADER} is known in time for the head or follows in a trailer.
 *
 * <pre>
 *   before COMMIT: a required part failed           → FAIL with its status (upstream 4xx/5xx, 504, 502)
 *   at COMMIT:     the status-from part failed      → that status, the composition after it
 *                  some part failed already         → header  X-Sluice-Completed: false
 *                  every part ended or required     → header  X-Sluice-Completed: true
 *                  otherwise, the client sent TE: trailers → Trailer: X-Sluice-Completed, sent at FINISH
 *                  otherwise                        → none (each part's fate is in _meta)
 *   after COMMIT:  a required part failed           → ABORT (the body never looks whole)
 * </pre>
 */
public final class Completeness {

    /** The response field saying whether every part was relayed ({@code true}) or some is {@code null}. */
    public static final String HEADER = "X-Sluice-Completed";

    private final boolean failFast;
    private final boolean[] required; // by part index: named in require
    private final int statusFrom; // -1: none
    private final boolean holds; // the head waits for some part's head

    Completeness(ComposeTarget target) {
        this.failFast = target.onError() == ComposeTarget.OnError.FAIL;
        Requirements r = target.requirements();
        List<PartConfig> parts = target.parts();
        this.required = new boolean[parts.size()];
        int from = -1;
        for (int i = 0; i < parts.size(); i++) {
            String name = parts.get(i).name();
            required[i] = r.require().contains(name);
            if (r.statusFrom().isPresent() && r.statusFrom().get().equals(name)) {
                from = i;
            }
        }
        this.statusFrom = from;
        this.holds = failFast || r.any();
    }

    /** Whether {@code p} is a configured part named in {@code require} (a collection's element never is). */
    private boolean required(PartState p) {
        return p.owner == null && p.index < required.length && required[p.index];
    }

    /** Whether the head waits for some part's head (else it goes with the first ready part). */
    boolean holdsHead() {
        return holds;
    }

    /** Whether the head waits for part {@code p}'s head (or its failure). */
    boolean holdsHeadFor(PartState p) {
        return p.owner == null && (failFast || required(p) || p.index == statusFrom);
    }

    /** Whether {@code p}, failed before the head, makes the response an error instead. */
    boolean refuses(PartState p) {
        return p.failed && p.owner == null && (required(p) || (failFast && !p.config.optional()));
    }

    /** Whether {@code p} failing after the head aborts the response rather than being {@code null}. */
    boolean abortsAfterCommit(PartState p) {
        return required(p);
    }

    /** The status of an error answered for {@code p} ({@link #refuses}). */
    int failureStatus(PartState p) {
        if (required(p)) {
            return partStatus(p);
        }
        return p.kind == PartKind.TIMEOUT ? 504 : 502; // on-error: fail
    }

    /**
     * The status a failed part stands for: its upstream's 4xx/5xx; for a call that failed, the
     * failure's ({@link dev.sluice.http.UpstreamFailure#status()}: 502, 503 or 504); 504 for the
     * part's deadline; else 502 (a body that is not JSON, or empty).
     */
    static int partStatus(PartState p) {
        if (p.kind == PartKind.STATUS && p.status >= 400 && p.status <= 599) {
            return p.status;
        }
        if (p.failure != null) {
            return p.failure.status();
        }
        return p.kind == PartKind.TIMEOUT ? 504 : 502;
    }

    /** The status of the committed head: the {@code status-from} part's when it failed, else 200. */
    int status(PartState[] parts) {
        return statusFrom >= 0 && parts[statusFrom].failed ? partStatus(parts[statusFrom]) : 200;
    }

    /**
     * {@value #HEADER}'s value when it is known at the head ({@code "false"}: a part failed already;
     * {@code "true"}: every part ended or is required, so the response ends whole or is aborted), or
     * null: it is sent as a trailer ({@link #trailer}) to a client that takes them ({@link #takesTrailers}).
     */
    String atCommit(PartState[] parts) {
        boolean known = true;
        for (PartState p : parts) {
            if (p.failed) {
                return "false";
            }
            known &= p.ended || required(p) || p.owner != null; // an element: its collection part says
        }
        return known ? "true" : null;
    }

    /**
     * Whether a request's {@code TE} field says the client takes trailers: the token {@code trailers}
     * in its comma-separated list, in any case (RFC 9110 §10.1.4). Null or anything else: no.
     */
    static boolean takesTrailers(String te) {
        if (te == null) {
            return false;
        }
        int at = 0;
        int n = te.length();
        while (at < n) {
            int end = te.indexOf(',', at);
            if (end < 0) {
                end = n;
            }
            int from = at;
            int to = end;
            while (from < to && (te.charAt(from) == ' ' || te.charAt(from) == '\t')) {
                from++;
            }
            while (to > from && (te.charAt(to - 1) == ' ' || te.charAt(to - 1) == '\t')) {
                to--;
            }
            if (to - from == 8 && te.regionMatches(true, from, "trailers", 0, 8)) {
                return true;
            }
            at = end + 1;
        }
        return false;
    }

    /** {@value #HEADER}'s value once every part settled: {@code "false"} when some part is {@code null}. */
    static String trailer(PartState[] parts) {
        for (PartState p : parts) {
            if (p.failed) {
                return "false";
            }
        }
        return "true";
    }
}
