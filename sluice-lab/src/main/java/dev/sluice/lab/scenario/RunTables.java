package dev.sluice.lab.scenario;

import static dev.sluice.lab.report.Figures.NA;
import static dev.sluice.lab.report.Figures.fixed;
import static dev.sluice.lab.report.Figures.millis;

import dev.sluice.lab.LabFailure;
import dev.sluice.lab.report.Charts;
import dev.sluice.lab.report.ReportDoc;
import dev.sluice.lab.report.ResultsDir;
import dev.sluice.lab.run.StableWindow;
import dev.sluice.lab.run.SubjectRun;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The report pieces every load scenario shares: error alerts, the metrics table, time charts, Little's law. */
final class RunTables {

    private RunTables() {}

    /** Alerts at the top of the report for every run with errors or holes in its samples, cautions for unstable windows. */
    static void alerts(ReportDoc doc, Map<String, SubjectRun> runs) {
        alerts(doc, runs, true);
    }

    /**
     * @param everySecond whether each second of the window must have responses (not so when every
     *     request takes longer than a second and users move in step, as in seed 001)
     */
    static void alerts(ReportDoc doc, Map<String, SubjectRun> runs, boolean everySecond) {
        windowCautions(doc, runs);
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

    /** Every figure of a run, as {@code raw/summary.csv} holds them; the report splits them into narrower tables. */
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
            "start → first response ms",
            "window from s",
            "window to s",
            "window status");

    static List<String> metricRow(String label, SubjectRun r) {
        List<String> row = new ArrayList<>();
        for (String h : METRIC_HEADERS) {
            row.add(cell(h, label, r));
        }
        return row;
    }

    private static String cell(String header, String label, SubjectRun r) {
        var lat = r.load().latency();
        return switch (header) {
            case "run" -> label;
            case "users" -> Integer.toString(r.users());
            case "req/s (window)" -> fixed(r.throughput(), 1);
            case "CPU % (window)" -> fixed(r.cpuPercent(), 1);
            case "RSS MiB (window)" -> fixed(r.rssMb(), 1);
            case "peak RSS MiB" -> fixed(r.peakRssMb(), 1);
            case "CPU-s per 1000 req" -> fixed(r.cpuSecondsPer1000(), 3);
            case "p50 ms" -> millis(lat.millis(50).orElse(Double.NaN));
            case "p90 ms" -> millis(lat.millis(90).orElse(Double.NaN));
            case "p99 ms" -> millis(lat.millis(99).orElse(Double.NaN));
            case "p99.9 ms" -> millis(lat.millis(99.9).orElse(Double.NaN));
            case "max ms" -> millis(lat.millis(100).orElse(Double.NaN));
            case "mean ms" -> millis(lat.meanMillis().orElse(Double.NaN));
            case "errors" -> Long.toString(r.errors());
            case "start → started line ms" -> fixed(r.startedMillis(), 0);
            case "start → first response ms" -> fixed(r.firstResponseMillis(), 0);
            case "window from s" -> Integer.toString(r.windowFrom());
            case "window to s" -> Integer.toString(r.windowTo());
            case "window status" -> r.window().status().name().toLowerCase(Locale.ROOT);
            default -> throw new IllegalArgumentException("column: " + header);
        };
    }

    /** The columns of the report's two metrics tables (each fits a page; {@code raw/summary.csv} has all). */
    static final List<String> LOAD_COLUMNS = List.of(
            "run", "users", "req/s (window)", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms", "mean ms", "errors");

    static final List<String> RESOURCE_COLUMNS = List.of(
            "run",
            "CPU % (window)",
            "RSS MiB (window)",
            "peak RSS MiB",
            "CPU-s per 1000 req",
            "start → started line ms",
            "start → first response ms");

    /** Throughput and latency, then resources and start, then each run's averaged window and how it was chosen. */
    static void metricsTable(ReportDoc doc, Map<String, SubjectRun> runs) {
        doc.heading(2, "Throughput and latency");
        doc.table(LOAD_COLUMNS, rows(runs, LOAD_COLUMNS));
        doc.heading(2, "Resources and start-up");
        doc.table(RESOURCE_COLUMNS, rows(runs, RESOURCE_COLUMNS));
        windowTable(doc, runs);
    }

    private static List<List<String>> rows(Map<String, SubjectRun> runs, List<String> columns) {
        List<List<String>> rows = new ArrayList<>();
        runs.forEach((label, r) ->
                rows.add(columns.stream().map(c -> cell(c, label, r)).toList()));
        return rows;
    }

    /** Which seconds each run's figures average, and whether the throughput was steady there. */
    static void windowTable(ReportDoc doc, Map<String, SubjectRun> runs) {
        doc.heading(2, "Averaged window");
        doc.paragraph(StableWindow.RULE);
        List<List<String>> rows = new ArrayList<>();
        runs.forEach((label, r) -> {
            StableWindow w = r.window();
            rows.add(List.of(
                    label,
                    w.describe(),
                    Integer.toString(w.rollingSeconds()),
                    Double.isFinite(w.driftPercent()) ? "±" + fixed(w.driftPercent(), 1) + " %" : NA,
                    switch (w.status()) {
                        case STABLE -> "stable";
                        case SHORT -> "**short**: " + w.reason();
                        case UNSTABLE -> "**not stable**: " + w.reason();
                    }));
        });
        doc.table(List.of("run", "averaged window", "k s", "rolling means within", "status"), rows);
    }

    /** Said after a figure averaged over a flagged window, so that the figure is not read alone. */
    static String windowNote(StableWindow w) {
        return switch (w.status()) {
            case STABLE -> "";
            case SHORT -> " (short window)";
            case UNSTABLE -> " (window not stable)";
        };
    }

    /** One caution per kind of flagged window, at the top of the report, naming the runs. */
    static void windowCautions(ReportDoc doc, Map<String, SubjectRun> runs) {
        for (StableWindow.Status status : List.of(StableWindow.Status.UNSTABLE, StableWindow.Status.SHORT)) {
            List<String> flagged = runs.entrySet().stream()
                    .filter(e -> e.getValue().window().status() == status)
                    .map(Map.Entry::getKey)
                    .toList();
            if (flagged.isEmpty()) {
                continue;
            }
            String names = String.join(", ", flagged.subList(0, Math.min(8, flagged.size())))
                    + (flagged.size() > 8 ? " and " + (flagged.size() - 8) + " more" : "");
            doc.caution(
                    status == StableWindow.Status.UNSTABLE
                            ? "no stable window for " + names + ": the averages may include the warm-up "
                                    + "(see “Averaged window”); do not read them as steady-state figures."
                            : "a short stable window (under " + StableWindow.SHORT_SECONDS + " s) for " + names
                                    + ": longer runs give figures to rely on (see “Averaged window”).");
        }
    }

    /** {@code raw/summary.csv}: the metrics table, one row per run. */
    static void summaryCsv(ResultsDir results, Map<String, SubjectRun> runs) throws LabFailure {
        List<List<String>> rows = new ArrayList<>();
        runs.forEach((label, r) -> rows.add(
                metricRow(label, r).stream().map(s -> s.replace(",", "")).toList()));
        results.csv("summary.csv", METRIC_HEADERS, rows);
    }

    /** Throughput, CPU and RSS over time, one line per run (the paper's figures 2–4), each run's window marked. */
    static void timeCharts(ReportDoc doc, String prefix, Map<String, SubjectRun> runs) {
        List<Charts.Series> tput = new ArrayList<>();
        List<Charts.Series> cpu = new ArrayList<>();
        List<Charts.Series> rss = new ArrayList<>();
        List<Charts.Window> tputWindows = new ArrayList<>();
        List<Charts.Window> cpuWindows = new ArrayList<>();
        List<Charts.Window> rssWindows = new ArrayList<>();
        runs.forEach((label, r) -> {
            List<double[]> rows = r.perSecond();
            double[] t = rows.stream().mapToDouble(x -> x[0]).toArray();
            tput.add(new Charts.Series(
                    label, t, rows.stream().mapToDouble(x -> x[1]).toArray()));
            cpu.add(new Charts.Series(
                    label, t, rows.stream().mapToDouble(x -> x[3]).toArray()));
            rss.add(new Charts.Series(
                    label, t, rows.stream().mapToDouble(x -> x[4]).toArray()));
            double from = r.windowFrom();
            double last = Math.max(from, r.windowTo() - 1);
            tputWindows.add(new Charts.Window(label, from, last, r.throughput()));
            cpuWindows.add(new Charts.Window(label, from, last, r.cpuPercent()));
            rssWindows.add(new Charts.Window(label, from, last, r.rssMb()));
        });
        String marked = " The pale bar over each line spans that run's averaged window, at its mean; dotted lines "
                + "mark the window's first and last second.";
        doc.chart(
                prefix + "throughput.png",
                Charts.lines("Throughput per second", "seconds", "good responses / s", tput, tputWindows, false, false),
                "Throughput over time (the paper's figure 2)." + marked);
        doc.chart(
                prefix + "cpu.png",
                Charts.lines(
                        "CPU of the subject process",
                        "seconds",
                        "CPU % (100 = one core)",
                        cpu,
                        cpuWindows,
                        false,
                        false),
                "CPU over time, as pidstat -u (the paper's figure 3)." + marked);
        doc.chart(
                prefix + "rss.png",
                Charts.lines(
                        "Memory (RSS) of the subject process", "seconds", "RSS MiB", rss, rssWindows, false, false),
                "Memory over time, as pidstat -r (the paper's figure 4)." + marked);
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
