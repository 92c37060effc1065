package dev.sluice.policy;

import static java.util.Objects.requireNonNull;

import dev.sluice.http.ErrorBody;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * What an {@link InboundPolicy} decides about a request. Engines carry it out in their own model:
 * {@link Proceed} runs the route (and releases the permit when the response is over), {@link Reject}
 * answers an error at once, {@link Answer} answers at once without a body, {@link Pending} waits for
 * a later decision without blocking an event loop (a virtual thread parks, the reactive engine
 * subscribes).
 */
public sealed interface Decision {

    /**
     * Go on to the route; {@link Permit#release()} once the response is over, whatever became of it.
     *
     * @param attributes identity the policy established, for the policies after it ({@link
     *     InboundPolicy.Inbound#attribute}): {@code claim:<name>}, {@code api-key}. Not copied: pass
     *     a map nobody changes afterwards.
     * @param edits what every upstream request of the exchange carries besides the client's
     *     headers ({@link UpstreamEdits})
     * @param response what every response head of the exchange carries besides the route's ({@link
     *     ResponseEdits}): CORS and {@code RateLimit-*} fields
     */
    record Proceed(Permit permit, Map<String, String> attributes, UpstreamEdits edits, ResponseEdits response)
            implements Decision {
        /** Proceed, holding nothing. */
        public static final Proceed FREELY = new Proceed(Permit.NONE);

        public Proceed {
            requireNonNull(permit, "permit");
            requireNonNull(attributes, "attributes");
            requireNonNull(edits, "edits");
            requireNonNull(response, "response");
        }

        /** Proceed holding {@code permit}, with attributes and upstream edits, and no response edit. */
        public Proceed(Permit permit, Map<String, String> attributes, UpstreamEdits edits) {
            this(permit, attributes, edits, ResponseEdits.NONE);
        }

        /** Proceed holding {@code permit}, with no attribute and no edit. */
        public Proceed(Permit permit) {
            this(permit, Map.of(), UpstreamEdits.NONE, ResponseEdits.NONE);
        }

        /** Proceed holding nothing, with attributes and edits. */
        public static Proceed with(Map<String, String> attributes, UpstreamEdits edits) {
            return attributes.isEmpty() && edits.isEmpty() ? FREELY : new Proceed(Permit.NONE, attributes, edits);
        }

        /** Proceed holding nothing, with response edits only. */
        public static Proceed responding(ResponseEdits response) {
            return response.isEmpty() ? FREELY : new Proceed(Permit.NONE, Map.of(), UpstreamEdits.NONE, response);
        }
    }

    /**
     * Answer {@code status} with the contract's JSON error body and {@code headers}; the upstream sees
     * nothing.
     *
     * @param policy the kind of policy that refused ({@code jwt}, {@code rate-limit}…), for observers;
     *     {@link PolicyChain} names it, a policy leaves it empty
     */
    record Reject(int status, String code, String message, Map<String, String> headers, String policy)
            implements Decision {
        public Reject {
            requireNonNull(code, "code");
            requireNonNull(message, "message");
            requireNonNull(policy, "policy");
            headers = Map.copyOf(headers);
        }

        public Reject(int status, String code, String message, Map<String, String> headers) {
            this(status, code, message, headers, "");
        }

        /** This refusal, named as {@code policy}'s (itself when it already is). */
        public Reject by(String policy) {
            return policy.equals(this.policy) ? this : new Reject(status, code, message, headers, policy);
        }

        public byte[] body() {
            return ErrorBody.of(status, code, message);
        }
    }

    /**
     * Answer {@code status} with {@code headers} and no body, the gateway's own answer that is not an
     * error (a CORS preflight's {@code 204}); the upstream sees nothing.
     */
    record Answer(int status, Map<String, String> headers) implements Decision {
        public Answer {
            headers = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(headers));
        }
    }

    /**
     * The decision comes later (a queue, a remote store). The engine must not block an event loop on
     * it; when the client goes away first it calls {@link #abandon()}.
     */
    record Pending(CompletionStage<Decision> decision) implements Decision {
        public Pending {
            requireNonNull(decision, "decision");
        }

        /**
         * The client is gone: cancels the wait, or releases the permit of a decision that came just
         * before.
         */
        public void abandon() {
            var future = decision.toCompletableFuture();
            if (!future.cancel(false)) {
                future.thenAccept(Decision::release);
            }
        }
    }

    /** Releases what a decision holds (a {@link Proceed}'s permit); nothing for the others. */
    static void release(Decision decision) {
        if (decision instanceof Proceed p) {
            p.permit().release();
        } else if (decision instanceof Pending p) {
            p.abandon();
        }
    }

    /** Something a request holds while it runs (a concurrency slot). Released once; more calls do nothing. */
    interface Permit {
        Permit NONE = () -> {};

        void release();

        /** Both permits, released together. */
        default Permit and(Permit other) {
            if (other == NONE) {
                return this;
            }
            if (this == NONE) {
                return other;
            }
            Permit first = this;
            return () -> {
                first.release();
                other.release();
            };
        }
    }
}
