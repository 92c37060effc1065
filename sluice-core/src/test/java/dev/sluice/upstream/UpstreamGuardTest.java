package dev.sluice.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.UpstreamConfig;
import dev.sluice.config.UpstreamResilience;
import dev.sluice.config.UpstreamResilience.Balance;
import dev.sluice.config.UpstreamResilience.CircuitBreaker;
import dev.sluice.config.UpstreamResilience.Outlier;
import dev.sluice.config.UpstreamResilience.Retry;
import dev.sluice.http.UpstreamFailure;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.DoubleSupplier;
import org.junit.jupiter.api.Test;

/** The guard's decisions, with time driven by the test (an injected ticker and clock). */
class UpstreamGuardTest {

    private static final List<URI> THREE = List.of(
            URI.create("http://10.0.0.1:80"), URI.create("http://10.0.0.2:80"), URI.create("http://10.0.0.3:80"));

    /** Nanoseconds for the ticker and an instant for the breakers' clock, moved together. */
    private static final class Time extends Clock {
        long nanos = 1_000_000_000L;

        void pass(Duration d) {
            nanos += d.toNanos();
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochSecond(0, nanos);
        }
    }

    private final Time time = new Time();

    private UpstreamGuard guard(UpstreamResilience r) {
        return guard(r, () -> 0.5);
    }

    private UpstreamGuard guard(UpstreamResilience r, DoubleSupplier random) {
        UpstreamConfig config =
                UpstreamConfig.of("svc", r.endpoints().getFirst()).withResilience(r);
        return new UpstreamGuard(config, () -> time.nanos, time, random, false);
    }

    private static UpstreamResilience resilience(
            List<URI> endpoints, Optional<Outlier> outlier, Optional<Retry> retry, Optional<CircuitBreaker> breaker) {
        return new UpstreamResilience(endpoints, Balance.ROUND_ROBIN, Optional.empty(), outlier, retry, breaker);
    }

    private static Retry retry(int attempts, int percent, int minConcurrency, String... on) {
        return new Retry(
                attempts,
                Optional.empty(),
                Duration.ofMillis(25),
                Duration.ofMillis(250),
                Set.of(on),
                false,
                percent,
                minConcurrency,
                64 * 1024);
    }

    @Test
    void roundRobinSpreadsCallsEvenly() {
        UpstreamGuard guard = guard(resilience(THREE, Optional.empty(), Optional.empty(), Optional.empty()));
        Map<Integer, Integer> counts = new HashMap<>();
        for (int i = 0; i < 300; i++) {
            Attempt a = guard.begin(null);
            counts.merge(a.endpoint().index(), 1, Integer::sum);
            a.answered(200);
        }
        assertThat(counts).containsEntry(0, 100).containsEntry(1, 100).containsEntry(2, 100);
    }

    @Test
    void callsInFlightAreCountedOnlyWhereADecisionReadsThem() {
        UpstreamGuard single = guard(resilience(
                List.of(URI.create("http://10.0.0.1:80")), Optional.empty(), Optional.empty(), Optional.empty()));
        Attempt call = single.begin(null);
        assertThat(single.endpoints().getFirst().inFlight())
                .as("one endpoint, no retries")
                .isZero();
        call.answered(200);

        UpstreamGuard retried = guard(resilience(
                List.of(URI.create("http://10.0.0.1:80")),
                Optional.empty(),
                Optional.of(retry(2, 20, 3, "503")),
                Optional.empty()));
        Attempt counted = retried.begin(null);
        assertThat(retried.endpoints().getFirst().inFlight())
                .as("the retry budget reads it")
                .isEqualTo(1);
        counted.answered(200);
        assertThat(retried.endpoints().getFirst().inFlight()).isZero();
    }

    @Test
    void leastInFlightTakesTheLessBusyOfTwo() {
        double[] picks = {0.0, 0.0}; // endpoint 0, then (0 + 1 + 0) % 3 = endpoint 1
        int[] at = {0};
        UpstreamGuard guard = guard(
                new UpstreamResilience(
                        THREE,
                        Balance.LEAST_IN_FLIGHT,
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty()),
                () -> picks[at[0]++ % 2]);
        Attempt busy = guard.begin(null);
        assertThat(busy.endpoint().index()).isZero();
        Attempt second = guard.begin(null); // 0 has one in flight, 1 none
        assertThat(second.endpoint().index()).isEqualTo(1);
        busy.answered(200);
        second.answered(200);
        assertThat(guard.endpoints()).allSatisfy(e -> assertThat(e.inFlight()).isZero());
    }

    @Test
    void anEndpointFailingInARowIsEjectedForAGrowingTimeAndComesBack() {
        Outlier outlier = new Outlier(3, Duration.ofSeconds(30), Duration.ofSeconds(45), 50);
        UpstreamGuard guard = guard(resilience(THREE, Optional.of(outlier), Optional.empty(), Optional.empty()));
        Endpoint bad = guard.endpoints().get(1);
        failUntilEjected(guard, bad);
        for (int i = 0; i < 30; i++) {
            Attempt a = guard.begin(null);
            assertThat(a.endpoint()).isNotSameAs(bad);
            a.answered(200);
        }
        time.pass(Duration.ofSeconds(31));
        assertThat(callsTo(guard, bad, 30)).isEqualTo(10); // back in the rotation
        assertThat(bad.isEjected()).isFalse();
        failUntilEjected(guard, bad); // second ejection: 60 s, capped at 45 s
        time.pass(Duration.ofSeconds(40));
        assertThat(callsTo(guard, bad, 30)).isZero();
        time.pass(Duration.ofSeconds(6));
        assertThat(callsTo(guard, bad, 30)).isEqualTo(10);
    }

    @Test
    void aSuccessResetsTheFailuresInARow() {
        Outlier outlier = new Outlier(3, Duration.ofSeconds(30), Duration.ofSeconds(300), 50);
        UpstreamGuard guard = guard(resilience(THREE, Optional.of(outlier), Optional.empty(), Optional.empty()));
        Endpoint e = guard.endpoints().get(0);
        for (int round = 0; round < 5; round++) {
            for (int outcome : new int[] {503, 503, 200}) {
                Attempt a;
                do {
                    a = guard.begin(null);
                    if (a.endpoint() != e) {
                        a.answered(200);
                    }
                } while (a.endpoint() != e);
                a.answered(outcome);
            }
        }
        assertThat(e.isEjected()).isFalse();
    }

    @Test
    void neverAllEndpointsAreEjectedAndTheOnlyOneNever() {
        Outlier outlier = new Outlier(1, Duration.ofSeconds(30), Duration.ofSeconds(300), 50);
        UpstreamGuard guard = guard(resilience(THREE, Optional.of(outlier), Optional.empty(), Optional.empty()));
        for (int i = 0; i < 30; i++) {
            guard.begin(null).failed(UpstreamFailure.REFUSED);
        }
        assertThat(guard.endpoints().stream().filter(Endpoint::isEjected)).hasSize(1); // 50 % of 3, rounded down

        UpstreamGuard single =
                guard(resilience(List.of(THREE.getFirst()), Optional.of(outlier), Optional.empty(), Optional.empty()));
        for (int i = 0; i < 10; i++) {
            Attempt a = single.begin(null);
            assertThat(a).isNotNull();
            a.failed(UpstreamFailure.REFUSED);
        }
        assertThat(single.endpoints().getFirst().isEjected()).isFalse();
    }

    @Test
    void theGatewaysOwnStopsTeachNothing() {
        Outlier outlier = new Outlier(1, Duration.ofSeconds(30), Duration.ofSeconds(300), 100);
        UpstreamGuard guard = guard(resilience(THREE, Optional.of(outlier), Optional.empty(), Optional.empty()));
        for (int i = 0; i < 9; i++) {
            Attempt a = guard.begin(null);
            switch (i % 3) {
                case 0 -> a.abandoned();
                case 1 -> a.failed(UpstreamFailure.TIMEOUT); // the route's deadline
                default -> a.failed(UpstreamFailure.POOL_EXHAUSTED);
            }
        }
        assertThat(guard.endpoints()).noneMatch(Endpoint::isEjected);
    }

    @Test
    void aBreakerOpensOnFailuresFailsFastThenProbesAndCloses() {
        CircuitBreaker breaker = new CircuitBreaker(50, 100, Duration.ofSeconds(10), 10, 10, Duration.ofSeconds(5), 2);
        UpstreamGuard guard =
                guard(resilience(List.of(THREE.getFirst()), Optional.empty(), Optional.empty(), Optional.of(breaker)));
        for (int i = 0; i < 5; i++) {
            guard.begin(null).answered(200);
        }
        for (int i = 0; i < 4; i++) {
            guard.begin(null).answered(503);
        }
        assertThat(guard.endpoints().getFirst().breakerState()).isEqualTo("CLOSED"); // 9 calls: below the minimum
        guard.begin(null).failed(UpstreamFailure.RESET); // 5 of 10 failed: 50 %
        assertThat(guard.endpoints().getFirst().breakerState()).isEqualTo("OPEN");
        assertThat(guard.begin(null)).isNull(); // 503 circuit_open, the upstream sees nothing
        time.pass(Duration.ofSeconds(4));
        assertThat(guard.begin(null)).isNull();
        time.pass(Duration.ofSeconds(2));
        Attempt probe1 = guard.begin(null);
        Attempt probe2 = guard.begin(null);
        assertThat(probe1).isNotNull();
        assertThat(probe2).isNotNull();
        assertThat(guard.begin(null)).as("only two probes while half open").isNull();
        probe1.answered(200);
        probe2.answered(204);
        assertThat(guard.endpoints().getFirst().breakerState()).isEqualTo("CLOSED");
        assertThat(guard.begin(null)).isNotNull();
    }

    @Test
    void slowCallsOpenTheBreakerToo() {
        CircuitBreaker breaker = new CircuitBreaker(100, 50, Duration.ofSeconds(1), 4, 4, Duration.ofSeconds(5), 1);
        UpstreamGuard guard =
                guard(resilience(List.of(THREE.getFirst()), Optional.empty(), Optional.empty(), Optional.of(breaker)));
        for (int i = 0; i < 4; i++) {
            Attempt a = guard.begin(null);
            if (i % 2 == 0) {
                time.pass(Duration.ofMillis(1500));
            }
            a.answered(200);
        }
        assertThat(guard.endpoints().getFirst().breakerState()).isEqualTo("OPEN");
    }

    @Test
    void aCallGoesToAnotherEndpointWhenOnesBreakerIsOpen() {
        CircuitBreaker breaker = new CircuitBreaker(50, 100, Duration.ofSeconds(10), 2, 2, Duration.ofSeconds(30), 1);
        UpstreamGuard guard = guard(resilience(THREE, Optional.empty(), Optional.empty(), Optional.of(breaker)));
        Endpoint bad = guard.endpoints().get(0);
        while (!bad.breakerState().equals("OPEN")) {
            Attempt a = guard.begin(null);
            a.answered(a.endpoint() == bad ? 500 : 200);
        }
        for (int i = 0; i < 20; i++) {
            Attempt a = guard.begin(null);
            assertThat(a).isNotNull();
            assertThat(a.endpoint()).isNotSameAs(bad);
            a.answered(200);
        }
    }

    @Test
    void retriesOnlyWhatIsConfiguredAndAvoidThePreviousEndpoint() {
        UpstreamGuard guard = guard(resilience(
                THREE, Optional.empty(), Optional.of(retry(3, 20, 3, "connect-failure", "503")), Optional.empty()));
        Attempt first = guard.begin(null);
        first.answered(503);
        long wait = guard.retryDelay(first, "GET", true);
        assertThat(wait).isBetween(0L, Duration.ofMillis(25).toNanos());
        Attempt second = guard.begin(first);
        assertThat(second.number()).isEqualTo(2);
        assertThat(second.endpoint()).isNotSameAs(first.endpoint());
        assertThat(guard.retriesInFlight()).isEqualTo(1);
        second.failed(UpstreamFailure.REFUSED);
        assertThat(guard.retriesInFlight()).isZero();
        assertThat(guard.retryDelay(second, "GET", true))
                .isBetween(0L, Duration.ofMillis(75).toNanos());
        Attempt third = guard.begin(second);
        third.answered(503);
        assertThat(guard.retryDelay(third, "GET", true))
                .as("three tries in all")
                .isEqualTo(-1);

        Attempt post = guard.begin(null);
        post.answered(503);
        assertThat(guard.retryDelay(post, "POST", true))
                .as("POST is not idempotent")
                .isEqualTo(-1);
        Attempt withBody = guard.begin(null);
        withBody.answered(503);
        assertThat(guard.retryDelay(withBody, "PUT", false))
                .as("a body that cannot be replayed")
                .isEqualTo(-1);
        Attempt other = guard.begin(null);
        other.answered(500);
        assertThat(guard.retryDelay(other, "GET", true)).as("500 is not listed").isEqualTo(-1);
        Attempt reset = guard.begin(null);
        reset.failed(UpstreamFailure.RESET);
        assertThat(guard.retryDelay(reset, "GET", true))
                .as("reset is not listed")
                .isEqualTo(-1);
        Attempt deadline = guard.begin(null);
        deadline.failed(UpstreamFailure.TIMEOUT);
        assertThat(guard.retryDelay(deadline, "GET", true))
                .as("the route's deadline passed")
                .isEqualTo(-1);
    }

    /**
     * A retry avoids its previous endpoint only for another in the rotation: with the other ejected, it
     * goes back to the previous one, not to the ejected one (the panic of "every endpoint is out" is for
     * when every endpoint is out).
     */
    @Test
    void aRetryNeverGoesToAnEjectedEndpointWhileThePreviousOneIsInTheRotation() {
        Outlier outlier = new Outlier(1, Duration.ofSeconds(30), Duration.ofSeconds(300), 50);
        List<URI> two = THREE.subList(0, 2);
        UpstreamGuard guard = guard(resilience(
                two,
                Optional.of(outlier),
                Optional.of(retry(2, 100, 10, "connect-failure", "reset")),
                Optional.empty()));
        Endpoint ejected = guard.endpoints().get(0);
        Endpoint live = guard.endpoints().get(1);
        failUntilEjected(guard, ejected);
        for (int i = 0; i < 10; i++) {
            Attempt first = guard.begin(null);
            assertThat(first.endpoint()).isSameAs(live);
            first.failed(UpstreamFailure.RESET);
            assertThat(guard.retryDelay(first, "GET", true)).isNotNegative();
            Attempt retry = guard.begin(first);
            assertThat(retry.endpoint())
                    .as("the ejected endpoint stays out for its ejection time")
                    .isSameAs(live);
            retry.answered(200);
        }
        assertThat(ejected.isEjected()).isTrue();
    }

    @Test
    void theBackoffGrowsAndIsCapped() {
        UpstreamGuard guard = guard(
                resilience(THREE, Optional.empty(), Optional.of(retry(10, 100, 100, "503")), Optional.empty()),
                () -> 0.999);
        Attempt a = guard.begin(null);
        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            a.answered(503);
            waits.add(guard.retryDelay(a, "GET", true) / 1_000_000);
            a = guard.begin(a);
        }
        assertThat(waits).containsExactly(24L, 74L, 174L, 249L, 249L, 249L, 249L, 249L, 249L);
    }

    @Test
    void theBudgetBoundsRetriesInFlight() {
        UpstreamGuard guard =
                guard(resilience(THREE, Optional.empty(), Optional.of(retry(3, 20, 2, "503")), Optional.empty()));
        List<Attempt> calls = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            calls.add(guard.begin(null));
        }
        List<Attempt> retries = new ArrayList<>();
        for (Attempt a : calls.subList(0, 10)) {
            a.answered(503);
            if (guard.retryDelay(a, "GET", true) >= 0) {
                retries.add(guard.begin(a));
            }
        }
        // about 19 calls in flight at each decision: retries at most 20 % of them (3), not 10
        assertThat(retries).hasSize(3);
        assertThat(guard.retriesOverBudget()).as("the 7 refused, counted").isEqualTo(7);
        assertThat(guard.retriesInFlight()).isEqualTo(3);
        retries.forEach(r -> r.answered(200));
        assertThat(guard.retriesInFlight()).isZero();
        Attempt more = calls.get(10);
        more.answered(503);
        assertThat(guard.retryDelay(more, "GET", true))
                .as("room again once they ended")
                .isNotNegative();
    }

    private void failUntilEjected(UpstreamGuard guard, Endpoint bad) {
        int guardRail = 0;
        while (!bad.isEjected()) {
            Attempt a = guard.begin(null);
            if (a.endpoint() == bad) {
                a.failed(UpstreamFailure.REFUSED);
            } else {
                a.answered(200);
            }
            assertThat(++guardRail).isLessThan(100);
        }
    }

    private static int callsTo(UpstreamGuard guard, Endpoint e, int calls) {
        int n = 0;
        for (int i = 0; i < calls; i++) {
            Attempt a = guard.begin(null);
            if (a.endpoint() == e) {
                n++;
            }
            a.answered(200);
        }
        return n;
    }
}
