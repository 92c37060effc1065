package dev.sluice.policy;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.sluice.config.FilterConfig;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The {@code rate-limit} filter: a {@link TokenBucket} per key, and {@code 429 rate_limited} with
 * {@code Retry-After} and the {@code RateLimit-Limit}, {@code RateLimit-Remaining} and {@code
 * RateLimit-Reset} fields (draft-ietf-httpapi-ratelimit-headers-06, the last draft with these separate fields) when the
 * request's bucket is empty. The upstream never sees a refused request.
 *
 * <p>{@code store: local} keeps the buckets in this process: a bounded map ({@value #MAX_LOCAL_KEYS}
 * keys, least recently used first out) where a key idle for as long as its bucket takes to fill is
 * forgotten, which changes nothing (a forgotten key starts full, as it would have been). {@code
 * store: redis} asks the shared {@link RateStore}; its answer is a {@link Decision.Pending}, so an
 * event loop never waits on Redis, and a store that fails or is slow decides by {@code
 * on-store-failure}.
 *
 * <p>A key whose value is missing (no such header, no claim or API key because no authentication
 * filter ran before) falls back to the client's address: a request never escapes its limit by
 * leaving a header out, and anonymous clients are limited one address at a time. The client's
 * address is the route's {@link ClientAddress}: behind a trusted proxy, the forwarded client.
 *
 * <p>An admitted request's response carries the same {@code RateLimit-*} fields ({@link
 * ResponseEdits}), {@code RateLimit-Remaining} being the tokens left after it.
 */
public final class RateLimit implements InboundPolicy {

    /** The most keys a local store keeps per filter. */
    public static final int MAX_LOCAL_KEYS = 100_000;

    /** Key values longer than this are kept as their SHA-256, so a key costs a bounded amount of memory. */
    static final int MAX_KEY_CHARS = 128;

    private final FilterConfig.RateKey key;
    private final String claimAttribute;
    private final TokenBucket bucket;
    private final LongSupplier nanoClock;
    private final Cache<String, AtomicLong> local; // null for a shared store
    private final RateStore shared; // null for a local store
    private final String sharedPrefix;
    private final boolean failOpen;
    private final String limitHeader;
    private final ClientAddress client;

    private RateLimit(
            FilterConfig.RateLimit config, LongSupplier nanoClock, int maxKeys, RateStore shared, String sharedPrefix) {
        requireNonNull(config, "config");
        this.key = config.key();
        this.claimAttribute = "claim:" + key.name();
        this.bucket = TokenBucket.of(config);
        this.nanoClock = requireNonNull(nanoClock, "nanoClock");
        this.failOpen = config.failOpen();
        this.limitHeader = Long.toString(bucket.capacity());
        this.shared = shared;
        this.sharedPrefix = sharedPrefix;
        this.local = shared != null
                ? null
                : Caffeine.newBuilder()
                        .maximumSize(maxKeys)
                        .expireAfterAccess(
                                Duration.ofNanos(bucket.windowNanos()).plusSeconds(1))
                        .ticker(nanoClock::getAsLong)
                        .build();
        this.client = ClientAddress.PEER;
    }

    /** {@code other}'s buckets and settings, with the client address resolved by {@code client}. */
    private RateLimit(RateLimit other, ClientAddress client) {
        this.key = other.key;
        this.claimAttribute = other.claimAttribute;
        this.bucket = other.bucket;
        this.nanoClock = other.nanoClock;
        this.failOpen = other.failOpen;
        this.limitHeader = other.limitHeader;
        this.shared = other.shared;
        this.sharedPrefix = other.sharedPrefix;
        this.local = other.local;
        this.client = requireNonNull(client, "client");
    }

    /**
     * This rate limit (the same buckets) with the {@code client-address} key, and the fallback of a
     * missing value, resolved by {@code client} (the route's trusted proxies).
     */
    public RateLimit resolving(ClientAddress client) {
        return client == this.client ? this : new RateLimit(this, client);
    }

    /** A rate limit whose buckets live in this process, on {@code nanoClock} (tests inject one). */
    public static RateLimit local(FilterConfig.RateLimit config, LongSupplier nanoClock, int maxKeys) {
        return new RateLimit(config, nanoClock, maxKeys, null, null);
    }

    public static RateLimit local(FilterConfig.RateLimit config) {
        return local(config, System::nanoTime, MAX_LOCAL_KEYS);
    }

    /**
     * A rate limit whose buckets live in {@code store}, under keys that begin with {@code prefix}
     * (which names the route and the filter, so that gateways sharing the store share buckets).
     */
    public static RateLimit shared(FilterConfig.RateLimit config, RateStore store, String prefix) {
        return new RateLimit(config, System::nanoTime, 0, requireNonNull(store, "store"), requireNonNull(prefix));
    }

    /** For a filter of {@code route}: a local store, or the resources' shared one. */
    public static RateLimit of(FilterConfig.RateLimit config, String route, int index, PolicyResources resources) {
        return switch (config.store()) {
            case LOCAL -> local(config, resources.ticker(), MAX_LOCAL_KEYS);
            case REDIS -> shared(config, resources.sharedStore(), route + ":" + index + ":");
        };
    }

    @Override
    public String name() {
        return "rate-limit";
    }

    @Override
    public Decision admit(Inbound request) {
        String id = keyOf(request);
        if (local != null) {
            AtomicLong tat = local.get(id, k -> new AtomicLong(TokenBucket.FULL));
            return decide(bucket.take(tat, nanoClock.getAsLong()));
        }
        CompletableFuture<Decision> decision = new CompletableFuture<>();
        CompletableFuture<TokenBucket.Take> take;
        try {
            take = shared.take(sharedPrefix + id, bucket).toCompletableFuture();
        } catch (RuntimeException e) {
            return storeFailed();
        }
        take.whenComplete((answer, error) -> decision.complete(error != null ? storeFailed() : decide(answer)));
        decision.whenComplete((d, e) -> {
            if (decision.isCancelled()) {
                take.cancel(false);
            }
        });
        return new Decision.Pending(decision);
    }

    /** The bucket's name for a request: the key's kind and value, the client address when the value is missing. */
    String keyOf(Inbound request) {
        String value = switch (key.kind()) {
            case ROUTE -> "";
            case CLIENT_ADDRESS -> null;
            case HEADER -> request.header(key.name());
            case CLAIM -> request.attribute(claimAttribute);
            case API_KEY -> request.attribute("api-key");
        };
        if (key.kind() == FilterConfig.RateKey.Kind.ROUTE) {
            return "route";
        }
        if (value == null) {
            return "addr:" + client.resolve(request);
        }
        return "val:" + bounded(value);
    }

    /** The number of keys a local store holds now (after pending evictions), for tests and gauges. */
    public long localKeys() {
        if (local == null) {
            return 0;
        }
        local.cleanUp();
        return local.estimatedSize();
    }

    private Decision decide(TokenBucket.Take take) {
        if (take.admitted()) { // the same fields as a refusal's, on the admitted response
            return Decision.Proceed.responding(ResponseEdits.settingUnchanged(Map.of(
                    "RateLimit-Limit",
                    limitHeader,
                    "RateLimit-Remaining",
                    Long.toString(take.remaining()),
                    "RateLimit-Reset",
                    Long.toString(ceilSeconds(take.resetNanos())))));
        }
        String retry = Long.toString(ceilSeconds(take.retryNanos()));
        return new Decision.Reject(
                429,
                "rate_limited",
                "the " + key.spelling() + " rate limit of this route is used up (" + limitHeader
                        + " requests at once, then " + perSecond() + "); retry in " + retry + " s",
                Map.of(
                        "Retry-After",
                        retry,
                        "RateLimit-Limit",
                        limitHeader,
                        "RateLimit-Remaining",
                        "0",
                        "RateLimit-Reset",
                        Long.toString(ceilSeconds(take.resetNanos()))));
    }

    private String perSecond() {
        double rate = 1e9 / bucket.intervalNanos();
        return rate >= 1
                ? String.format(java.util.Locale.ROOT, "%.4g per second", rate)
                : String.format(java.util.Locale.ROOT, "one every %.4g s", 1 / rate);
    }

    private Decision storeFailed() {
        return failOpen
                ? Decision.Proceed.FREELY
                : new Decision.Reject(
                        503,
                        "rate_limit_unavailable",
                        "the rate limit's shared store did not answer in time and on-store-failure is deny",
                        Map.of("Retry-After", "1"));
    }

    static long ceilSeconds(long nanos) {
        return Math.max(0, nanos / 1_000_000_000L + (nanos % 1_000_000_000L > 0 ? 1 : 0));
    }

    private static String bounded(String value) {
        if (value.length() <= MAX_KEY_CHARS) {
            return value;
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
            return "sha256:" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }
}
