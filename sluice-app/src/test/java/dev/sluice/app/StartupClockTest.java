package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

class StartupClockTest {

    @Test
    void theProcessIsOlderThanTheJvmsOwnStartTimeSaysButNotBySeconds() {
        long jvm = System.currentTimeMillis()
                - ManagementFactory.getRuntimeMXBean().getStartTime();
        long process = StartupClock.millisSinceStart();
        // /proc counts from exec, before the JVM records its start; both have ~10 ms resolution.
        assertThat(process).isBetween(jvm - 50, jvm + 5_000);
    }

    @Test
    void onLinuxTheClockReadsProc() {
        if (System.getProperty("os.name").startsWith("Linux")) {
            assertThat(StartupClock.fromProc()).isPresent();
        }
    }
}
