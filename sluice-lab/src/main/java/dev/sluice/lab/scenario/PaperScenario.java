package dev.sluice.lab.scenario;

import static dev.sluice.lab.report.Figures.fixed;

import dev.sluice.lab.Lab;
import dev.sluice.lab.LabFailure;
import dev.sluice.lab.LabOptions;
import dev.sluice.lab.UsageException;
import dev.sluice.lab.report.ReportDoc;
import dev.sluice.lab.run.Bench;
import dev.sluice.lab.run.NativeImage;
import dev.sluice.lab.run.StableWindow;
import dev.sluice.lab.run.Subject;
import dev.sluice.lab.run.SubjectRun;
import dev.sluice.lab.run.Upstreams;
import dev.sluice.lab.run.WrkLoad;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The paper's experiment: {@code /compose} calls three APIs (16, 5 and 7 KB JSON) concurrently; 100
 * keep-alive users with a ramp-up; per-second CPU %, RSS and throughput of each subject; averages over
 * each run's stable window (chosen from its measured throughput, {@link StableWindow}).
 */
public final class PaperScenario {

    static final Set<String> FLAGS = LabOptions.common(
            "--connections", "--ramp-up", "--subjects", "--runtimes", "--target-rate", "--replica-cores");

    private PaperScenario() {}

    public static int run(List<String> args) throws UsageException, LabFailure {
        LabOptions o = LabOptions.parse(args, FLAGS, Set.of("--pin"));
        int seconds =
                (int) o.duration("--duration", java.time.Duration.ofSeconds(60)).toSeconds();
        int warmup =
                (int) o.duration("--warmup", java.time.Duration.ofSeconds(10)).toSeconds();
        int rampUp =
                (int) o.duration("--ramp-up", java.time.Duration.ofSeconds(5)).toSeconds();
        int users = o.integer("--connections", 100, 1, 100_000);
        int rate = o.integer("--target-rate", 10_000, 1, Integer.MAX_VALUE);
        int cores = o.integer("--replica-cores", 2, 1, 1024);
        if (seconds < 2) {
            throw new UsageException("--duration: " + seconds + " s (expected: at least 2s)");
        }
        rampUp = Math.min(rampUp, seconds - 1);
        List<Subject> subjects = Subject.parse(
                o.list("--subjects", List.of("virtual", "reactive", "platform", "spring-reactive", "spring-virtual")),
                o.list("--runtimes", List.of("jvm", "aot")));
        Lab lab = Lab.open(o);
        ReportDoc doc = new ReportDoc("Sluice lab — paper scenario (stream-based composition under load)");
        List<String> notAvailable = new ArrayList<>();
        List<Subject> runnable = new ArrayList<>();
        for (Subject s : subjects) {
            if (s.runtime().equals("native")
                    && NativeImage.executable(lab.workspace()).isEmpty()) {
                notAvailable.add(s.name() + ": native " + NativeImage.unavailable(lab.workspace()));
            } else {
                runnable.add(s);
            }
        }
        lab.workspace()
                .ensureBaselines(
                        runnable.stream()
                                .filter(Subject::baseline)
                                .map(Subject::app)
                                .distinct()
                                .toList(),
                        lab.results().logs().resolve("baselines-build.log"));
        Map<String, SubjectRun> runs = new LinkedHashMap<>();
        List<String> failures = new ArrayList<>();
        try (Upstreams up = lab.demoUpstreams()) {
            long minBytes = Bodies.totalSize(
                    up.urls().get("products").resolve("/products"),
                    up.urls().get("customers").resolve("/customers/42"),
                    up.urls().get("reviews").resolve("/reviews"));
            Path config = lab.gatewayConfig(up.urls());
            Bench bench = lab.bench(up.urls());
            WrkLoad load = new WrkLoad(
                    URI.create("http://127.0.0.1/compose"),
                    users,
                    lab.wrkThreads(),
                    seconds,
                    10,
                    minBytes,
                    -1,
                    rampUp,
                    Math.min(users, 5));
            for (Subject s : runnable) {
                System.err.println("sluice lab: paper: " + s.label() + " (" + users + " users, " + seconds + " s)");
                try {
                    SubjectRun run = bench.measure(s, config, s.name(), "/compose", load, warmup);
                    runs.put(s.name(), run);
                    lab.record(s.name(), run);
                } catch (LabFailure | IllegalStateException e) {
                    failures.add(
                            s.name() + ": " + e.getMessage().lines().findFirst().orElse(""));
                    System.err.println("sluice lab: " + s.name() + " failed: " + e.getMessage());
                }
            }
            failures.forEach(f -> doc.alert("did not run: " + f));
            RunTables.alerts(doc, runs);
            doc.paragraph("The experiment and the published figures are those of " + Published.PAPER_CITATION + ".");
            doc.paragraph("Each subject runs as its own process. wrk (" + users + " keep-alive users, ramp-up " + rampUp
                    + " s in " + load.steps() + " steps, " + seconds
                    + " s) loads `GET /compose`, which calls the products (16 KB), "
                    + "customers (5 KB) and reviews (7 KB) APIs concurrently; every response is checked (status 200 and at "
                    + "least " + minBytes + " bytes: the three bodies). A " + warmup
                    + " s warmup precedes each measurement. "
                    + "Averages are over each run's stable window, chosen from its measured throughput (the paper "
                    + "averaged 65–290 s of 300 s, where its JVM runs had settled; see “Averaged window”). Machine: "
                    + lab.machineLine() + ".");
            doc.heading(1, "Operational metrics");
            RunTables.metricsTable(doc, runs);
            RunTables.timeCharts(doc, "paper-", runs);
            comparison(doc, runs, notAvailable);
            RunTables.capacity(doc, runs, rate, cores);
            doc.heading(1, "Commands");
            StringBuilder cmds = new StringBuilder("sluice lab " + String.join(" ", o.commandLine()) + "\n");
            // a blank line between commands: a wrapped command line still reads as one
            runs.forEach((k, r) -> cmds.append('\n')
                    .append(k)
                    .append(":\n")
                    .append(String.join(" ", r.command()))
                    .append('\n'));
            doc.code(cmds.toString().trim());
            RunTables.summaryCsv(lab.results(), runs);
        }
        lab.finish(doc);
        return failures.isEmpty() && runs.values().stream().allMatch(r -> r.errors() == 0) ? 0 : 1;
    }

    /** Measured here beside the paper's published figures (stable-window averages). */
    private static void comparison(ReportDoc doc, Map<String, SubjectRun> runs, List<String> notAvailable) {
        doc.heading(1, "Beside the paper's figures");
        doc.paragraph("Published (the paper): " + Published.PAPER_MACHINE
                + "; Spring WebFlux (Reactive) and Spring MVC "
                + "on virtual threads (VT). Measured here: this machine, the runs above. The machines differ, so compare "
                + "shapes and ratios, not absolute values. The paper gives throughput only as a chart (its figure 2) "
                + "and as ratios, JVM " + fixed(Published.PAPER_THROUGHPUT_JVM_ABOVE_NATIVE_PERCENT.get("VT"), 0)
                + "\u00a0% (VT) and " + fixed(Published.PAPER_THROUGHPUT_JVM_ABOVE_NATIVE_PERCENT.get("Reactive"), 0)
                + "\u00a0% (Reactive) above native; it prints no req/s, so its throughput column is that ratio as an index "
                + "(native = 100). Columns headed “published” are the paper's; every other figure is measured here.");
        List<List<String>> rows = new ArrayList<>();
        runs.forEach((label, r) -> {
            String col = Published.paperColumn(r.subject().name());
            rows.add(List.of(
                    label,
                    col.isEmpty() ? "–" : col,
                    fixed(r.throughput(), 1) + RunTables.windowNote(r.window()),
                    col.isEmpty() ? "–" : throughputIndex(col),
                    fixed(r.cpuPercent(), 1),
                    col.isEmpty() ? "–" : fixed(Published.PAPER_CPU_PERCENT.get(col), 0),
                    fixed(r.rssMb(), 1),
                    col.isEmpty() ? "–" : fixed(Published.PAPER_RSS_MB.get(col), 0)));
        });
        for (String model : List.of("VT", "Reactive")) {
            String col = model + " Native";
            rows.add(List.of(
                    model + " native",
                    col,
                    "not available on this machine",
                    throughputIndex(col),
                    "not available",
                    fixed(Published.PAPER_CPU_PERCENT.get(col), 0),
                    "not available",
                    fixed(Published.PAPER_RSS_MB.get(col), 0)));
        }
        doc.table(
                List.of(
                        "run",
                        "paper's column",
                        "req/s measured here",
                        "throughput published (native = 100)",
                        "CPU % measured here",
                        "CPU % published",
                        "RSS MiB measured here",
                        "RSS MB published"),
                rows);
        notAvailable.forEach(n -> doc.paragraph(n));
    }

    /** The paper's throughput for one of its columns as an index, its model's native run = 100. */
    private static String throughputIndex(String column) {
        String model = column.substring(0, column.indexOf(' '));
        return column.endsWith("Native")
                ? "100"
                : fixed(100 + Published.PAPER_THROUGHPUT_JVM_ABOVE_NATIVE_PERCENT.get(model), 0);
    }
}
