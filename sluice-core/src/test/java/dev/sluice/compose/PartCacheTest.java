package dev.sluice.compose;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.PartCaching;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The part cache's decisions, on a hand-moved ticker. */
class PartCacheTest {

    static final long S = 1_000_000_000L;
    long now = 7 * S;
    final PartCache cache = new PartCache(10_000, () -> now);
    static final Function<String, String> NO_HEADERS = name -> null;

    static Function<String, String> headers(Map<String, String> values) {
        return name -> values.entrySet().stream()
                .filter(e -> e.getKey().equalsIgnoreCase(name))
                .map(Map.Entry::getValue)
                .findFirst()
                .orElse(null);
    }

    boolean store(
            String path,
            PartCaching policy,
            Map<String, String> response,
            Function<String, String> request,
            String body) {
        PartCache.Recorder recorder = cache.record("up", path, policy, 200, headers(response), request);
        if (recorder == null) {
            return false;
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        int half = bytes.length / 2; // in two pieces, as a body streams
        recorder.add(bytes, 0, half);
        recorder.add(bytes, half, bytes.length - half);
        recorder.finish();
        return true;
    }

    Optional<String> lookup(String path, Function<String, String> request) {
        return cache.lookup("up", path, request).map(e -> new String(e.body(), StandardCharsets.UTF_8));
    }

    @Test
    void aFreshAnswerIsAHitUntilItsMaxAgePassesOnTheTicker() {
        assertThat(lookup("/p?id=1", NO_HEADERS)).isEmpty();
        assertThat(store(
                        "/p?id=1",
                        PartCaching.upstreamOnly(),
                        Map.of("Cache-Control", "public, max-age=30"),
                        NO_HEADERS,
                        "{\"a\":1}"))
                .isTrue();
        assertThat(lookup("/p?id=1", NO_HEADERS)).contains("{\"a\":1}");
        assertThat(lookup("/p?id=2", NO_HEADERS)).as("another request").isEmpty();
        now += 29 * S;
        assertThat(lookup("/p?id=1", NO_HEADERS)).isPresent();
        now += 1 * S;
        assertThat(lookup("/p?id=1", NO_HEADERS)).as("expired at 30 s").isEmpty();
        assertThat(cache.hits()).isEqualTo(2);
        assertThat(cache.misses()).isEqualTo(3);
        assertThat(cache.evictions()).isEqualTo(1);
    }

    @Test
    void theConfiguredTtlAppliesWhenTheUpstreamSaysNothingAndMaxAgeWinsWhenItDoes() {
        store("/a", PartCaching.ttl(Duration.ofSeconds(5)), Map.of(), NO_HEADERS, "1");
        store("/b", PartCaching.ttl(Duration.ofSeconds(5)), Map.of("Cache-Control", "max-age=60"), NO_HEADERS, "2");
        assertThat(store("/c", PartCaching.upstreamOnly(), Map.of(), NO_HEADERS, "3"))
                .as("no max-age, no ttl: nothing to go by")
                .isFalse();
        now += 5 * S;
        assertThat(lookup("/a", NO_HEADERS)).isEmpty();
        assertThat(lookup("/b", NO_HEADERS)).contains("2");
    }

    @Test
    void noStorePrivateNoCacheAndVaryStarKeepNothingAndAgeCounts() {
        PartCaching ttl = PartCaching.ttl(Duration.ofMinutes(1));
        assertThat(store("/1", ttl, Map.of("Cache-Control", "no-store"), NO_HEADERS, "x"))
                .isFalse();
        assertThat(store("/2", ttl, Map.of("Cache-Control", "private, max-age=60"), NO_HEADERS, "x"))
                .isFalse();
        assertThat(store("/3", ttl, Map.of("Cache-Control", "No-Cache"), NO_HEADERS, "x"))
                .isFalse();
        assertThat(store("/4", ttl, Map.of("Vary", "*"), NO_HEADERS, "x")).isFalse();
        assertThat(store("/5", ttl, Map.of("Cache-Control", "max-age=60", "Age", "60"), NO_HEADERS, "x"))
                .as("already stale")
                .isFalse();
        assertThat(store("/6", ttl, Map.of("Cache-Control", "max-age=60", "Age", "50"), NO_HEADERS, "x"))
                .isTrue();
        now += 10 * S;
        assertThat(lookup("/6", NO_HEADERS)).isEmpty();
        assertThat(cache.record("up", "/7", ttl, 404, NO_HEADERS, NO_HEADERS)).isNull();
    }

    @Test
    void varyKeysByTheNamedRequestHeaders() {
        PartCaching ttl = PartCaching.ttl(Duration.ofMinutes(1));
        store(
                "/v",
                ttl,
                Map.of("Vary", "X-Tenant, accept"),
                headers(Map.of("x-tenant", "a", "Accept", "application/json")),
                "A");
        assertThat(lookup("/v", headers(Map.of("X-Tenant", "a", "accept", "application/json"))))
                .contains("A");
        assertThat(lookup("/v", headers(Map.of("X-Tenant", "b", "accept", "application/json"))))
                .isEmpty();
        assertThat(lookup("/v", NO_HEADERS)).isEmpty();
    }

    @Test
    void aBodyOverMaxEntryIsNotKeptAndTheWholeCacheIsBoundedInBytes() {
        PartCaching small = new PartCaching(Optional.of(Duration.ofMinutes(1)), 4);
        assertThat(cache.record("up", "/big", small, 200, headers(Map.of("Content-Length", "5")), NO_HEADERS))
                .as("declared too long")
                .isNull();
        assertThat(store("/chunked", small, Map.of(), NO_HEADERS, "12345")).isTrue();
        assertThat(lookup("/chunked", NO_HEADERS))
                .as("grew past max-entry as it streamed")
                .isEmpty();

        PartCaching ttl = new PartCaching(Optional.of(Duration.ofMinutes(1)), 10_000);
        for (int i = 0; i < 5; i++) {
            store("/k" + i, ttl, Map.of(), NO_HEADERS, "x".repeat(3000));
        }
        assertThat(cache.bytes()).isLessThanOrEqualTo(10_000);
        assertThat(cache.evictions()).isGreaterThanOrEqualTo(2);
    }
}
