package dev.sluice.config;

import dev.sluice.config.UpstreamResilience.Balance;
import dev.sluice.config.UpstreamResilience.CircuitBreaker;
import dev.sluice.config.UpstreamResilience.HealthCheck;
import dev.sluice.config.UpstreamResilience.Outlier;
import dev.sluice.config.UpstreamResilience.Retry;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Binds an upstream's {@code url} / {@code endpoints}, {@code balance}, {@code health-check}, {@code
 * outlier-detection}, {@code retry} and {@code circuit-breaker}, every problem by path.
 */
final class ResilienceBinder {

    static final String RETRY_ON_EXPECTED = "connect-failure, reset, timeout, 5xx, or a status 400..599 such as 503";

    private ResilienceBinder() {}

    /** Exactly one of {@code url} and {@code endpoints}; every endpoint a valid http:// or https:// URL, one scheme, one base path. */
    static Optional<List<URI>> endpoints(Mapping m) {
        boolean hasUrl = m.has("url");
        boolean hasEndpoints = m.has("endpoints");
        if (hasUrl && hasEndpoints) {
            m.problem("endpoints", "set beside url (expected: url for one endpoint, or endpoints for several)");
            return Optional.empty();
        }
        if (!hasEndpoints) {
            return m.requiredString("url", "an http:// or https:// URL such as http://127.0.0.1:8081")
                    .flatMap(u -> UpstreamBinder.url("url", u, m))
                    .map(List::of);
        }
        Optional<List<?>> list = m.list("endpoints", "a list of http:// or https:// URLs");
        if (list.isEmpty()) {
            return Optional.empty();
        }
        if (list.get().isEmpty()) {
            m.problem("endpoints", "empty (expected: a list of at least one http:// or https:// URL)");
            return Optional.empty();
        }
        List<URI> endpoints = new ArrayList<>();
        boolean bad = false;
        for (int i = 0; i < list.get().size(); i++) {
            String key = "endpoints[" + i + "]";
            Object item = list.get().get(i);
            if (!(item instanceof String text)) {
                m.problem(
                        key,
                        Mapping.describe(item)
                                + " (expected: an http:// or https:// URL such as http://10.0.0.7:8081)");
                bad = true;
                continue;
            }
            Optional<URI> url = UpstreamBinder.url(key, text, m);
            if (url.isEmpty()) {
                bad = true;
                continue;
            }
            if (endpoints.contains(url.get())) {
                m.problem(key, "'" + Redact.url(text) + "' is listed twice");
                bad = true;
                continue;
            }
            if (!endpoints.isEmpty()
                    && UpstreamConfig.isHttps(url.get()) != UpstreamConfig.isHttps(endpoints.getFirst())) {
                m.problem(
                        key,
                        "'" + Redact.url(text) + "' is " + url.get().getScheme()
                                + " (expected: the first endpoint's scheme, "
                                + endpoints.getFirst().getScheme() + ": one upstream, one way to reach it)");
                bad = true;
                continue;
            }
            if (!endpoints.isEmpty() && !basePath(url.get()).equals(basePath(endpoints.getFirst()))) {
                m.problem(
                        key,
                        "'" + Redact.url(text) + "' has base path '" + basePath(url.get())
                                + "' (expected: the first endpoint's, '" + basePath(endpoints.getFirst())
                                + "': a route's path is the same on every endpoint)");
                bad = true;
                continue;
            }
            endpoints.add(url.get());
        }
        return bad ? Optional.empty() : Optional.of(List.copyOf(endpoints));
    }

    private static String basePath(URI url) {
        String path = url.getRawPath() == null ? "" : url.getRawPath();
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    /** The rest of the upstream's resilience settings, given its endpoints. */
    static Optional<UpstreamResilience> bind(Mapping m, List<URI> endpoints) {
        int before = m.problems().size();
        Balance balance = switch (m.choice("balance", "round-robin", "round-robin", "least-in-flight")) {
            case "least-in-flight" -> Balance.LEAST_IN_FLIGHT;
            default -> Balance.ROUND_ROBIN;
        };
        Optional<HealthCheck> health = m.mapping("health-check", "a mapping such as {path: /health, interval: 5s}")
                .flatMap(ResilienceBinder::healthCheck);
        Optional<Outlier> outlier = Optional.of(Outlier.DEFAULT);
        if (m.has("outlier-detection")) {
            Object raw = m.raw("outlier-detection");
            if (Boolean.FALSE.equals(raw)) {
                outlier = Optional.empty();
            } else {
                outlier = m.mapping(
                                "outlier-detection",
                                "false, or a mapping such as {consecutive-failures: 5, base-ejection: 30s}")
                        .flatMap(ResilienceBinder::outlier);
            }
        }
        Optional<Retry> retry = m.mapping("retry", "a mapping such as {attempts: 3, on: [connect-failure, 503]}")
                .flatMap(ResilienceBinder::retry);
        Optional<CircuitBreaker> breaker = Optional.empty();
        if (m.has("circuit-breaker")) {
            breaker = m.mapping("circuit-breaker", "a mapping such as {failure-rate: 50, window: 20}")
                    .flatMap(ResilienceBinder::breaker);
        }
        if (m.problems().size() != before) {
            return Optional.empty();
        }
        return Optional.of(new UpstreamResilience(endpoints, balance, health, outlier, retry, breaker));
    }

    private static Optional<HealthCheck> healthCheck(Mapping m) {
        m.allowOnly("path", "interval", "timeout", "healthy-threshold", "unhealthy-threshold");
        int before = m.problems().size();
        Optional<String> path = m.requiredString("path", "a path such as /health");
        if (path.isPresent()
                && (!path.get().startsWith("/") || path.get().chars().anyMatch(c -> c <= ' ' || c >= 127))) {
            m.problem(
                    "path", "'" + path.get() + "' (expected: a path starting with / without spaces, such as /health)");
        }
        Duration interval = m.duration("interval", Duration.ofSeconds(5));
        Duration timeout = m.duration("timeout", Duration.ofSeconds(1));
        if (timeout.compareTo(interval) > 0) {
            m.problem(
                    "timeout", timeout + " is longer than interval " + interval + " (expected: at most the interval)");
        }
        int healthy = m.integer("healthy-threshold", 2, 1, 100, "an integer 1..100");
        int unhealthy = m.integer("unhealthy-threshold", 3, 1, 100, "an integer 1..100");
        if (path.isEmpty() || m.problems().size() != before) {
            return Optional.empty();
        }
        return Optional.of(new HealthCheck(path.get(), interval, timeout, healthy, unhealthy));
    }

    private static Optional<Outlier> outlier(Mapping m) {
        m.allowOnly("consecutive-failures", "base-ejection", "max-ejection", "max-ejected-percent");
        int before = m.problems().size();
        Outlier d = Outlier.DEFAULT;
        int failures = m.integer("consecutive-failures", d.consecutiveFailures(), 1, 1000, "an integer 1..1000");
        Duration base = m.duration("base-ejection", d.baseEjection());
        Duration max = m.duration("max-ejection", d.maxEjection());
        if (max.compareTo(base) < 0) {
            m.problem("max-ejection", max + " is shorter than base-ejection " + base + " (expected: at least it)");
        }
        int percent = m.integer("max-ejected-percent", d.maxEjectedPercent(), 0, 100, "a percentage 0..100");
        if (m.problems().size() != before) {
            return Optional.empty();
        }
        return Optional.of(new Outlier(failures, base, max, percent));
    }

    private static Optional<Retry> retry(Mapping m) {
        m.allowOnly("attempts", "per-try-timeout", "backoff", "on", "non-idempotent", "budget", "replay-buffer");
        int before = m.problems().size();
        int attempts = m.integer("attempts", 2, 2, 10, "an integer 2..10 (tries in all, the first included)");
        Optional<Duration> perTry = m.duration("per-try-timeout");
        Duration base = Duration.ofMillis(25);
        Duration max = Duration.ofMillis(250);
        Optional<Mapping> backoff = m.mapping("backoff", "a mapping such as {base: 25ms, max: 250ms}");
        if (backoff.isPresent()) {
            Mapping b = backoff.get();
            b.allowOnly("base", "max");
            base = b.duration("base", base);
            max = b.duration("max", base.multipliedBy(10));
            if (max.compareTo(base) < 0) {
                b.problem("max", max + " is shorter than base " + base + " (expected: at least it)");
            }
        }
        Set<String> on = new LinkedHashSet<>(List.of("connect-failure", "reset", "502", "503", "504"));
        Optional<List<?>> list = m.list("on", "a list of " + RETRY_ON_EXPECTED);
        if (list.isPresent()) {
            on.clear();
            for (int i = 0; i < list.get().size(); i++) {
                Object item = list.get().get(i);
                String text = item instanceof String || item instanceof Integer ? String.valueOf(item) : null;
                if (text == null || !retryOn(text)) {
                    m.problem("on[" + i + "]", Mapping.describe(item) + " (expected: " + RETRY_ON_EXPECTED + ")");
                } else {
                    on.add(text);
                }
            }
            if (list.get().isEmpty()) {
                m.problem("on", "empty (expected: a list of " + RETRY_ON_EXPECTED + ")");
            }
        }
        boolean nonIdempotent = m.bool("non-idempotent", false);
        int percent = 20;
        int minConcurrency = 3;
        Optional<Mapping> budget = m.mapping("budget", "a mapping such as {percent: 20, min-concurrency: 3}");
        if (budget.isPresent()) {
            Mapping b = budget.get();
            b.allowOnly("percent", "min-concurrency");
            percent = b.integer("percent", percent, 0, 100, "a percentage 0..100");
            minConcurrency = b.integer("min-concurrency", minConcurrency, 0, 100_000, "an integer >= 0");
        }
        int replay =
                m.size("replay-buffer", 64 * 1024, 0, "a size such as 64KiB (0: never retry a request with a body)");
        if (m.problems().size() != before) {
            return Optional.empty();
        }
        return Optional.of(new Retry(attempts, perTry, base, max, on, nonIdempotent, percent, minConcurrency, replay));
    }

    /** Whether {@code text} is a condition a retry may be made on. */
    static boolean retryOn(String text) {
        return switch (text) {
            case "connect-failure", "reset", "timeout", "5xx" -> true;
            default ->
                text.length() == 3
                        && text.chars().allMatch(Character::isDigit)
                        && Integer.parseInt(text) >= 400
                        && Integer.parseInt(text) <= 599;
        };
    }

    private static Optional<CircuitBreaker> breaker(Mapping m) {
        m.allowOnly(
                "failure-rate",
                "slow-call-rate",
                "slow-call-duration",
                "window",
                "minimum-calls",
                "open-for",
                "half-open-calls");
        int before = m.problems().size();
        int failureRate = m.integer("failure-rate", 50, 1, 100, "a percentage 1..100");
        int slowRate = m.integer("slow-call-rate", 100, 1, 100, "a percentage 1..100");
        Duration slow = m.duration("slow-call-duration", Duration.ofSeconds(10));
        int window = m.integer("window", 20, 1, 10_000, "an integer 1..10000 (calls)");
        int minimum = m.integer("minimum-calls", Math.min(10, window), 1, 10_000, "an integer 1..10000");
        if (minimum > window) {
            m.problem("minimum-calls", minimum + " is more than window " + window + " (expected: at most it)");
        }
        Duration openFor = m.duration("open-for", Duration.ofSeconds(10));
        int halfOpen = m.integer("half-open-calls", 3, 1, 1000, "an integer 1..1000");
        if (m.problems().size() != before) {
            return Optional.empty();
        }
        return Optional.of(new CircuitBreaker(failureRate, slowRate, slow, window, minimum, openFor, halfOpen));
    }
}
