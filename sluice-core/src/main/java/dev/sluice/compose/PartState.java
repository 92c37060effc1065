package dev.sluice.compose;

import dev.sluice.config.PartConfig;
import dev.sluice.http.UpstreamFailure;
import dev.sluice.observe.PartEvent;
import dev.sluice.observe.PartKind;

/** One part of a {@link CompositionPlan}: what has happened to it so far. Guarded as the plan is. */
final class PartState {
    final PartConfig config;
    final int index;
    final long deadline;
    final JsonValidator validator;
    final JsonShaper shaper;
    long capacity;
    int status;
    boolean begun;
    boolean answered;
    boolean ended;
    boolean failed;
    PartKind kind;
    UpstreamFailure failure; // the call's own failure, if it failed so
    long startNanos;
    long answeredNanos = -1;
    long failedNanos;
    String error;
    long endNanos;
    long buffered;
    long total;
    long relayed;
    boolean queued;
    int attempts = 1;
    boolean relayStarted;
    boolean cached; // answered from the part cache
    boolean successorStarted;
    // chains: this part waits for `after`'s values; a part others wait for has a tap and dependents
    int after = -1;
    String[] references; // this part's, in its path ({@code product:/reviewIds}); empty: it waits for the end
    int[] slots; // each reference's pointer in the earlier part's tap
    JsonPointerTap tap; // on a part others wait for: finds their values in its bytes
    int tapSeen; // the tap's resolved count when last looked at
    PartState[] dependents; // the parts waiting for this one, or null
    String target; // a chained part's target, once its values are known; an element's
    Collection col; // a collection part's fan-out, or null
    PartState owner; // an element's collection part, or null
    PartOutcome outcome;
    PartEvent event; // told to the observer, when one listens

    PartState(PartConfig config, int index, long deadline, long capacity, JsonValidator validator, JsonShaper shaper) {
        this.config = config;
        this.index = index;
        this.deadline = deadline;
        this.capacity = capacity;
        this.validator = validator;
        this.shaper = shaper;
    }

    /**
     * Ready to relay: answered, and its body has ended, or bytes are buffered (with validate-json
     * or shaping: the read-ahead is full, so a small body is checked whole first); or failed.
     */
    boolean isReady() {
        return failed
                || (answered
                        && (ended
                                || (buffered > 0 && ((validator == null && shaper == null) || buffered >= capacity))));
    }

    /** Answered, not ended, and its read-ahead is full: it can go on only by being relayed. */
    boolean isBlocked() {
        return answered && !ended && !failed && buffered >= capacity;
    }

    /** Its deadline still matters: being fetched (or waiting to be), or being relayed, and not ended. */
    boolean deadlineApplies() {
        if (col != null) {
            return !col.listed && !failed; // then its elements carry the deadline
        }
        return !ended && !failed && outcome == null && !(owner != null && !listedElement);
    }

    boolean listedElement;
    boolean callDone; // an element whose call is over, no longer counted in flight // an element slot given an element
    // (slots past the array's length stay idle)

    /** A collection part's elements: slots in the plan's part array, listed once its array has streamed past. */
    static final class Collection {
        final PartState[] elements; // max slots
        final int concurrency;
        final boolean arrival;
        boolean listed;
        int count; // elements listed (at most max)
        int skipped; // elements past max
        int started;
        int inFlight;
        int relayedCount;
        int current = -1; // the slot being relayed
        final int[] arrived; // arrival order: slots ready, each once
        int arrivedHead;
        int arrivedTail;

        Collection(PartState[] elements, int concurrency, boolean arrival) {
            this.elements = elements;
            this.concurrency = concurrency;
            this.arrival = arrival;
            this.arrived = new int[elements.length];
        }
    }
}
