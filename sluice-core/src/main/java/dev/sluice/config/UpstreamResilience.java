package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What keeps an upstream's calls going when part of it fails: its endpoints and how calls are spread
 * over them, the checks that take an endpoint out of the rotation, retries and circuit breakers
 * (docs/CONFIG.md, {@code upstreams.NAME}). Decided once in the core ({@code dev.sluice.upstream}).
 *
 * @param endpoints every endpoint, at least one, all with the same base path; {@code url} is the first
 * @param balance how a call picks its endpoint
 * @param healthCheck active checks of each endpoint, when configured
 * @param outlier passive ejection of an endpoint that keeps failing, unless turned off
 * @param retry retries of a failed call, when configured
 * @param circuitBreaker a breaker per endpoint, when configured
 */
public record UpstreamResilience(
        List<URI> endpoints,
        Balance balance,
        Optional<HealthCheck> healthCheck,
        Optional<Outlier> outlier,
        Optional<Retry> retry,
        Optional<CircuitBreaker> circuitBreaker) {

    public UpstreamResilience {
        endpoints = List.copyOf(endpoints);
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("endpoints: none (expected: at least one)");
        }
        requireNonNull(balance, "balance");
        requireNonNull(healthCheck, "healthCheck");
        requireNonNull(outlier, "outlier");
        requireNonNull(retry, "retry");
        requireNonNull(circuitBreaker, "circuitBreaker");
    }

    /** One endpoint, default outlier ejection (which never ejects the only endpoint), nothing else. */
    public static UpstreamResilience single(URI url) {
        return new UpstreamResilience(
                List.of(url),
                Balance.ROUND_ROBIN,
                Optional.empty(),
                Optional.of(Outlier.DEFAULT),
                Optional.empty(),
                Optional.empty());
    }

    /** How a call picks its endpoint among those in the rotation. */
    public enum Balance {
        /** Each in turn. */
        ROUND_ROBIN,
        /** The one with fewer calls in flight of two picked at random (power of two choices). */
        LEAST_IN_FLIGHT
    }

    /**
     * An active check: {@code GET path} on each endpoint every {@code interval}; a 2xx within {@code
     * timeout} passes. {@code unhealthyThreshold} failures in a row take the endpoint out of the
     * rotation, {@code healthyThreshold} passes in a row bring it back.
     */
    public record HealthCheck(
            String path, Duration interval, Duration timeout, int healthyThreshold, int unhealthyThreshold) {}

    /**
     * Passive ejection: {@code consecutiveFailures} failed calls in a row (a connection refused, reset
     * or timed out, an invalid answer, a 5xx) take an endpoint out for {@code baseEjection} times the
     * number of its ejections so far, at most {@code maxEjection}; at most {@code maxEjectedPercent} of
     * the endpoints (rounded down) are out at once, so the only endpoint is never ejected.
     */
    public record Outlier(int consecutiveFailures, Duration baseEjection, Duration maxEjection, int maxEjectedPercent) {
        public static final Outlier DEFAULT = new Outlier(5, Duration.ofSeconds(30), Duration.ofSeconds(300), 50);
    }

    /**
     * Retries of a call that failed before any byte of its answer was relayed.
     *
     * @param attempts tries in all, the first included (2 or more)
     * @param perTryTimeout longest wait for one try's response head, when set
     * @param backoffBase the first retry waits up to this (full jitter), each further one twice as long
     * @param backoffMax the longest wait between tries
     * @param on what is retried: {@code connect-failure}, {@code reset}, {@code timeout}, or a status
     * @param nonIdempotent whether POST and PATCH are retried too (never a request with a body)
     * @param budgetPercent retries in flight at most this share of the upstream's calls in flight…
     * @param minRetryConcurrency …or this many, whichever is more (Envoy's retry budget)
     */
    public record Retry(
            int attempts,
            Optional<Duration> perTryTimeout,
            Duration backoffBase,
            Duration backoffMax,
            Set<String> on,
            boolean nonIdempotent,
            int budgetPercent,
            int minRetryConcurrency,
            int replayBuffer) {
        public Retry {
            on = Set.copyOf(on);
        }
    }

    /**
     * A breaker per endpoint over the last {@code window} calls: once {@code minimumCalls} were made,
     * {@code failureRate} percent failed or {@code slowCallRate} percent took {@code slowCall} or more
     * opens it; calls then fail fast ({@code 503 circuit_open}) for {@code openFor}, after which {@code
     * halfOpenCalls} probes decide whether it closes or opens again.
     */
    public record CircuitBreaker(
            int failureRate,
            int slowCallRate,
            Duration slowCall,
            int window,
            int minimumCalls,
            Duration openFor,
            int halfOpenCalls) {}
}
