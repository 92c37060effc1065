package dev.sluice.lab.run;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One subject measured under one load: how it started, what the load generator saw, and the
 * per-second samples of its process. Averages are taken over the stable window (seconds since the load
 * started), chosen from the measured throughput by {@link StableWindow#choose}.
 *
 * @param firstSecond the wall-clock second the measured load started in
 */
public record SubjectRun(
        Subject subject,
        List<String> command,
        int users,
        double startedMillis,
        Optional<Double> reportedMillis,
        double firstResponseMillis,
        Optional<LoadResult> warmup,
        LoadResult load,
        List<ProcessSample> samples,
        long firstSecond,
        int seconds,
        StableWindow window) {

    public int windowFrom() {
        return window.from();
    }

    public int windowTo() {
        return window.to();
    }

    /** One row per second of the run: seconds since start, good and bad responses, CPU %, RSS MiB (NaN when not sampled). */
    public List<double[]> perSecond() {
        Map<Long, ProcessSample> byEpoch = new TreeMap<>();
        samples.forEach(s -> byEpoch.put(s.epochSecond(), s));
        List<double[]> rows = new ArrayList<>();
        for (int t = 0; t < seconds; t++) {
            long epoch = firstSecond + t;
            long[] counts = load.perSecond().getOrDefault(epoch, new long[2]);
            ProcessSample s = byEpoch.get(epoch);
            rows.add(new double[] {
                t, counts[0], counts[1], s == null ? Double.NaN : s.cpuPercent(), s == null ? Double.NaN : s.rssMb()
            });
        }
        return rows;
    }

    private List<double[]> windowRows() {
        return perSecond().subList(window.from(), Math.min(window.to(), seconds));
    }

    /** Mean good responses per second over the window. */
    public double throughput() {
        return windowRows().stream().mapToDouble(r -> r[1]).average().orElse(Double.NaN);
    }

    /** Mean CPU % (100 = one core) over the window's samples. */
    public double cpuPercent() {
        return windowRows().stream()
                .mapToDouble(r -> r[3])
                .filter(d -> !Double.isNaN(d))
                .average()
                .orElse(Double.NaN);
    }

    /** Mean RSS (MiB) over the window's samples. */
    public double rssMb() {
        return windowRows().stream()
                .mapToDouble(r -> r[4])
                .filter(d -> !Double.isNaN(d))
                .average()
                .orElse(Double.NaN);
    }

    /** Highest RSS (MiB) of the run. */
    public double peakRssMb() {
        return samples.stream().mapToDouble(ProcessSample::rssMb).max().orElse(Double.NaN);
    }

    /** CPU seconds the subject spent per 1,000 good responses, over the window. */
    public double cpuSecondsPer1000() {
        double cpu = 0;
        double good = 0;
        for (double[] r : windowRows()) {
            if (!Double.isNaN(r[3])) {
                cpu += r[3] / 100.0;
                good += r[1];
            }
        }
        return good > 0 ? cpu / good * 1000.0 : Double.NaN;
    }

    /** Samples of the window that lack a CPU or RSS reading, or a second without a good response. */
    public List<String> gaps() {
        List<String> gaps = new ArrayList<>();
        for (double[] r : windowRows()) {
            if (r[1] <= 0) {
                gaps.add("second " + (int) r[0] + ": no good response");
            }
            if (Double.isNaN(r[3]) || Double.isNaN(r[4])) {
                gaps.add("second " + (int) r[0] + ": no CPU/RSS sample");
            }
        }
        return gaps;
    }

    /** Errors during the measured load (the warmup's are reported apart). */
    public long errors() {
        return load.errors();
    }
}
