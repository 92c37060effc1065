package dev.sluice.policy.bench;

import dev.sluice.config.FilterConfig;
import dev.sluice.policy.Decision;
import dev.sluice.policy.GivenRequest;
import dev.sluice.policy.RateLimit;
import java.time.Duration;
import java.util.Map;

/**
 * What a local {@code rate-limit} decision costs (issue 16 asks for under 2 µs), on one key and over
 * 10,000 keys, single-threaded, five rounds (the first ones warm the JIT up). A benchmark, not a test:
 *
 * <pre>
 *   ./mvnw -q -pl sluice-core test-compile dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt
 *   java -cp sluice-core/target/test-classes:sluice-core/target/classes:$(cat /tmp/cp.txt) \
 *       dev.sluice.policy.bench.RateLimitBench
 * </pre>
 */
public final class RateLimitBench {

    private RateLimitBench() {}

    private static GivenRequest request(String address, String client) {
        return GivenRequest.from(address).withHeaders(Map.of("x-client", client));
    }

    public static void main(String[] args) {
        RateLimit limit = RateLimit.local(FilterConfig.RateLimit.local(
                FilterConfig.RateKey.header("x-client"), 1_000_000, Duration.ofSeconds(1), 0));
        GivenRequest[] many = new GivenRequest[10_000];
        for (int i = 0; i < many.length; i++) {
            many[i] = request("10.0.0.1", "client-" + i);
        }
        GivenRequest one = request("10.0.0.1", "alice");
        long admitted = 0;
        int n = 5_000_000;
        for (int round = 0; round < 5; round++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                admitted += limit.admit(one) instanceof Decision.Proceed ? 1 : 0;
            }
            long t1 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                admitted += limit.admit(many[i % many.length]) instanceof Decision.Proceed ? 1 : 0;
            }
            long t2 = System.nanoTime();
            System.out.printf(
                    "round %d: one key %.0f ns/decision, 10,000 keys %.0f ns/decision%n",
                    round, (t1 - t0) / (double) n, (t2 - t1) / (double) n);
        }
        System.out.println("admitted " + admitted + " of " + (10L * n));
    }
}
