package dev.sluice.app;

import java.lang.management.ManagementFactory;

/**
 * Milliseconds since the JVM started, for the "started in N ms" line (the paper's start time: start
 * until the gateway accepts connections).
 *
 * <p>The JVM's own start ({@code RuntimeMXBean.getStartTime()}, taken as the JVM begins to create
 * itself), not the process's: the {@code ./sluice} launcher execs the JVM in its own process after
 * it may have built the project, and the kernel's process start time ({@code /proc/self/stat}) would
 * count that build. The launcher reports the build's time on its own line.
 */
final class StartupClock {

    private StartupClock() {}

    static long millisSinceStart() {
        return Math.max(0, System.currentTimeMillis() - jvmStart());
    }

    static long jvmStart() {
        return ManagementFactory.getRuntimeMXBean().getStartTime();
    }
}
