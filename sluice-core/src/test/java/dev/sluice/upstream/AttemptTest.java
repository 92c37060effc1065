package dev.sluice.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.UpstreamConfig;
import dev.sluice.config.UpstreamResilience;
import dev.sluice.config.UpstreamResilience.Balance;
import dev.sluice.config.UpstreamResilience.Retry;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

class AttemptTest {

    /**
     * A try may be ended on two threads at once (a mirror's answer on its event loop while the tee
     * abandons it; a call's answer while a deadline's timer stops it): it ends once, so the endpoint's
     * calls in flight (which least-loaded balancing and the retry budget read) go back to zero.
     */
    @Test
    void aTryEndedOnTwoThreadsAtOnceEndsOnce() throws Exception {
        URI endpoint = URI.create("http://10.0.0.1:80");
        Retry retry = new Retry(
                2,
                Optional.empty(),
                Duration.ofMillis(25),
                Duration.ofMillis(250),
                Set.of("503"),
                false,
                20,
                3,
                64 * 1024);
        UpstreamConfig config = UpstreamConfig.of("svc", endpoint)
                .withResilience(new UpstreamResilience(
                        List.of(endpoint),
                        Balance.ROUND_ROBIN,
                        Optional.empty(),
                        Optional.empty(),
                        Optional.of(retry),
                        Optional.empty()));
        try (UpstreamGuard guard = UpstreamGuard.start(config)) {
            CyclicBarrier both = new CyclicBarrier(2);
            for (int i = 0; i < 2_000; i++) {
                Attempt a = guard.begin(null);
                assertThat(guard.endpoints().getFirst().inFlight()).isEqualTo(1);
                Thread other = Thread.ofPlatform().start(() -> {
                    await(both);
                    a.abandoned();
                });
                await(both);
                a.answered(200);
                other.join();
                assertThat(guard.endpoints().getFirst().inFlight())
                        .as("round " + i)
                        .isZero();
            }
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
