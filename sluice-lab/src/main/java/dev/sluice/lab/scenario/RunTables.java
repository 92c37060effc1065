package dev.sluice.lab.scenario;

import static dev.sluice.lab.report.Figures.NA;
import static dev.sluice.lab.report.Figures.fixed;
import static dev.sluice.lab.report.Figures.millis;

import dev.sluice.lab.LabFailure;
import dev.sluice.lab.report.Charts;
import dev.sluice.lab.report.ReportDoc;
import dev.sluice.lab.report.ResultsDir;
import dev.sluice.lab.run.SubjectRun;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The report pieces every load scenario shares: error alerts, the metrics table, time charts, Little's law. */
final class RunTables {

    private RunTables() {}

    /** Alerts at the top of the report for every run with errors or holes in its samples. */
    static void alerts(ReportDoc doc, Map<String, SubjectRun> runs) {
        alerts(doc, runs, true);
    }

    /**
     * @param everySecond whether each second of the window must have responses (not so when every
     *     request takes longer than a second and users move in step, as in seed 001)
     */
    static void alerts(ReportDoc doc, Map<String, SubjectRun> runs, boolean everySecond) {
        for (Map.Entry<String, SubjectRun> e : runs.entrySet()) {
            SubjectRun r = e.getValue();
            if (r.errors() > 0) {
                doc.alert(e.getKey() + ": " + r.errors() + " of " + (r.load().good() + r.errors())
                        + " requests failed the checks (" + r.load().describeErrors() + ")");
            }
            r.warmup()
                    .filter(w -> w.errors() > 0)
                    .ifPresent(w -> doc.alert(
                            e.getKey() + ": the warmup had " + w.errors() + " errors (" + w.describeErrors() + ")"));
            List<String> gaps = r.gaps().stream()
                    .filter(g -> everySecond || !g.endsWith("no good response"))
                    .toList();
            if (!gaps.isEmpty()) {
                doc.alert(e.getKey() + ": " + gaps.size() + " holes in the stable window ("
                        + String.join("; ", gaps.subList(0, Math.min(3, gaps.size())))
                        + (gaps.size() > 3 ? "; ..." : "") + ")");
            }
        }
    }

    static final List<String> METRIC_HEADERS = List.of(
            "run",
            "users",
            "req/s (window)",
            "CPU % (window)",
            "RSS MiB (window)",
            "peak RSS MiB",
            "CPU-s per 1000 req",
            "p50 ms",
            "p90 ms",
            "p99 ms",
            "p99.9 ms",
            "max ms",
            "mean ms",
            "errors",
            "start → started line ms",
            "start → first response ms");

    static List<String> metricRow(String label, SubjectRun r) {
        var lat = r.load().latency();
        return List.of(
                label,
                Integer.toString(r.users()),
                fixed(r.throughput(), 1),
                fixed(r.cpuPercent(), 1),
                fixed(r.rssMb(), 1),
                fixed(r.peakRssMb(), 1),
                fixed(r.cpuSecondsPer1000(), 3),
                millis(lat.millis(50).orElse(Double.NaN)),
                millis(lat.millis(90).orElse(Double.NaN)),
                millis(lat.millis(99).orElse(Double.NaN)),
                millis(lat.millis(99.9).orElse(Double.NaN)),
                millis(lat.millis(100).orElse(Double.NaN)),
                millis(lat.meanMillis().orElse(Double.NaN)),
                Long.toString(r.errors()),
                fixed(r.startedMillis(), 0),
                fixed(r.firstResponseMillis(), 0));
    }

    static void metricsTable(ReportDoc doc, Map<String, SubjectRun> runs) {
        List<List<String>> rows = new ArrayList<>();
        runs.forEach((label, r) -> rows.add(metricRow(label, r)));
        doc.table(METRIC_HEADERS, rows);
    }

    /** {@code raw/summary.csv}: the metrics table, one row per run. */
    static void summaryCsv(ResultsDir results, Map<String, SubjectRun> runs) throws LabFailure {
        List<List<String>> rows = new ArrayList<>();
        runs.forEach((label, r) -> rows.add(
                metricRow(label, r).stream().map(s -> s.replace(",", "")).toList()));
        results.csv("summary.csv", METRIC_HEADERS, rows);
    }

    /** Throughput, CPU and RSS over time, one line per run (the paper's figures 2–4). */
    static void timeCharts(ReportDoc doc, String prefix, Map<String, SubjectRun> runs) {
        List<Charts.Series> tput = new ArrayList<>();
        List<Charts.Series> cpu = new ArrayList<>();
        List<Charts.Series> rss = new ArrayList<>();
        runs.forEach((label, r) -> {
            List<double[]> rows = r.perSecond();
            double[] t = rows.stream().mapToDouble(x -> x[0]).toArray();
            tput.add(new Charts.Series(
                    label, t, rows.stream().mapToDouble(x -> x[1]).toArray()));
            cpu.add(new Charts.Series(
                    label, t, rows.stream().mapToDouble(x -> x[3]).toArray()));
            rss.add(new Charts.Series(
                    label, t, rows.stream().mapToDouble(x -> x[4]).toArray()));
        });
        doc.chart(
                prefix + "throughput.png",
                Charts.lines("Throughput per second", "seconds", "good responses / s", tput, false, false),
                "Throughput over time (paper, figure 2)");
        doc.chart(
                prefix + "cpu.png",
                Charts.lines("CPU of the subject process", "seconds", "CPU % (100 = one core)", cpu, false, false),
                "CPU over time, as pidstat -u (paper, figure 3)");
        doc.chart(
                prefix + "rss.png",
                Charts.lines("Memory (RSS) of the subject process", "seconds", "RSS MiB", rss, false, false),
                "Memory over time, as pidstat -r (paper, figure 4)");
    }

    /**
     * Little's law, L = λW: the measured concurrency check (λ × W against the users), CPU per request,
     * and how many replicas of {@code cores} cores serve {@code rate} req/s at 70 % CPU.
     */
    static void capacity(ReportDoc doc, Map<String, SubjectRun> runs, int rate, int cores) {
        doc.heading(1, "Capacity (Little's law)");
        doc.paragraph("L = λW: with λ the measured throughput and W the mean latency, λ × W should equal the users "
                + "in the system (a lower value means time was spent outside the gateway, in the load generator or the "
                + "network). CPU per request is the subject's CPU time over the window divided by its good responses; "
                + "replicas = ⌈rate × CPU per request ÷ (cores × 0.7)⌉ for a target of " + rate
                + " req/s on replicas of "
                + cores
                + " cores kept at 70 % CPU (`--target-rate`, `--replica-cores`). It assumes the gateway's CPU is "
                + "the limit: the upstreams' time is waiting, not CPU.");
        List<List<String>> rows = new ArrayList<>();
        runs.forEach((label, r) -> {
            double x = r.throughput();
            double w = r.load().latency().meanMillis().orElse(Double.NaN) / 1000.0;
            double cpuPerReq = r.cpuSecondsPer1000() / 1000.0;
            double replicas = Math.ceil(rate * cpuPerReq / (cores * 0.7));
            boolean ok = Double.isFinite(x) && x > 0 && Double.isFinite(cpuPerReq) && cpuPerReq > 0;
            rows.add(List.of(
                    label,
                    fixed(x, 1),
                    millis(w * 1000),
                    fixed(x * w, 1),
                    Integer.toString(r.users()),
                    ok ? fixed(cpuPerReq * 1000, 3) + " ms" : NA,
                    ok ? fixed(replicas, 0) : NA));
        });
        doc.table(
                List.of(
                        "run",
                        "λ req/s",
                        "W mean ms",
                        "L = λW",
                        "users",
                        "CPU per request",
                        "replicas of " + cores + " cores for " + rate + " req/s"),
                rows);
    }
}
