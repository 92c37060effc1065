package dev.sluice.app;

import static java.util.Objects.requireNonNull;

import dev.sluice.engine.RunningGateway;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks a running gateway every {@code every} whether it can still serve ({@link
 * RunningGateway#failure()}: an event loop died or is stuck) and, when it cannot, logs why and ends
 * the process with {@value #EXIT_STATUS}: a process that accepts connections and answers nothing is
 * worse than none, since its supervisor (systemd, Kubernetes) restarts a process that exited but not
 * one that merely stopped answering. The exit is a halt: closing a gateway whose loops are gone could
 * itself hang.
 */
final class Watchdog implements AutoCloseable {

    /** EX_SOFTWARE (sysexits.h): an internal software error. */
    static final int EXIT_STATUS = 70;

    private static final Logger LOG = LoggerFactory.getLogger(Watchdog.class);

    private final ScheduledExecutorService timer;

    private Watchdog(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    /**
     * Starts watching {@code gateway}.
     *
     * @param halt ends the process with the status it is given ({@code Runtime.getRuntime()::halt})
     */
    static Watchdog start(RunningGateway gateway, Duration every, IntConsumer halt) {
        requireNonNull(gateway, "gateway");
        requireNonNull(halt, "halt");
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("sluice-watchdog").daemon(true).factory());
        long nanos = every.toNanos();
        timer.scheduleWithFixedDelay(
                () -> {
                    Optional<String> failure = gateway.failure();
                    if (failure.isPresent()) {
                        LOG.error(
                                "the gateway can no longer serve: {}; exiting with status {} so that its"
                                        + " supervisor starts a fresh process",
                                failure.get(),
                                EXIT_STATUS);
                        System.err.flush();
                        halt.accept(EXIT_STATUS);
                        timer.shutdown();
                    }
                },
                nanos,
                nanos,
                TimeUnit.NANOSECONDS);
        return new Watchdog(timer);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
