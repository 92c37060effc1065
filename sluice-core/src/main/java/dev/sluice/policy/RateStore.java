package dev.sluice.policy;

import dev.sluice.config.RedisConfig;
import java.util.concurrent.CompletionStage;

/**
 * Buckets kept outside the process, shared by every gateway that uses the same store ({@code store:
 * redis}). Implementations register a {@link Factory} through {@link java.util.ServiceLoader}
 * ({@code sluice-redis}), so the core depends on no client library.
 */
public interface RateStore extends AutoCloseable {

    /**
     * Takes a token from the bucket {@code key} (already namespaced), whose size and refill {@code
     * bucket} gives. Never blocks: the answer comes later, or the stage fails (the store is down or
     * slower than its timeout).
     */
    CompletionStage<TokenBucket.Take> take(String key, TokenBucket bucket);

    @Override
    void close();

    /** Opens a store for the configuration's {@code redis:} section. */
    interface Factory {
        RateStore open(RedisConfig config);
    }
}
