package dev.sluice.observe;

import static java.util.Objects.requireNonNull;

/**
 * A request a route would have mirrored was not: its copy was dropped because {@code max-in-flight}
 * copies were outstanding, or skipped because the request has a body. (A copy sent is reported as
 * an {@link UpstreamEvent} of the mirror's upstream.)
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
        /** The request has a body, which the gateway streams and never holds to copy. */
        SKIPPED_BODY("skipped_body");

        private final String label;

        Outcome(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }
}
