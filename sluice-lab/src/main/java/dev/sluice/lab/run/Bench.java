package dev.sluice.lab.run;

import static java.util.Objects.requireNonNull;

import dev.sluice.lab.LabFailure;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Measures a subject: start it, warm it up, then sample its process every second while wrk loads it,
 * then stop it. When {@code pidstat} is installed its own output is kept beside the lab's samples.
 */
public final class Bench {

    private final SubjectLauncher launcher;
    private final Wrk wrk;
    private final CpuPlan cpus;
    private final Path rawDir;

    public Bench(SubjectLauncher launcher, Wrk wrk, CpuPlan cpus, Path rawDir) {
        this.launcher = requireNonNull(launcher, "launcher");
        this.wrk = requireNonNull(wrk, "wrk");
        this.cpus = requireNonNull(cpus, "cpus");
        this.rawDir = requireNonNull(rawDir, "rawDir");
    }

    public SubjectLauncher launcher() {
        return launcher;
    }

    public Wrk wrk() {
        return wrk;
    }

    /**
     * @param label names the raw files ({@code <label>-wrk-0.txt}); unique per measurement
     * @param path the path loaded (and probed for the first response)
     * @param warmupSeconds 0 for none; the warmup uses the load's users without ramp-up
     */
    public SubjectRun measure(
            Subject subject, Path gatewayConfig, String label, String path, WrkLoad load, int warmupSeconds)
            throws LabFailure {
        try (RunningSubject running = launcher.start(subject, gatewayConfig, path, load.minBytes())) {
            return measure(running, label, path, load, warmupSeconds);
        }
    }

    /** Measures a subject that is already running (several loads on one start). */
    public SubjectRun measure(RunningSubject running, String label, String path, WrkLoad load, int warmupSeconds)
            throws LabFailure {
        WrkLoad target = new WrkLoad(
                running.url(path),
                load.connections(),
                load.threads(),
                load.seconds(),
                load.timeoutSeconds(),
                load.minBytes(),
                load.exactBytes(),
                load.rampUpSeconds(),
                load.rampSteps());
        Optional<LoadResult> warm = Optional.empty();
        if (warmupSeconds > 0) {
            warm = Optional.of(wrk.run(target.withSeconds(warmupSeconds, 0), rawDir, label + "-warmup"));
        }
        Optional<Process> pidstat = pidstat(running.process().pid(), rawDir.resolve(label + "-pidstat.txt"));
        ProcessSampler sampler = ProcessSampler.start(running.process().pid());
        long first = System.currentTimeMillis() / 1000;
        LoadResult result;
        try {
            result = wrk.run(target, rawDir, label);
            // the sample closing the run's last second is taken on the next whole second
            long last = (first + load.seconds()) * 1000 + 150;
            long wait = last - System.currentTimeMillis();
            if (wait > 0 && wait < 2000) {
                Thread.sleep(wait);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LabFailure(
                    "interrupted while measuring " + running.subject().name(), e);
        } finally {
            pidstat.ifPresent(Process::destroy);
        }
        List<ProcessSample> samples = sampler.stop();
        if (!running.process().isAlive()) {
            throw new LabFailure(running.subject().name() + " died during the load; log "
                    + running.process().log() + ":\n" + running.process().tail());
        }
        double[] good = new double[load.seconds()];
        for (int t = 0; t < good.length; t++) {
            good[t] = result.perSecond().getOrDefault(first + t, new long[2])[0];
        }
        StableWindow window = StableWindow.choose(good, load.rampUpSeconds());
        return new SubjectRun(
                running.subject(),
                running.command(),
                load.connections(),
                running.startedMillis(),
                running.reportedMillis(),
                running.firstResponseMillis(),
                warm,
                result,
                samples,
                first,
                load.seconds(),
                window);
    }

    private Optional<Process> pidstat(long pid, Path out) {
        try {
            List<String> command = cpus.load(List.of("pidstat", "-h", "-u", "-r", "-p", Long.toString(pid), "1"));
            return Optional.of(new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(out.toFile())
                    .start());
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
