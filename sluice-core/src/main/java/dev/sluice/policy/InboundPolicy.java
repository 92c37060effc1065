package dev.sluice.policy;

/**
 * A decision about a request before it reaches its route's upstreams: authentication, rate limits,
 * concurrency limits. Written once in the core; every engine asks it the same way, on the request's
 * own thread or event loop, so {@link #admit} must never block (what must wait returns a {@link
 * Decision.Pending}).
 */
@FunctionalInterface
public interface InboundPolicy {

    Decision admit(Inbound request);

    /**
     * What observers call the policy when it refuses ({@code jwt}, {@code api-key}, {@code ip-filter},
     * {@code rate-limit}, {@code concurrency}, {@code server-limits}).
     */
    default String name() {
        return "policy";
    }

    /** The attribute prefix of a verified JWT claim: {@code claim:sub}. */
    String CLAIM = "claim:";

    /** The attribute naming the API key that authenticated the request. */
    String API_KEY = "api-key";

    /** What a policy may read of a request. */
    interface Inbound {
        String method();

        /** The normalised path the route matched. */
        String path();

        /** The first value of a request header, or null. */
        String header(String name);

        /** The route's id. */
        String route();

        /** The raw query string, without the '?', or null when the request has none. */
        String query();

        /** The client's IP address as a literal ({@code 203.0.113.7}, {@code 2001:db8::1}): the peer of the connection. */
        String clientAddress();

        /**
         * An identity attribute that a policy earlier in the chain established, or null: {@code
         * claim:<name>} (a verified JWT claim's value as text, such as {@code claim:sub}) or {@code
         * api-key} (the name of the API key that authenticated the request).
         */
        default String attribute(String name) {
            return null;
        }
    }
}
