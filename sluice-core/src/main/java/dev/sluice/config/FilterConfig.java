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
}
