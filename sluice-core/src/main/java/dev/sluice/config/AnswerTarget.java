package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import dev.sluice.routing.RedirectLocation;

/**
 * A route the gateway answers itself, once its policies let the request through: a redirect or a
 * fixed response ({@code dev.sluice.engine.FrontDoor#answered} makes the answer; an engine only
 * writes it). No upstream is asked and the request's body is not read.
 */
public sealed interface AnswerTarget extends Target {

    /**
     * {@code redirect:}: a 301, 302, 307 or 308 whose {@code Location} is {@code location} expanded
     * for the request, the client's query appended when {@code keepQuery}.
     */
    record Redirect(RedirectLocation location, int status, boolean keepQuery) implements AnswerTarget {
        public Redirect {
            requireNonNull(location, "location");
            if (status != 301 && status != 302 && status != 307 && status != 308) {
                throw new IllegalArgumentException("status: " + status + " (expected: 301, 302, 307 or 308)");
            }
        }
    }

    /**
     * {@code respond:}: a fixed status and body.
     *
     * @param body the body (UTF-8), empty for none
     * @param contentType the body's content type (unused when the body is empty)
     */
    record Respond(int status, String body, String contentType) implements AnswerTarget {
        public Respond {
            requireNonNull(body, "body");
            requireNonNull(contentType, "contentType");
            if (status < 200 || status > 599) {
                throw new IllegalArgumentException("status: " + status + " (expected: 200 to 599)");
            }
        }

        public static final String TEXT = "text/plain; charset=utf-8";
    }
}
