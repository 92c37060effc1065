package dev.sluice.engine.reactive;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.EngineMode;
import dev.sluice.config.GatewayConfig;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.tck.TestGateway;
import io.netty.util.concurrent.EventExecutor;
import java.net.URI;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A gateway whose event loop stopped or is stuck reports it ({@code RunningGateway.failure()}), so
 * that {@code sluice run} exits instead of living on while answering nothing (issue 15, hole 0).
 * The loops here are the gateway's own, stopped or blocked for real.
 */
@ExtendWith(LeakGuard.class)
class LoopWatchTest {

    private static GatewayConfig config() {
        return TestGateway.builder(EngineMode.REACTIVE)
                .upstream("app", URI.create("http://127.0.0.1:9"))
                .route("all", on("/**"), proxy("app"))
                .config();
    }

    private static String awaitFailure(ReactiveGateway gateway, long seconds) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < end) {
            var failure = gateway.failure();
            if (failure.isPresent()) {
                return failure.get();
            }
            Thread.sleep(50);
        }
        return null;
    }

    @Test
    void aRunningGatewayHasNoFailure() throws Exception {
        try (ReactiveGateway gateway = ReactiveGateway.start(config(), GatewayObserver.NONE)) {
            for (int i = 0; i < 20; i++) {
                assertThat(gateway.failure()).isEmpty();
                Thread.sleep(20);
            }
        }
    }

    @Test
    void aStoppedLoopIsAFailure() throws Exception {
        try (ReactiveGateway gateway = ReactiveGateway.start(config(), GatewayObserver.NONE)) {
            EventExecutor loop = gateway.loops().onServer(true).next();
            loop.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            assertThat(awaitFailure(gateway, 10)).contains("has stopped");
        }
    }

    @Test
    void aLoopBlockedPastTheStuckTimeIsAFailureAndItClearsWhenTheLoopRunsAgain() throws Exception {
        LoopWatch watch;
        CountDownLatch release = new CountDownLatch(1);
        try (ReactiveGateway gateway = ReactiveGateway.start(config(), GatewayObserver.NONE)) {
            EventExecutor loop = gateway.loops().onServer(true).next();
            watch = new LoopWatch(java.util.List.of(loop), 300, TimeUnit.MILLISECONDS);
            assertThat(watch.failure()).isEmpty();
            loop.execute(
                    () -> { // a handler that hogs its loop: it spins, so BlockHound (installed in
                        // this JVM once a contract test has run) sees no blocking call to refuse
                        long limit = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                        while (release.getCount() > 0 && System.nanoTime() < limit) {
                            // no Thread.onSpinWait(): BlockHound counts it as blocking too
                        }
                    });
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            String failure = null;
            while (failure == null && System.nanoTime() < end) {
                failure = watch.failure().orElse(null);
                Thread.sleep(50);
            }
            assertThat(failure).contains("has run no task for");
            release.countDown();
            end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (watch.failure().isPresent() && System.nanoTime() < end) {
                Thread.sleep(50);
            }
            assertThat(watch.failure()).as("the loop runs again").isEmpty();
        }
    }

    @Test
    void aClosedGatewayReportsNoFailure() throws Exception {
        ReactiveGateway gateway = ReactiveGateway.start(config(), GatewayObserver.NONE);
        gateway.close();
        assertThat(gateway.failure()).isEmpty();
    }
}
