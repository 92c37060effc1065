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

    /** What a policy may read of a request. */
    interface Inbound {
        String method();

        /** The normalised path the route matched. */
        String path();

        /** The first value of a request header, or null. */
        String header(String name);

        /** The route's id. */
        String route();

        /** The client's IP address as a literal ({@code 203.0.113.7}, {@code 2001:db8::1}): the peer of the connection. */
        String clientAddress();

        /**
         * What a policy earlier in the chain learned about the request, by name: {@code claim:<name>}
         * (a verified JWT claim), {@code api-key} (the authenticated key's name); null when unknown.
         */
        default String attribute(String name) {
            return null;
        }
    }
}
