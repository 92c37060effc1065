package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.engine.RunningGateway;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The watchdog ends the process once the gateway reports it can no longer serve, and never while it
 * can (the engines' own reports are tested against their real loops: LoopWatchTest). The halt is
 * captured instead of ending the test's JVM.
 */
class WatchdogTest {

    /** A gateway that reports whatever the test sets. */
    private static final class Reporting implements RunningGateway {
        final AtomicReference<String> failure = new AtomicReference<>();
        final AtomicInteger asked = new AtomicInteger();

        @Override
        public int port() {
            return 0;
        }

        @Override
        public String transport() {
            return "nio";
        }

        @Override
        public Optional<String> failure() {
            asked.incrementAndGet();
            return Optional.ofNullable(failure.get());
        }

        @Override
        public void reload(dev.sluice.config.GatewayConfig next, dev.sluice.config.ConfigChange change) {
            throw new UnsupportedOperationException("a watchdog never reloads");
        }

        @Override
        public void close() {}
    }

    @Test
    void aFailureHaltsWithStatus70AndAHealthyGatewayIsLeftAlone() throws Exception {
        Reporting gateway = new Reporting();
        CompletableFuture<Integer> halted = new CompletableFuture<>();
        try (Watchdog watchdog = Watchdog.start(gateway, Duration.ofMillis(20), halted::complete)) {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (gateway.asked.get() < 5 && System.nanoTime() < end) {
                Thread.sleep(10);
            }
            assertThat(gateway.asked.get()).as("asked again and again").isGreaterThanOrEqualTo(5);
            assertThat(halted).as("no halt while the gateway serves").isNotDone();

            gateway.failure.set("event loop x has stopped");
            assertThat(halted.get(10, TimeUnit.SECONDS)).isEqualTo(Watchdog.EXIT_STATUS);
            int asked = gateway.asked.get();
            Thread.sleep(100);
            assertThat(gateway.asked.get()).as("no more checks after the halt").isLessThanOrEqualTo(asked + 1);
        }
    }

    @Test
    void aClosedWatchdogAsksNoMore() throws Exception {
        Reporting gateway = new Reporting();
        CompletableFuture<Integer> halted = new CompletableFuture<>();
        Watchdog watchdog = Watchdog.start(gateway, Duration.ofMillis(20), halted::complete);
        watchdog.close();
        gateway.failure.set("gone");
        Thread.sleep(200);
        assertThat(halted).isNotDone();
    }
}
