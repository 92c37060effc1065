package dev.sluice.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A typed filter on a route. Edge functions (authentication, rate limits, retries, circuit breakers)
 * join this sealed family as they are built; engines apply them with a switch over the permitted
 * types.
 */
public sealed interface FilterConfig {

    /**
     * Rewrites request headers before they go upstream: {@code request-headers: {set: {..}, remove: [..]}}.
     *
     * @param set header name → value, replacing any value the client sent
     * @param remove header names (lower case) to drop
     */
    record RequestHeaders(Map<String, String> set, List<String> remove) implements FilterConfig {
        public RequestHeaders {
            set = Map.copyOf(set);
            remove = List.copyOf(remove);
        }
    }

    /**
     * Isolates a slow route: {@code concurrency: {max: 200, queue: 100, queue-timeout: 1s}}. At most
     * {@code max} requests in flight; up to {@code queue} more wait at most {@code queueTimeout} for a
     * slot; beyond that, {@code 503 overloaded}.
     */
    record Concurrency(int max, int queue, Duration queueTimeout) implements FilterConfig {
        public Concurrency {
            java.util.Objects.requireNonNull(queueTimeout, "queueTimeout");
        }
    }

    /**
     * The largest request body this route takes, counted as it streams: {@code max-body: 10MiB}.
     * Overrides {@code server.limits.max-body}; beyond it, {@code 413 content_too_large} and the
     * upstream request is aborted, never ended.
     */
    record MaxBody(long bytes) implements FilterConfig {}

    /** Rewrites response headers before they reach the client: {@code response-headers: {set, remove}}. */
    record ResponseHeaders(Map<String, String> set, List<String> remove) implements FilterConfig {
        public ResponseHeaders {
            set = Map.copyOf(set);
            remove = List.copyOf(remove);
        }
    }

    /**
     * A token bucket per key: {@code rate-limit: {key: client-address, permits: 100, per: 1s, burst: 20,
     * store: local, on-store-failure: allow}}. The bucket holds at most {@code permits + burst}
     * tokens, starts full and refills continuously at {@code permits} per {@code per}; a request takes
     * one token, or is answered {@code 429 rate_limited} when there is none.
     *
     * @param key what requests share a bucket by
     * @param store where the buckets live: in this process, or in the top-level {@code redis:}
     * @param failOpen what a request gets when the store cannot answer in time: through (true), or 503
     */
    record RateLimit(RateKey key, long permits, Duration per, long burst, Store store, boolean failOpen)
            implements FilterConfig {
        public RateLimit {
            java.util.Objects.requireNonNull(key, "key");
            java.util.Objects.requireNonNull(per, "per");
            java.util.Objects.requireNonNull(store, "store");
            if (permits < 1 || burst < 0 || per.isNegative() || per.isZero()) {
                throw new IllegalArgumentException("rate-limit: permits >= 1, burst >= 0 and per > 0 (got " + permits
                        + ", " + burst + ", " + per + ")");
            }
        }

        /** A bucket in this process (which never fails to answer). */
        public static RateLimit local(RateKey key, long permits, Duration per, long burst) {
            return new RateLimit(key, permits, per, burst, Store.LOCAL, true);
        }

        /** Where buckets live. */
        public enum Store {
            LOCAL,
            REDIS
        }
    }

    /**
     * What a rate limit counts requests by: {@code client-address}, {@code header:<name>}, {@code
     * claim:<name>} (a verified JWT claim), {@code api-key} (the authenticated key's name) or {@code
     * route} (one bucket for the whole route).
     *
     * @param kind the kind of key
     * @param name the header's (lower case) or claim's name; empty for the others
     */
    record RateKey(Kind kind, String name) {
        public RateKey {
            java.util.Objects.requireNonNull(kind, "kind");
            java.util.Objects.requireNonNull(name, "name");
        }

        public static RateKey clientAddress() {
            return new RateKey(Kind.CLIENT_ADDRESS, "");
        }

        public static RateKey header(String name) {
            return new RateKey(Kind.HEADER, name.toLowerCase(java.util.Locale.ROOT));
        }

        public static RateKey route() {
            return new RateKey(Kind.ROUTE, "");
        }

        /** The key as the configuration spells it. */
        public String spelling() {
            return switch (kind) {
                case CLIENT_ADDRESS -> "client-address";
                case HEADER -> "header:" + name;
                case CLAIM -> "claim:" + name;
                case API_KEY -> "api-key";
                case ROUTE -> "route";
            };
        }

        public enum Kind {
            CLIENT_ADDRESS,
            HEADER,
            CLAIM,
            API_KEY,
            ROUTE
        }
    }
}
