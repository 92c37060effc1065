package dev.sluice.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.FilterConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The local token bucket, on a clock the test moves. */
class RateLimitTest {

    private final AtomicLong clock = new AtomicLong(1_000_000_000_000L);

    private RateLimit limit(FilterConfig.RateKey key, long permits, Duration per, long burst, int maxKeys) {
        return RateLimit.local(FilterConfig.RateLimit.local(key, permits, per, burst), clock::get, maxKeys);
    }

    private RateLimit limit(long permits, Duration per, long burst) {
        return limit(FilterConfig.RateKey.clientAddress(), permits, per, burst, 1000);
    }

    private static GivenRequest from(String address) {
        return given(address, Map.of(), Map.of());
    }

    private int admitted(RateLimit limit, InboundPolicy.Inbound request, int tries) {
        int admitted = 0;
        for (int i = 0; i < tries; i++) {
            if (limit.admit(request) instanceof Decision.Proceed) {
                admitted++;
            }
        }
        return admitted;
    }

    private void advance(Duration d) {
        clock.addAndGet(d.toNanos());
    }

    @Test
    void aFullBucketAdmitsPermitsAtOnceThenRefillsOneTokenPerInterval() {
        RateLimit limit = limit(5, Duration.ofSeconds(1), 0);
        InboundPolicy.Inbound a = from("10.0.0.1");
        assertThat(admitted(limit, a, 10)).as("a full bucket: permits at once").isEqualTo(5);
        advance(Duration.ofMillis(199));
        assertThat(admitted(limit, a, 1)).as("a token every 200 ms: not yet").isZero();
        advance(Duration.ofMillis(1));
        assertThat(admitted(limit, a, 3)).as("one token after 200 ms").isEqualTo(1);
        advance(Duration.ofSeconds(10));
        assertThat(admitted(limit, a, 10))
                .as("a bucket never holds more than its size")
                .isEqualTo(5);
    }

    @Test
    void burstIsTheBucketSizeBeyondPermitsAndTheRateStaysPermitsPerPer() {
        RateLimit limit = limit(10, Duration.ofSeconds(1), 5);
        InboundPolicy.Inbound a = from("10.0.0.1");
        assertThat(admitted(limit, a, 100)).isEqualTo(15);
        int over10s = 0;
        for (int ms = 0; ms < 10_000; ms += 10) {
            advance(Duration.ofMillis(10));
            over10s += admitted(limit, a, 3);
        }
        assertThat(over10s).as("the steady rate: 10 per second over 10 s").isEqualTo(100);
    }

    @Test
    void aRefusalIs429WithRetryAfterAndTheRateLimitFields() {
        RateLimit limit = limit(2, Duration.ofSeconds(10), 1);
        InboundPolicy.Inbound a = from("10.0.0.1");
        assertThat(admitted(limit, a, 3)).isEqualTo(3);
        advance(Duration.ofMillis(500));
        Decision.Reject refused = (Decision.Reject) limit.admit(a);
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.code()).isEqualTo("rate_limited");
        assertThat(refused.message()).contains("client-address");
        // a token every 5 s: the next one 4.5 s away; full again 15 s after the first request, 14.5 s away
        assertThat(refused.headers())
                .containsEntry("Retry-After", "5")
                .containsEntry("RateLimit-Limit", "3")
                .containsEntry("RateLimit-Remaining", "0")
                .containsEntry("RateLimit-Reset", "15");
        assertThat(new String(refused.body(), java.nio.charset.StandardCharsets.UTF_8))
                .contains("\"error\":\"rate_limited\"")
                .contains("\"status\":429");
    }

    @Test
    void keysByHeaderAreSeparateBucketsAndAMissingValueFallsBackToTheAddress() {
        RateLimit limit = limit(FilterConfig.RateKey.header("x-client"), 2, Duration.ofMinutes(1), 0, 1000);
        InboundPolicy.Inbound alice = given("10.0.0.1", Map.of("x-client", "alice"), Map.of());
        InboundPolicy.Inbound bob = given("10.0.0.1", Map.of("x-client", "bob"), Map.of());
        InboundPolicy.Inbound anonymous = from("10.0.0.1");
        InboundPolicy.Inbound anonymousElsewhere = from("10.0.0.2");
        assertThat(admitted(limit, alice, 5)).isEqualTo(2);
        assertThat(admitted(limit, bob, 5)).as("another client, same address").isEqualTo(2);
        assertThat(admitted(limit, anonymous, 5))
                .as("no header: the address's bucket")
                .isEqualTo(2);
        assertThat(admitted(limit, anonymous, 1)).isZero();
        assertThat(admitted(limit, anonymousElsewhere, 5)).isEqualTo(2);
    }

    @Test
    void claimAndApiKeyKeysReadTheChainsAttributes() {
        RateLimit byClaim = limit(
                new FilterConfig.RateKey(FilterConfig.RateKey.Kind.CLAIM, "sub"), 1, Duration.ofMinutes(1), 0, 10);
        RateLimit byKey =
                limit(new FilterConfig.RateKey(FilterConfig.RateKey.Kind.API_KEY, ""), 1, Duration.ofMinutes(1), 0, 10);
        InboundPolicy.Inbound u1 = given("10.0.0.1", Map.of(), Map.of("claim:sub", "u1", "api-key", "shop"));
        InboundPolicy.Inbound u2 = given("10.0.0.1", Map.of(), Map.of("claim:sub", "u2", "api-key", "mobile"));
        assertThat(byClaim.keyOf(u1)).isEqualTo("val:u1");
        assertThat(byKey.keyOf(u2)).isEqualTo("val:mobile");
        assertThat(admitted(byClaim, u1, 3) + admitted(byClaim, u2, 3)).isEqualTo(2);
        assertThat(admitted(byKey, u1, 3) + admitted(byKey, u2, 3)).isEqualTo(2);
        assertThat(byClaim.keyOf(from("10.0.0.9"))).isEqualTo("addr:10.0.0.9");
    }

    @Test
    void aRouteKeyIsOneBucketForEveryClient() {
        RateLimit limit = limit(FilterConfig.RateKey.route(), 3, Duration.ofMinutes(1), 0, 10);
        assertThat(admitted(limit, from("10.0.0.1"), 2) + admitted(limit, from("10.0.0.2"), 2))
                .isEqualTo(3);
    }

    @Test
    void manyKeysStayWithinTheBoundAndIdleKeysAreForgotten() {
        RateLimit limit = limit(FilterConfig.RateKey.header("x-client"), 10, Duration.ofSeconds(1), 0, 500);
        for (int i = 0; i < 20_000; i++) {
            limit.admit(given("10.0.0.1", Map.of("x-client", "c" + i), Map.of()));
        }
        assertThat(limit.localKeys()).as("at most maxKeys").isLessThanOrEqualTo(500);
        advance(Duration.ofSeconds(3)); // longer than the bucket takes to fill (1 s) plus the 1 s margin
        assertThat(limit.localKeys()).as("idle keys expire").isZero();
        String huge = "x".repeat(10_000);
        assertThat(limit.keyOf(given("10.0.0.1", Map.of("x-client", huge), Map.of())))
                .as("a long value is kept as its digest")
                .startsWith("val:sha256:")
                .hasSizeLessThan(64);
    }

    @Test
    void nThreadsTogetherNeverTakeMoreThanTheBucketHolds() throws Exception {
        RateLimit limit = limit(1000, Duration.ofHours(1), 24); // no refill worth a token during the test
        InboundPolicy.Inbound a = from("10.0.0.1");
        int threads = 8;
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Integer>> counts = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            for (int t = 0; t < threads; t++) {
                counts.add(pool.submit(() -> {
                    start.await();
                    return admitted(limit, a, 5_000);
                }));
            }
            start.countDown();
            int total = 0;
            for (Future<Integer> count : counts) {
                total += count.get();
            }
            assertThat(total).isEqualTo(1024);
        }
    }

    @Test
    void aSharedStoreThatFailsDecidesByOnStoreFailure() throws Exception {
        RateStore failing = new RateStore() {
            @Override
            public java.util.concurrent.CompletionStage<TokenBucket.Take> take(String key, TokenBucket bucket) {
                return java.util.concurrent.CompletableFuture.failedFuture(new java.io.IOException("down"));
            }

            @Override
            public void close() {}
        };
        var allow = new FilterConfig.RateLimit(
                FilterConfig.RateKey.route(), 1, Duration.ofSeconds(1), 0, FilterConfig.RateLimit.Store.REDIS, true);
        var deny = new FilterConfig.RateLimit(
                FilterConfig.RateKey.route(), 1, Duration.ofSeconds(1), 0, FilterConfig.RateLimit.Store.REDIS, false);
        Decision open = RateLimit.shared(allow, failing, "r:0:").admit(from("10.0.0.1"));
        Decision closed = RateLimit.shared(deny, failing, "r:0:").admit(from("10.0.0.1"));
        assertThat(((Decision.Pending) open).decision().toCompletableFuture().get())
                .isInstanceOf(Decision.Proceed.class);
        Decision.Reject refused = (Decision.Reject)
                ((Decision.Pending) closed).decision().toCompletableFuture().get();
        assertThat(refused.status()).isEqualTo(503);
        assertThat(refused.code()).isEqualTo("rate_limit_unavailable");
    }

    @Test
    void anAdmittedRequestsResponseCarriesTheRateLimitFields() {
        RateLimit limit = limit(2, Duration.ofMinutes(1), 1); // a bucket of 3, a token every 30 s
        InboundPolicy.Inbound a = from("10.0.0.1");
        assertThat(limit.admit(a))
                .isInstanceOfSatisfying(
                        Decision.Proceed.class,
                        p -> assertThat(p.response().set())
                                .containsEntry("RateLimit-Limit", "3")
                                .containsEntry("RateLimit-Remaining", "2")
                                .containsEntry("RateLimit-Reset", "30"));
        assertThat(limit.admit(a))
                .isInstanceOfSatisfying(
                        Decision.Proceed.class,
                        p -> assertThat(p.response().set())
                                .containsEntry("RateLimit-Remaining", "1")
                                .containsEntry("RateLimit-Reset", "60"));
        advance(Duration.ofSeconds(10));
        assertThat(limit.admit(a))
                .isInstanceOfSatisfying(
                        Decision.Proceed.class,
                        p -> assertThat(p.response().set())
                                .containsEntry("RateLimit-Remaining", "0")
                                .containsEntry("RateLimit-Reset", "80"));
    }

    @Test
    void theClientAddressKeyIsTheForwardedClientBehindTheRoutesTrustedProxies() {
        RateLimit limit = limit(1, Duration.ofMinutes(1), 0).resolving(ClientAddress.trusting(List.of("10.0.0.5")));
        InboundPolicy.Inbound viaProxy = given("10.0.0.5", Map.of("x-forwarded-for", "203.0.113.9"), Map.of());
        InboundPolicy.Inbound otherViaProxy = given("10.0.0.5", Map.of("x-forwarded-for", "203.0.113.10"), Map.of());
        assertThat(limit.keyOf(viaProxy)).isEqualTo("addr:203.0.113.9");
        assertThat(admitted(limit, viaProxy, 2))
                .as("one client behind the proxy")
                .isEqualTo(1);
        assertThat(admitted(limit, otherViaProxy, 1))
                .as("another client behind the same proxy")
                .isEqualTo(1);
        InboundPolicy.Inbound forged = given("198.51.100.7", Map.of("x-forwarded-for", "203.0.113.11"), Map.of());
        assertThat(limit.keyOf(forged))
                .as("an untrusted peer's X-Forwarded-For is not believed")
                .isEqualTo("addr:198.51.100.7");
        assertThat(limit(1, Duration.ofMinutes(1), 0).keyOf(viaProxy))
                .as("no trusted proxy: the peer")
                .isEqualTo("addr:10.0.0.5");
    }

    /** A request from {@code address} with these headers (lower-case names) and chain attributes. */
    private static GivenRequest given(String address, Map<String, String> headers, Map<String, String> attributes) {
        return GivenRequest.from(address).withHeaders(headers).withAttributes(attributes);
    }
}
