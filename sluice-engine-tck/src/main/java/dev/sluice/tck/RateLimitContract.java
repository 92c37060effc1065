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
