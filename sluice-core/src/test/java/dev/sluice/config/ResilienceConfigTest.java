package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.config.UpstreamResilience.Balance;
import dev.sluice.config.UpstreamResilience.CircuitBreaker;
import dev.sluice.config.UpstreamResilience.HealthCheck;
import dev.sluice.config.UpstreamResilience.Outlier;
import dev.sluice.config.UpstreamResilience.Retry;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ResilienceConfigTest {

    private static final String ROUTES = """
            routes:
              - id: r
                match: { path: "/r/**" }
                proxy: { upstream: svc }
            """;

    @Test
    void endpointsBalancingChecksRetriesAndBreakersAreRead() throws Exception {
        GatewayConfig config = ConfigLoader.parse("""
                upstreams:
                  svc:
                    endpoints: ["http://10.0.0.1:8081/api", "http://10.0.0.2:8081/api/"]
                    balance: least-in-flight
                    health-check: { path: /health, interval: 2s, timeout: 500ms, healthy-threshold: 1 }
                    outlier-detection: { consecutive-failures: 3, base-ejection: 10s }
                    retry:
                      attempts: 3
                      per-try-timeout: 2s
                      backoff: { base: 10ms, max: 100ms }
                      on: [connect-failure, 503, 5xx]
                      budget: { percent: 10 }
                    circuit-breaker: { failure-rate: 40, window: 50, open-for: 20s }
                """ + ROUTES, "test.yaml");
        UpstreamConfig svc = config.upstreams().get("svc");
        assertThat(svc.url()).isEqualTo(URI.create("http://10.0.0.1:8081/api"));
        assertThat(svc.basePath()).isEqualTo("/api");
        assertThat(svc.endpoint(1).authority()).isEqualTo("10.0.0.2:8081");
        assertThat(svc.resilience())
                .isEqualTo(new UpstreamResilience(
                        List.of(URI.create("http://10.0.0.1:8081/api"), URI.create("http://10.0.0.2:8081/api/")),
                        Balance.LEAST_IN_FLIGHT,
                        Optional.of(new HealthCheck("/health", Duration.ofSeconds(2), Duration.ofMillis(500), 1, 3)),
                        Optional.of(new Outlier(3, Duration.ofSeconds(10), Duration.ofSeconds(300), 50)),
                        Optional.of(new Retry(
                                3,
                                Optional.of(Duration.ofSeconds(2)),
                                Duration.ofMillis(10),
                                Duration.ofMillis(100),
                                Set.of("connect-failure", "503", "5xx"),
                                false,
                                10,
                                3,
                                64 * 1024)),
                        Optional.of(new CircuitBreaker(
                                40, 100, Duration.ofSeconds(10), 50, 10, Duration.ofSeconds(20), 3))));
    }

    @Test
    void oneUrlHasDefaultOutlierDetectionAndNoRetriesOrBreaker() throws Exception {
        GatewayConfig config = ConfigLoader.parse("""
                upstreams:
                  svc: { url: "http://127.0.0.1:8081", outlier-detection: false }
                """ + ROUTES, "test.yaml");
        UpstreamResilience r = config.upstreams().get("svc").resilience();
        assertThat(r.endpoints()).containsExactly(URI.create("http://127.0.0.1:8081"));
        assertThat(r.outlier()).isEmpty();
        assertThat(r.retry()).isEmpty();
        assertThat(r.circuitBreaker()).isEmpty();
        assertThat(ConfigLoader.parse("upstreams:\n  svc: { url: \"http://127.0.0.1:8081\" }\n" + ROUTES, "t.yaml")
                        .upstreams()
                        .get("svc")
                        .resilience()
                        .outlier())
                .contains(Outlier.DEFAULT);
    }

    @Test
    void everyBadSettingIsListedByPath() {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.parse("""
                upstreams:
                  a: { url: "http://10.0.0.1:1", endpoints: ["http://10.0.0.2:1"] }
                  b:
                    endpoints: ["http://10.0.0.1:1/x", 7, "ftp://h", "http://10.0.0.1:1/x", "http://10.0.0.3:1/y"]
                    balance: random
                    health-check: { interval: 1s, timeout: 2s }
                    outlier-detection: { max-ejected-percent: 120, base-ejection: 1m, max-ejection: 10s }
                    retry: { attempts: 1, on: [reset, 200, teapot], backoff: { base: 1s, max: 10ms } }
                    circuit-breaker: { failure-rate: 0, window: 5, minimum-calls: 6 }
                  c: { endpoints: [] }
                routes:
                  - { id: a, match: { path: "/a" }, proxy: { upstream: a } }
                  - { id: b, match: { path: "/b" }, proxy: { upstream: b } }
                  - { id: c, match: { path: "/c" }, proxy: { upstream: c } }
                """, "bad.yaml"));
        assertThat(e.problems())
                .extracting(Problem::path)
                .containsExactlyInAnyOrder(
                        "upstreams.a.endpoints",
                        "upstreams.b.endpoints[1]",
                        "upstreams.b.endpoints[2]",
                        "upstreams.b.endpoints[3]",
                        "upstreams.b.endpoints[4]",
                        "upstreams.b.balance",
                        "upstreams.b.health-check.path",
                        "upstreams.b.health-check.timeout",
                        "upstreams.b.outlier-detection.max-ejected-percent",
                        "upstreams.b.outlier-detection.max-ejection",
                        "upstreams.b.retry.attempts",
                        "upstreams.b.retry.on[1]",
                        "upstreams.b.retry.on[2]",
                        "upstreams.b.retry.backoff.max",
                        "upstreams.b.circuit-breaker.failure-rate",
                        "upstreams.b.circuit-breaker.minimum-calls",
                        "upstreams.c.endpoints");
    }
}
