package dev.sluice.observe;

import static java.util.Objects.requireNonNull;

/**
 * A request a route would have mirrored was not, or not whole: its copy was dropped because {@code
 * max-in-flight} copies were outstanding, or its body is longer than the mirror's {@code max-body}
 * (known from its Content-Length, or found while it streamed: the copy is then aborted). (A copy
 * sent is reported as an {@link UpstreamEvent} of the mirror's upstream.)
 */
public record MirrorEvent(String route, String upstream, Outcome outcome) {
    public MirrorEvent {
        requireNonNull(route, "route");
        requireNonNull(upstream, "upstream");
        requireNonNull(outcome, "outcome");
    }

    public enum Outcome {
        /** {@code max-in-flight} copies were outstanding. */
        DROPPED("dropped"),
        /** The request's body is longer than {@code max-body}: not copied, or its copy aborted. */
        BODY_TOO_LARGE("body_too_large");

        private final String label;

        Outcome(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }
}
