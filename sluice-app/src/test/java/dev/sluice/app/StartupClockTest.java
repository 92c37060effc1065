package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class StartupClockTest {

    @Test
    void countsFromTheJvmsStartAndGrows() throws Exception {
        long before = System.currentTimeMillis();
        long first = StartupClock.millisSinceStart();
        assertThat(first)
                .isPositive()
                .isCloseTo(before - StartupClock.jvmStart(), org.assertj.core.data.Offset.offset(50L));
        long second = StartupClock.millisSinceStart();
        assertThat(second).isGreaterThanOrEqualTo(first);
    }

    /**
     * What the launcher does: a shell that spends a while (here 1.5 s; a build, there) and then execs
     * the JVM in its own process. The JVM's start time excludes that while; the process's does not.
     */
    @Test
    void aJvmExecedLateByItsLauncherDoesNotCountTheLaunchersTime() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        String classpath = System.getProperty("java.class.path");
        Process process = new ProcessBuilder(
                        "bash",
                        "-c",
                        "sleep 1.5; exec \"$0\" -cp \"$1\" dev.sluice.app.StartupClockTest\\$Probe",
                        java.toString(),
                        classpath)
                .redirectErrorStream(true)
                .start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("probe finished").isTrue();
        String out = new String(process.getInputStream().readAllBytes()).trim();
        assertThat(process.exitValue()).as(out).isZero();
        String[] ages = out.lines().reduce((a, b) -> b).orElseThrow().split(" ");
        long jvm = Long.parseLong(ages[0]);
        long processAge = Long.parseLong(ages[1]);
        assertThat(jvm).isNotNegative();
        assertThat(processAge - jvm)
                .as(
                        "the process (forked before the shell's 1.5 s) is older than the JVM by at least those 1.5 s, "
                                + "less /proc's 10 ms resolution: jvm %d ms, process %d ms",
                        jvm, processAge)
                .isGreaterThanOrEqualTo(1_480L);
    }

    /** Prints the JVM's age by {@link StartupClock} and the process's age by {@code /proc}. */
    static final class Probe {
        public static void main(String[] args) throws IOException {
            long jvm = StartupClock.millisSinceStart();
            String uptime = Files.readString(Path.of("/proc/uptime"));
            String stat = Files.readString(Path.of("/proc/self/stat"));
            double uptimeSeconds = Double.parseDouble(uptime.substring(0, uptime.indexOf(' ')));
            // After the command name (which may hold spaces): state is field 3, starttime field 22, in
            // clock ticks of 10 ms since boot.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long process = Math.round(uptimeSeconds * 1000 - Long.parseLong(fields[22 - 3]) * 10.0);
            System.out.println(jvm + " " + process);
        }
    }
}
