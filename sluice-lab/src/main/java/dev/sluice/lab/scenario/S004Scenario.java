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
import dev.sluice.lab.run.RunningSubject;
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
 * Seed 004: {@code /compose-delay} calls a 30 ms API three times; TPS and mean time at 30, 60, 90, 150
 * and 180 users for sequential fan-out (the seed's "Blocking"), Sluice's engines and the baselines.
 */
public final class S004Scenario {

    static final Set<String> FLAGS = LabOptions.common("--users", "--subjects", "--runtimes");

    private S004Scenario() {}

    public static int run(List<String> args) throws UsageException, LabFailure {
        LabOptions o = LabOptions.parse(args, FLAGS, Set.of("--pin"));
        int seconds = (int) o.duration("--duration", Duration.ofSeconds(30)).toSeconds();
        int warmup = (int) o.duration("--warmup", Duration.ofSeconds(10)).toSeconds();
        List<Integer> users = o.integers("--users", Published.S004_USERS, 1, 100_000);
        if (seconds < 2) {
            throw new UsageException("--duration: " + seconds + " s (expected: at least 2s)");
        }
        List<String> names = new ArrayList<>(o.list(
                "--subjects",
                List.of(
                        "sequential",
                        "virtual",
                        "reactive",
                        "platform",
                        "spring-virtual",
                        "spring-reactive",
                        "kotlin-coroutines")));
        boolean sequential = names.remove("sequential");
        List<Subject> subjects = new ArrayList<>();
        if (sequential) {
            subjects.add(new Subject("sequential", "virtual", false, "jvm", List.of()));
        }
        subjects.addAll(Subject.parse(names, o.list("--runtimes", List.of("jvm"))));
        Lab lab = Lab.open(o);
        lab.workspace()
                .ensureBaselines(
                        subjects.stream()
                                .filter(Subject::baseline)
                                .map(Subject::app)
                                .distinct()
                                .toList(),
                        lab.results().logs().resolve("baselines-build.log"));
        ReportDoc doc = new ReportDoc("Sluice lab — seed 004: virtual threads vs reactive vs coroutines");
        Map<String, Map<Integer, SubjectRun>> bySubject = new LinkedHashMap<>();
        Map<String, SubjectRun> all = new LinkedHashMap<>();
        List<String> failures = new ArrayList<>();
        try (Upstreams up = lab.demoUpstreams()) {
            URI delay = up.urls().get("delay");
            long minBytes = Bodies.totalSize(
                    delay.resolve("/delay?index=1"), delay.resolve("/delay?index=2"), delay.resolve("/delay?index=3"));
            Path config = lab.gatewayConfig(up.urls());
            Bench bench = lab.bench(up.urls());
            for (Subject s : subjects) {
                String path = s.name().equals("sequential") ? "/compose-delay-sequential" : "/compose-delay";
                System.err.println("sluice lab: s004: " + s.label() + " " + path);
                try (RunningSubject running = bench.launcher().start(s, config, path, minBytes)) {
                    Map<Integer, SubjectRun> levels = new LinkedHashMap<>();
                    for (int i = 0; i < users.size(); i++) {
                        int u = users.get(i);
                        WrkLoad load = WrkLoad.steady(
                                URI.create("http://127.0.0.1" + path), u, lab.wrkThreads(), seconds, 10, minBytes);
                        String label = s.name() + "-" + u;
                        SubjectRun run = bench.measure(running, label, path, load, i == 0 ? warmup : 0);
                        lab.record(label, run);
                        levels.put(u, run);
                        all.put(label, run);
                    }
                    bySubject.put(s.name(), levels);
                } catch (LabFailure | IllegalStateException e) {
                    failures.add(
                            s.name() + ": " + e.getMessage().lines().findFirst().orElse(""));
                    System.err.println("sluice lab: " + s.name() + " failed: " + e.getMessage());
                }
            }
        }
        failures.forEach(f -> doc.alert("did not run: " + f));
        RunTables.alerts(doc, all);
        doc.paragraph("The experiment and the published figures are those of " + Published.S004_CITATION + ".");
        doc.paragraph("`GET /compose-delay` calls the delay API (`{\"index\":N,\"data\":\"test data\"}` after 30 ms) "
                + "three times in parallel and combines the results; `sequential` is Sluice's `fanout: sequential` route "
                + "(the seed's Blocking style). wrk holds each user count for " + seconds
                + " s; every response is checked. "
                + "TPS is the mean of each run's stable window, chosen from its measured throughput (see “Averaged window”). The seed ran nGrinder against pods of "
                + "2 CPU / 1 GB; machine here: " + lab.machineLine() + ".");
        doc.heading(1, "TPS and mean time by users, beside seed 004's");
        doc.paragraph("One row per run; the published columns hold seed 004's figure for the style the run compares "
                + "with (in brackets), \"–\" where the seed published none.");
        List<List<String>> rows = new ArrayList<>();
        bySubject.forEach((n, levels) -> {
            String col = Published.s004Column(n);
            for (int u : users) {
                SubjectRun r = levels.get(u);
                int idx = Published.S004_USERS.indexOf(u);
                double tps = col.isEmpty() || idx < 0
                        ? Double.NaN
                        : Published.S004_TPS.get(col).get(idx);
                rows.add(List.of(
                        n,
                        Integer.toString(u),
                        r == null ? "n/a" : fixed(r.throughput(), 1) + RunTables.windowNote(r.window()),
                        Double.isFinite(tps) ? fixed(tps, 1) + " (" + col + ")" : "–",
                        r == null
                                ? "n/a"
                                : millis(r.load().latency().meanMillis().orElse(Double.NaN)),
                        u == 180 && Published.S004_MEAN_MS_180.containsKey(col)
                                ? fixed(Published.S004_MEAN_MS_180.get(col), 1) + " (" + col + ")"
                                : "–"));
            }
        });
        doc.table(
                List.of(
                        "run",
                        "users",
                        "TPS measured here",
                        "TPS published (seed 004)",
                        "mean ms measured here",
                        "mean ms published (seed 004)"),
                rows);
        List<Charts.Series> series = new ArrayList<>();
        bySubject.forEach((n, levels) -> series.add(new Charts.Series(
                n,
                levels.keySet().stream().mapToDouble(Integer::doubleValue).toArray(),
                levels.values().stream().mapToDouble(SubjectRun::throughput).toArray())));
        for (String col : List.of("Blocking", "VT", "Reactive", "Coroutines")) {
            series.add(new Charts.Series(
                    "seed 004 " + col + " (published)",
                    Published.S004_USERS.stream()
                            .mapToDouble(Integer::doubleValue)
                            .toArray(),
                    Published.S004_TPS.get(col).stream()
                            .mapToDouble(Double::doubleValue)
                            .toArray()));
        }
        doc.chart(
                "s004-tps.png",
                Charts.lines("TPS against users: /compose-delay (3 × 30 ms)", "users", "TPS", series, false, true),
                "TPS against users, measured here and as published by seed 004");
        doc.heading(1, "Every run");
        RunTables.metricsTable(doc, all);
        RunTables.summaryCsv(lab.results(), all);
        lab.finish(doc);
        return failures.isEmpty() && all.values().stream().allMatch(r -> r.errors() == 0) ? 0 : 1;
    }
}
