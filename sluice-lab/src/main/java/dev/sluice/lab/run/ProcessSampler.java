package dev.sluice.lab.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Samples a process once a second from {@code /proc/<pid>/stat} (utime + stime, in clock ticks of
 * {@code getconf CLK_TCK}) and {@code /proc/<pid>/status} (VmRSS): what {@code pidstat -u -r} computes.
 * Samples close on whole wall-clock seconds so they line up with the load generator's per-second counts.
 */
public final class ProcessSampler implements AutoCloseable {

    private static final long TICKS = clockTicks();

    private final long pid;
    private final List<ProcessSample> samples = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;

    private ProcessSampler(long pid) {
        this.pid = pid;
        this.thread = Thread.ofPlatform().daemon().name("lab-sampler-" + pid).start(this::loop);
    }

    public static ProcessSampler start(long pid) {
        return new ProcessSampler(pid);
    }

    /** The clock ticks per second of {@code /proc} times ({@code getconf CLK_TCK}; 100 when it cannot be read). */
    public static long clockTicks() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK")
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            p.waitFor(5, TimeUnit.SECONDS);
            long t = Long.parseLong(out);
            return t > 0 ? t : 100;
        } catch (IOException | NumberFormatException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }

    public static long ticksPerSecond() {
        return TICKS;
    }

    private void loop() {
        Optional<Long> lastTicks = cpuTicks(pid);
        long lastNanos = System.nanoTime();
        while (running) {
            long now = System.currentTimeMillis();
            long next = (now / 1000 + 1) * 1000;
            try {
                Thread.sleep(next - now);
            } catch (InterruptedException e) {
                return;
            }
            Optional<Long> ticks = cpuTicks(pid);
            Optional<Double> rss = rssMb(pid);
            long nanos = System.nanoTime();
            if (ticks.isEmpty() || rss.isEmpty() || lastTicks.isEmpty()) {
                lastTicks = ticks;
                lastNanos = nanos;
                continue;
            }
            double seconds = (nanos - lastNanos) / 1e9;
            double cpu = (ticks.get() - lastTicks.get()) / (double) TICKS / seconds * 100.0;
            synchronized (samples) {
                samples.add(new ProcessSample(next / 1000 - 1, cpu, rss.get(), ticks.get() / (double) TICKS));
            }
            lastTicks = ticks;
            lastNanos = nanos;
        }
    }

    /** utime + stime of the process (all its threads), in clock ticks. */
    public static Optional<Long> cpuTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // after the command: state is field 3; utime 14, stime 15
            return Optional.of(Long.parseLong(f[14 - 3]) + Long.parseLong(f[15 - 3]));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** VmRSS of the process, in MiB. */
    public static Optional<Double> rssMb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    String kb = line.substring(6).trim().split("\\s+")[0];
                    return Optional.of(Long.parseLong(kb) / 1024.0);
                }
            }
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Stops sampling and returns every sample taken. */
    public List<ProcessSample> stop() {
        running = false;
        thread.interrupt();
        try {
            thread.join(3000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (samples) {
            return List.copyOf(samples);
        }
    }

    @Override
    public void close() {
        stop();
    }
}
