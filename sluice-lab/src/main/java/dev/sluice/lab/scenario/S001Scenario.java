package dev.sluice.lab.scenario;

import static dev.sluice.lab.report.Figures.fixed;
import static dev.sluice.lab.report.Figures.millis;

import dev.sluice.lab.Lab;
import dev.sluice.lab.LabFailure;
import dev.sluice.lab.LabOptions;
import dev.sluice.lab.UsageException;
import dev.sluice.lab.report.Charts;
import dev.sluice.lab.report.ReportDoc;
import dev.sluice.lab.run.Bench;
import dev.sluice.lab.run.Subject;
import dev.sluice.lab.run.SubjectRun;
import dev.sluice.lab.run.Upstreams;
import dev.sluice.lab.run.WrkLoad;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Seed 001: each request waits 5 s on a blocking upstream; 1,000 users. Little's law predicts
 * min(users, request threads) ÷ 5 s: 40 req/s for 200 platform threads, 200 req/s for virtual threads
 * (and for the reactive engine, which holds no thread while waiting).
 */
public final class S001Scenario {

    static final Set<String> FLAGS = LabOptions.common("--connections", "--subjects", "--runtimes", "--threads");
    static final double WAIT_SECONDS = 5.0;

    private S001Scenario() {}

    public static int run(List<String> args) throws UsageException, LabFailure {
        LabOptions o = LabOptions.parse(args, FLAGS, Set.of("--pin"));
        int seconds = (int) o.duration("--duration", Duration.ofSeconds(60)).toSeconds();
        int warmup = (int) o.duration("--warmup", Duration.ofSeconds(10)).toSeconds();
        int users = o.integer("--connections", 1000, 1, 100_000);
        int threads = o.integer("--threads", 200, 1, 100_000);
        if (seconds < 7) {
            throw new UsageException("--duration: " + seconds + " s (expected: at least 7s: each request takes 5 s)");
        }
        List<Subject> subjects = new ArrayList<>();
        for (Subject s : Subject.parse(
                o.list("--subjects", List.of("platform", "virtual", "reactive", "spring-platform", "spring-virtual")),
                o.list("--runtimes", List.of("jvm")))) {
            if (s.name().equals("spring-platform")) {
                List<String> extra = new ArrayList<>(s.extraArgs());
                extra.add("--server.tomcat.threads.max=" + threads);
                s = new Subject(s.name(), s.engine(), true, s.runtime(), extra);
            }
            subjects.add(s);
        }
        Lab lab = Lab.open(o);
        lab.workspace()
                .ensureBaselines(
                        subjects.stream()
                                .filter(Subject::baseline)
                                .map(Subject::app)
                                .distinct()
                                .toList(),
                        lab.results().logs().resolve("baselines-build.log"));
        ReportDoc doc = new ReportDoc("Sluice lab — seed 001: 5 s of blocking I/O per request, " + users + " users");
        Map<String, SubjectRun> runs = new LinkedHashMap<>();
        List<String> failures = new ArrayList<>();
        try (Upstreams up = lab.demoUpstreams()) {
            // The body names the thread that served it, so its length varies: check for a JSON object, not an exact
            // size.
            Bodies.totalSize(up.urls().get("blocking").resolve("/blocking?ms=0"));
            long minBytes = 16;
            Path config = lab.gatewayConfig(up.urls(), "", threads);
            Bench bench = lab.bench(up.urls());
            WrkLoad load = WrkLoad.steady(
                    URI.create("http://127.0.0.1/blocking"), users, lab.wrkThreads(), seconds, 30, minBytes);
            for (Subject s : subjects) {
                System.err.println("sluice lab: s001: " + s.label());
                try {
                    SubjectRun run = bench.measure(s, config, s.name(), "/blocking", load, warmup);
                    runs.put(s.name(), run);
                    lab.record(s.name(), run);
                } catch (LabFailure | IllegalStateException e) {
                    failures.add(
                            s.name() + ": " + e.getMessage().lines().findFirst().orElse(""));
                    System.err.println("sluice lab: " + s.name() + " failed: " + e.getMessage());
                }
            }
        }
        failures.forEach(f -> doc.alert("did not run: " + f));
        RunTables.alerts(doc, runs, false);
        doc.paragraph("The experiment and the published figures are those of " + Published.S001_CITATION + ".");
        doc.paragraph("`GET /blocking` waits " + (int) WAIT_SECONDS + " s on the blocking upstream. wrk keeps " + users
                + " users for " + seconds
                + " s. Little's law, L = λW, gives the rate: λ = (requests in service) ÷ 5 s, "
                + "where a thread-per-request server serves at most its thread count at once (" + threads + " platform "
                + "threads (`--threads`; Sluice's `server.platform-threads`, Tomcat's `server.tomcat.threads.max`; 200 is Tomcat's default) and virtual threads or an event loop serve every user. Machine: "
                + lab.machineLine() + ".");
        List<List<String>> rows = new ArrayList<>();
        Map<String, Double> measured = new LinkedHashMap<>();
        runs.forEach((name, r) -> {
            boolean bounded = name.equals("platform") || name.startsWith("platform-") || name.equals("spring-platform");
            int inService = bounded ? Math.min(users, threads) : users;
            double expected = inService / WAIT_SECONDS;
            String published = bounded
                    ? fixed(Published.S001_PLATFORM_RPS, 1) + " (platform, 200 threads)"
                    : name.contains("virtual") ? fixed(Published.S001_VIRTUAL_RPS, 1) + " (virtual threads)" : "–";
            rows.add(List.of(
                    name,
                    fixed(r.throughput(), 1),
                    inService + " ÷ 5 s = " + fixed(expected, 1),
                    fixed(r.throughput() / expected * 100, 0) + " %",
                    millis(r.load().latency().meanMillis().orElse(Double.NaN)),
                    published,
                    Long.toString(r.errors())));
            measured.put(name, r.throughput());
        });
        doc.heading(1, "Throughput against Little's law");
        doc.table(
                List.of(
                        "run",
                        "req/s measured",
                        "Little's law expectation",
                        "measured ÷ expected",
                        "mean ms",
                        "seed 001 published req/s",
                        "errors"),
                rows);
        if (!measured.isEmpty()) {
            doc.chart(
                    "s001-throughput.png",
                    Charts.bars("req/s with 5 s blocking upstream, " + users + " users", "req/s", measured),
                    "Measured throughput per subject");
        }
        RunTables.timeCharts(doc, "s001-", runs);
        doc.heading(1, "Every run");
        RunTables.metricsTable(doc, runs);
        RunTables.summaryCsv(lab.results(), runs);
        lab.finish(doc);
        return failures.isEmpty() && runs.values().stream().allMatch(r -> r.errors() == 0) ? 0 : 1;
    }
}
