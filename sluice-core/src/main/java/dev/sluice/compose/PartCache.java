package dev.sluice.compose;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.sluice.config.PartCaching;
import dev.sluice.config.ServerLimits;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * The gateway's part cache (Caffeine), shared by every part with {@code cache:}: a part's upstream
 * answer, kept whole in memory while fresh, so that the next composition relays it at once without
 * calling the upstream. The one place a part is held whole, within bounds: {@code
 * server.limits.max-part-cache} for all entries (weighed in bytes), the part's {@code max-entry} for
 * one (a bigger body streams through uncached).
 *
 * <pre>
 *   lookup(upstream, path, request headers) ──► hit: Entry (relay from memory, _meta "cached": true)
 *                                          └──► miss: call the upstream; record(...) copies the body
 *                                               as it streams and keeps it at its end, if storable
 * </pre>
 *
 * <p>Keyed by the part's upstream request: its upstream, its path (query included; parts are always
 * {@code GET}) and the values of the request headers its upstream's {@code Vary} names ({@code Host}
 * aside: the key names the upstream already). Freshness
 * ({@link #freshNanos}): the upstream's {@code s-maxage} or {@code max-age} less its {@code Age},
 * else the part's {@code ttl}; {@code no-store}, {@code no-cache}, {@code private}, {@code Vary: *}
 * or a status other than 200 keep nothing (no revalidation). Time is Caffeine's {@link Ticker}, so
 * tests drive expiry. Thread-safe.
 */
public final class PartCache {

    private static final char SEPARATOR = '\n';

    private final Cache<String, Entry> entries;
    private final Cache<String, List<String>> varies; // primary key → the header names its answer varies by
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder evictions = new LongAdder();

    /** A cached answer: its Content-Type and whole body. */
    public record Entry(String contentType, byte[] body, long freshNanos) {
        public Entry {
            requireNonNull(body, "body");
        }
    }

    /**
     * @param maxBytes what all entries together may weigh (body and key bytes)
     * @param ticker Caffeine's clock: {@link Ticker#systemTicker()}, or a test's
     */
    public PartCache(long maxBytes, Ticker ticker) {
        if (maxBytes < 1) {
            throw new IllegalArgumentException("maxBytes: " + maxBytes + " (expected: > 0)");
        }
        this.entries = Caffeine.newBuilder()
                .maximumWeight(maxBytes)
                .weigher(
                        (String key, Entry e) -> (int) Math.min(Integer.MAX_VALUE, (long) e.body.length + key.length()))
                .expireAfter(Expiry.creating((String key, Entry e) -> java.time.Duration.ofNanos(e.freshNanos)))
                .ticker(ticker)
                .executor(Runnable::run) // maintenance on the caller: evictions counted when they happen
                .evictionListener((String key, Entry e, RemovalCause cause) -> evictions.increment())
                .build();
        this.varies = Caffeine.newBuilder()
                .maximumSize(Math.max(16, maxBytes / 1024))
                .ticker(ticker)
                .executor(Runnable::run)
                .build();
    }

    /** The gateway's cache for {@code limits}, or empty when {@code max-part-cache} is 0. */
    public static Optional<PartCache> of(ServerLimits limits) {
        return limits.maxPartCache() == 0
                ? Optional.empty()
                : Optional.of(new PartCache(limits.maxPartCache(), Ticker.systemTicker()));
    }

    /**
     * The fresh answer to a part's request, counted as a hit, or empty (a miss).
     *
     * @param upstream the part's upstream's name
     * @param path the request target sent to it (base path and query included)
     * @param requestHeaders the part request's header values by name (any case), null when absent
     */
    public Optional<Entry> lookup(String upstream, String path, Function<String, String> requestHeaders) {
        String primary = primary(upstream, path);
        List<String> names = varies.getIfPresent(primary);
        Entry hit = names == null ? null : entries.getIfPresent(key(primary, names, requestHeaders));
        if (hit == null) {
            misses.increment();
            return Optional.empty();
        }
        hits.increment();
        return Optional.of(hit);
    }

    /**
     * A recorder for an answer that may be kept, or null when it may not (its status, {@code
     * Cache-Control}, {@code Vary: *}, no freshness, a declared length over {@code max-entry}).
     *
     * @param responseHeaders the upstream answer's header values by name (any case), null when absent
     */
    public Recorder record(
            String upstream,
            String path,
            PartCaching policy,
            int status,
            Function<String, String> responseHeaders,
            Function<String, String> requestHeaders) {
        if (status != 200) {
            return null;
        }
        long fresh = freshNanos(
                responseHeaders.apply("Cache-Control"),
                responseHeaders.apply("Age"),
                policy.ttl().map(java.time.Duration::toNanos).orElse(-1L));
        if (fresh <= 0) {
            return null;
        }
        String vary = responseHeaders.apply("Vary");
        List<String> names = varyNames(vary);
        if (names == null) {
            return null; // Vary: *
        }
        String length = responseHeaders.apply("Content-Length");
        if (length != null) {
            try {
                if (Long.parseLong(length.trim()) > policy.maxEntryBytes()) {
                    return null;
                }
            } catch (NumberFormatException e) {
                return null;
            }
        }
        String primary = primary(upstream, path);
        return new Recorder(
                primary,
                names,
                key(primary, names, requestHeaders),
                responseHeaders.apply("Content-Type"),
                fresh,
                policy.maxEntryBytes());
    }

    /**
     * How long an answer stays fresh, in nanoseconds, or 0 when it must not be kept: {@code
     * no-store}, {@code no-cache} and {@code private} keep nothing; else {@code s-maxage}, {@code
     * max-age}, else {@code ttlNanos} (negative: none), less {@code Age}.
     */
    public static long freshNanos(String cacheControl, String age, long ttlNanos) {
        long seconds = -1;
        long shared = -1;
        if (cacheControl != null) {
            for (String directive : cacheControl.split(",")) {
                String d = directive.trim().toLowerCase(Locale.ROOT);
                if (d.equals("no-store")
                        || d.equals("no-cache")
                        || d.startsWith("no-cache=")
                        || d.equals("private")
                        || d.startsWith("private=")) {
                    return 0;
                }
                if (d.startsWith("max-age=")) {
                    seconds = deltaSeconds(d.substring(8));
                } else if (d.startsWith("s-maxage=")) {
                    shared = deltaSeconds(d.substring(9));
                }
            }
        }
        long fresh = shared >= 0 ? shared * 1_000_000_000L : seconds >= 0 ? seconds * 1_000_000_000L : ttlNanos;
        if (fresh <= 0) {
            return 0;
        }
        long aged = age == null ? 0 : Math.max(0, deltaSeconds(age.trim()));
        return Math.max(0, fresh - aged * 1_000_000_000L);
    }

    /** A delta-seconds value (RFC 9111 §1.2.2), -1 when it is not one; huge ones are capped at a year. */
    private static long deltaSeconds(String value) {
        String v = value.startsWith("\"") && value.endsWith("\"") && value.length() > 1
                ? value.substring(1, value.length() - 1)
                : value;
        if (v.isEmpty() || v.length() > 12 || !v.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        return Math.min(Long.parseLong(v), 365L * 24 * 3600);
    }

    /** The header names a {@code Vary} value lists, lower-cased and sorted; null for {@code *}. */
    private static List<String> varyNames(String vary) {
        if (vary == null || vary.isBlank()) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        for (String name : vary.split(",")) {
            String n = name.trim().toLowerCase(Locale.ROOT);
            if (n.equals("*")) {
                return null;
            }
            if (!n.isEmpty() && !n.equals("host") && !names.contains(n)) { // the key has the upstream
                names.add(n);
            }
        }
        names.sort(null);
        return List.copyOf(names);
    }

    private static String primary(String upstream, String path) {
        return upstream + ' ' + path;
    }

    private static String key(String primary, List<String> names, Function<String, String> requestHeaders) {
        if (names.isEmpty()) {
            return primary;
        }
        StringBuilder key = new StringBuilder(primary);
        for (String name : names) {
            String value = requestHeaders.apply(name);
            key.append(SEPARATOR).append(name).append('=').append(value == null ? "" : value.replace('\n', ' '));
        }
        return key.toString();
    }

    /** Lookups that found a fresh answer. */
    public long hits() {
        return hits.sum();
    }

    /** Lookups that found none. */
    public long misses() {
        return misses.sum();
    }

    /** Entries removed before they were replaced or invalidated: past their freshness, or for room. */
    public long evictions() {
        entries.cleanUp();
        return evictions.sum();
    }

    /** What the entries weigh now, in bytes. */
    public long bytes() {
        return entries.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
    }

    /**
     * Copies an answer's body as it streams (only for a part that may be kept: no other part pays
     * for it) and keeps it at {@link #finish()}; one past {@code max-entry} is dropped at once and
     * the rest of its body streams uncopied. Used by one fetch at a time.
     */
    public final class Recorder {
        private final String primary;
        private final List<String> names;
        private final String key;
        private final String contentType;
        private final long freshNanos;
        private final long max;
        private byte[] bytes = new byte[256];
        private int size;
        private boolean dropped;

        private Recorder(
                String primary, List<String> names, String key, String contentType, long freshNanos, long max) {
            this.primary = primary;
            this.names = names;
            this.key = key;
            this.contentType = contentType;
            this.freshNanos = freshNanos;
            this.max = max;
        }

        /** Copies {@code n} body bytes; false once the body is over {@code max-entry} (then it copies no more). */
        public boolean add(byte[] b, int off, int n) {
            if (dropped || !room(n)) {
                return false;
            }
            System.arraycopy(b, off, bytes, size, n);
            size += n;
            return true;
        }

        /** {@link #add(byte[], int, int)} for a buffer's remaining bytes, its position unmoved. */
        public boolean add(ByteBuffer b) {
            int n = b.remaining();
            if (dropped || !room(n)) {
                return false;
            }
            b.duplicate().get(bytes, size, n);
            size += n;
            return true;
        }

        private boolean room(int n) {
            if ((long) size + n > max) {
                dropped = true;
                bytes = null;
                return false;
            }
            if (size + n > bytes.length) {
                bytes = Arrays.copyOf(bytes, (int) Math.min(max, Math.max((long) size + n, 2L * bytes.length)));
            }
            return true;
        }

        /** The body ended whole: keep it (a body over {@code max-entry} is not kept). */
        public void finish() {
            if (dropped || size == 0) {
                return;
            }
            byte[] body = size == bytes.length ? bytes : Arrays.copyOf(bytes, size);
            bytes = null;
            dropped = true; // kept once
            varies.put(primary, names);
            entries.put(key, new Entry(contentType, body, freshNanos));
        }
    }
}
