package dev.sluice.app;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Tells a started command when to stop. The CLI waits on it, then closes the session. */
interface StopSignal {

    /** Returns when {@code session} should stop. */
    void await(Session session) throws Exception;

    /** Called once the session is closed and "sluice stopped" printed. */
    default void stopped() {}

    /**
     * Stops on Ctrl-C or SIGTERM: a shutdown hook wakes the waiting command and holds the JVM until
     * the command has closed everything: at most the admin's {@code drain-delay}, the gateway's {@code
     * shutdown-grace} and 10 s (to
     * free pools and threads), or {@code maxCloseMillis} for a session without a gateway. Then the JVM
     * exits, even if closing hangs.
     */
    static StopSignal shutdownHook(long maxCloseMillis) {
        return new StopSignal() {
            private final CountDownLatch stop = new CountDownLatch(1);
            private final CountDownLatch closed = new CountDownLatch(1);

            @Override
            public void await(Session session) throws InterruptedException {
                long closeMillis = session.config()
                        .map(c -> c.admin().map(a -> a.drainDelay().toMillis()).orElse(0L)
                                + c.server().shutdownGrace().toMillis()
                                + 10_000)
                        .orElse(maxCloseMillis);
                Runtime.getRuntime()
                        .addShutdownHook(new Thread(
                                () -> {
                                    stop.countDown();
                                    try {
                                        closed.await(closeMillis, TimeUnit.MILLISECONDS);
                                    } catch (InterruptedException e) {
                                        Thread.currentThread().interrupt();
                                    }
                                },
                                "sluice-shutdown"));
                stop.await();
            }

            @Override
            public void stopped() {
                closed.countDown();
            }
        };
    }
}
