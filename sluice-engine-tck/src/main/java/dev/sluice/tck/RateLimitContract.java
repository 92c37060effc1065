package dev.sluice.tck;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.FilterConfig;
import dev.sluice.config.RedisConfig;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@code rate-limit} filter in every mode: a refused request is a JSON {@code 429} with {@code
 * Retry-After} and the {@code RateLimit-*} fields that the upstream never sees; keys by header are
 * separate buckets; and {@code store: redis} decides through a real Redis without blocking the
 * engine (a pending decision), with {@code on-store-failure} when Redis is gone.
 */
public abstract class RateLimitContract extends ContractFixture {

    private HttpResponse<byte[]> get(TestGateway gw, String target, String client) {
        HttpRequest.Builder request = HttpRequest.newBuilder(gw.uri(target)).GET();
        if (client != null) {
            request.header("x-client", client);
        }
        return send(gw, request);
    }

    @Test
    void aRequestOverTheLimitIsA429TheUpstreamNeverSeesAndKeysByHeaderAreSeparate() {
        String run = Long.toString(System.nanoTime());
        FilterConfig.RateLimit limit =
                FilterConfig.RateLimit.local(FilterConfig.RateKey.header("x-client"), 2, Duration.ofMinutes(1), 0);
        try (TestGateway gw = gateway()
                .route("limited", on("/limited/**"), proxy(APP).stripPrefix("/limited"), limit)
                .route("free", on("/free/**"), proxy(APP).stripPrefix("/free"))
                .start()) {
            assertThat(get(gw, "/limited/json/10?tag=a1" + run, "alice").statusCode())
                    .isEqualTo(200);
            assertThat(get(gw, "/limited/json/10?tag=a2" + run, "alice").statusCode())
                    .isEqualTo(200);
            HttpResponse<byte[]> refused = get(gw, "/limited/json/10?tag=a3" + run, "alice");

            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/json");
            assertThat(new String(refused.body(), StandardCharsets.UTF_8))
                    .contains("\"error\":\"rate_limited\"")
                    .contains("\"status\":429");
            // a token every 30 s: the next is about 30 s away, the bucket full again in about 60 s
            assertThat(refused.headers().firstValue("Retry-After").map(Long::parseLong))
                    .hasValueSatisfying(s -> assertThat(s).isBetween(25L, 30L));
            assertThat(refused.headers().firstValue("RateLimit-Limit")).hasValue("2");
            assertThat(refused.headers().firstValue("RateLimit-Remaining")).hasValue("0");
            assertThat(refused.headers().firstValue("RateLimit-Reset").map(Long::parseLong))
                    .hasValueSatisfying(s -> assertThat(s).isBetween(55L, 60L));
            assertThat(upstream.started("a1" + run)).isTrue();
            assertThat(upstream.started("a3" + run))
                    .as("the upstream never sees a refused request")
                    .isFalse();

            assertThat(get(gw, "/limited/json/10?tag=b1" + run, "bob").statusCode())
                    .as("another client's bucket")
                    .isEqualTo(200);
            assertThat(get(gw, "/free/json/10", "alice").statusCode())
                    .as("another route")
                    .isEqualTo(200);
            assertThat(get(gw, "/limited/json/10", null).statusCode())
                    .as("no header: the client address's bucket")
                    .isEqualTo(200);
        }
    }

    /**
     * A local bucket refills by the gateway's clock ({@link ManualTicker}): refused until a token's
     * time has passed to the nanosecond, admitted once it has, and only that one token.
     */
    @Test
    void aLocalBucketRefillsAsTheGatewaysClockMovesNotBefore() {
        String run = Long.toString(System.nanoTime(), 36);
        FilterConfig.RateLimit limit =
                FilterConfig.RateLimit.local(FilterConfig.RateKey.header("x-client"), 2, Duration.ofMinutes(1), 0);
        ManualTicker time = new ManualTicker();
        try (TestGateway gw = gateway()
                .ticker(time)
                .route("limited", on("/limited/**"), proxy(APP).stripPrefix("/limited"), limit)
                .start()) {
            assertThat(get(gw, "/limited/json/10?tag=r1" + run, "carol").statusCode())
                    .isEqualTo(200);
            assertThat(get(gw, "/limited/json/10?tag=r2" + run, "carol").statusCode())
                    .isEqualTo(200);
            HttpResponse<byte[]> refused = get(gw, "/limited/json/10?tag=r3" + run, "carol");
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.headers().firstValue("Retry-After"))
                    .as("a token every 30 s, none taken since: the next exactly 30 s away on the gateway's clock")
                    .hasValue("30");

            time.advance(Duration.ofSeconds(30).minusNanos(1));
            HttpResponse<byte[]> early = get(gw, "/limited/json/10?tag=r4" + run, "carol");
            assertThat(early.statusCode()).as("a nanosecond before the token").isEqualTo(429);
            assertThat(early.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(upstream.started("r4" + run)).isFalse();

            time.advance(Duration.ofNanos(1));
            assertThat(get(gw, "/limited/json/10?tag=r5" + run, "carol").statusCode())
                    .as("the token's time has passed")
                    .isEqualTo(200);
            assertThat(get(gw, "/limited/json/10?tag=r6" + run, "carol").statusCode())
                    .as("one token, taken")
                    .isEqualTo(429);
            assertThat(upstream.started("r5" + run)).isTrue();
            assertThat(upstream.started("r6" + run)).isFalse();
        }
    }

    @Test
    void anAdmittedResponseCarriesTheRateLimitFieldsProxiedOrComposed() {
        FilterConfig.RateLimit limit =
                FilterConfig.RateLimit.local(FilterConfig.RateKey.header("x-client"), 2, Duration.ofMinutes(1), 1);
        try (TestGateway gw = gateway()
                .route("limited", on("/limited/**"), proxy(APP).stripPrefix("/limited"), limit)
                .route("page", on("/page"), Routes.compose().part("a", APP, "/json/20"), limit)
                .start()) {
            HttpResponse<byte[]> first = get(gw, "/limited/json/10", "carol");
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.headers().firstValue("RateLimit-Limit")).hasValue("3");
            assertThat(first.headers().firstValue("RateLimit-Remaining")).hasValue("2");
            // a token every 30 s: one taken, the bucket is full again in about 30 s
            assertThat(first.headers().firstValue("RateLimit-Reset").map(Long::parseLong))
                    .hasValueSatisfying(s -> assertThat(s).isBetween(25L, 30L));
            HttpResponse<byte[]> second = get(gw, "/limited/json/10", "carol");
            assertThat(second.headers().firstValue("RateLimit-Remaining")).hasValue("1");
            assertThat(second.headers().firstValue("RateLimit-Reset").map(Long::parseLong))
                    .hasValueSatisfying(s -> assertThat(s).isBetween(55L, 60L));

            HttpResponse<byte[]> composed = get(gw, "/page", "carol");
            assertThat(composed.statusCode()).isEqualTo(200);
            assertThat(composed.headers().firstValue("RateLimit-Limit")).hasValue("3");
            assertThat(composed.headers().firstValue("RateLimit-Remaining"))
                    .as("the composed route's own bucket")
                    .hasValue("2");
        }
    }

    @Test
    void theClientAddressKeyIsTheForwardedClientBehindTheRoutesTrustedProxies() {
        String run = Long.toString(System.nanoTime(), 36);
        FilterConfig.RateLimit limit =
                FilterConfig.RateLimit.local(FilterConfig.RateKey.clientAddress(), 1, Duration.ofMinutes(1), 0);
        try (TestGateway gw = gateway()
                .route(
                        "behind",
                        on("/behind/**"),
                        proxy(APP).stripPrefix("/behind"),
                        limit,
                        new FilterConfig.IpFilter(List.of(), List.of(), List.of("127.0.0.1"))) // the peer is the proxy
                .route("direct", on("/direct/**"), proxy(APP).stripPrefix("/direct"), limit)
                .start()) {
            assertThat(forwarded(gw, "/behind/json/2", "203.0.113.9").status()).isEqualTo(200);
            WireResponse again = forwarded(gw, "/behind/json/2?tag=again" + run, "203.0.113.9");
            assertError(again, 429, "rate_limited");
            assertThat(upstream.started("again" + run)).isFalse();
            assertThat(forwarded(gw, "/behind/json/2", "198.51.100.7, 203.0.113.10")
                            .status())
                    .as("another client behind the same trusted proxy: its own bucket")
                    .isEqualTo(200);

            assertThat(forwarded(gw, "/direct/json/2", "203.0.113.9").status()).isEqualTo(200);
            assertThat(forwarded(gw, "/direct/json/2", "203.0.113.10").status())
                    .as("no trusted proxy on this route: the peer's bucket, whatever X-Forwarded-For says")
                    .isEqualTo(429);
        }
    }

    private static WireResponse forwarded(TestGateway gw, String target, String forwardedFor) {
        return gw.wire().send(WireRequest.get(target).header("X-Forwarded-For", forwardedFor));
    }

    @Test
    void aSharedStoreInRedisDecidesWithoutBlockingAndFallsBackByOnStoreFailure() {
        String run = Long.toString(System.nanoTime());
        try (RedisServer redis = RedisServer.start()) {
            // generous: a loaded machine must not turn a slow first decision into on-store-failure
            RedisConfig shared = new RedisConfig(redis.url(), Duration.ofSeconds(5), "contract:" + run + ":");
            var strict = new FilterConfig.RateLimit(
                    FilterConfig.RateKey.route(), 3, Duration.ofHours(1), 0, FilterConfig.RateLimit.Store.REDIS, false);
            var lenient = new FilterConfig.RateLimit(
                    FilterConfig.RateKey.route(), 1, Duration.ofHours(1), 0, FilterConfig.RateLimit.Store.REDIS, true);
            try (TestGateway gw = gateway()
                    .redis(shared)
                    .route("strict", on("/strict/**"), proxy(APP).stripPrefix("/strict"), strict)
                    .route("lenient", on("/lenient/**"), proxy(APP).stripPrefix("/lenient"), lenient)
                    .start()) {
                for (int i = 0; i < 3; i++) {
                    assertThat(get(gw, "/strict/json/10", null).statusCode()).isEqualTo(200);
                }
                HttpResponse<byte[]> refused = get(gw, "/strict/json/10?tag=s4" + run, null);
                assertThat(refused.statusCode()).isEqualTo(429);
                assertThat(refused.headers().firstValue("RateLimit-Limit")).hasValue("3");
                assertThat(refused.headers().firstValue("Retry-After")).isPresent();
                assertThat(upstream.started("s4" + run)).isFalse();

                redis.kill();
                HttpResponse<byte[]> denied = get(gw, "/strict/json/10?tag=s5" + run, null);
                assertThat(denied.statusCode()).as("on-store-failure: deny").isEqualTo(503);
                assertThat(new String(denied.body(), StandardCharsets.UTF_8))
                        .contains("\"error\":\"rate_limit_unavailable\"");
                assertThat(upstream.started("s5" + run)).isFalse();
                for (int i = 0; i < 3; i++) {
                    assertThat(get(gw, "/lenient/json/10", null).statusCode())
                            .as("on-store-failure: allow, past the limit of 1 while Redis is gone")
                            .isEqualTo(200);
                }
            }
        }
    }
}
