package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.time.Duration;

/**
 * The top-level {@code redis:} section: the Redis that rate limits with {@code store: redis} share
 * ({@code redis: {url: "redis://127.0.0.1:6379", timeout: 100ms}}).
 *
 * @param url a {@code redis://} or {@code rediss://} URL, as Lettuce reads it
 * @param timeout the longest a decision waits for Redis before {@code on-store-failure} decides
 * @param prefix what every key the gateway writes begins with
 */
public record RedisConfig(URI url, Duration timeout, String prefix) {

    public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(100);
    public static final String DEFAULT_PREFIX = "sluice:rl:";

    public RedisConfig {
        requireNonNull(url, "url");
        requireNonNull(timeout, "timeout");
        requireNonNull(prefix, "prefix");
    }

    public RedisConfig(URI url) {
        this(url, DEFAULT_TIMEOUT, DEFAULT_PREFIX);
    }

    /** Without the URL's password: a reload's refusal names this section ({@link ConfigChange}). */
    @Override
    public String toString() {
        return "RedisConfig[url=" + Redact.url(url) + ", timeout=" + timeout + ", prefix=" + prefix + "]";
    }
}
