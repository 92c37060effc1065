package dev.sluice.app;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Milliseconds since the process started, for the "started in N ms" line (the paper's start time:
 * process start until the gateway accepts connections).
 *
 * <p>On Linux it compares the process's start in {@code /proc/self/stat} with {@code /proc/uptime}
 * (both counted from boot, 10 ms resolution), so JVM boot time is included and wall-clock steps do
 * not matter. {@code ProcessHandle.Info.startInstant()} is avoided: it derives boot time from whole
 * seconds and can be off by up to a second. Elsewhere it falls back to the JVM's own start time.
 */
final class StartupClock {

    /** Clock ticks per second of {@code /proc} times (USER_HZ, 100 on every mainstream Linux). */
    private static final double TICKS_PER_SECOND = 100.0;

    private StartupClock() {}

    static long millisSinceStart() {
        return fromProc()
                .orElseGet(() -> System.currentTimeMillis()
                        - ManagementFactory.getRuntimeMXBean().getStartTime());
    }

    static Optional<Long> fromProc() {
        try {
            String uptime = Files.readString(Path.of("/proc/uptime"));
            String stat = Files.readString(Path.of("/proc/self/stat"));
            double uptimeSeconds = Double.parseDouble(uptime.substring(0, uptime.indexOf(' ')));
            // Fields after the command name (which may hold spaces and parentheses): state is field 3,
            // starttime field 22.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long startTicks = Long.parseLong(fields[22 - 3]);
            long millis = Math.round(uptimeSeconds * 1000 - startTicks * 1000 / TICKS_PER_SECOND);
            return millis >= 0 ? Optional.of(millis) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
