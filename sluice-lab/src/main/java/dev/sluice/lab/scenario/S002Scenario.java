package dev.sluice.lab.scenario;

import static dev.sluice.lab.report.Figures.fixed;

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
 * Seed 002: the gateway's own overhead: a plain proxy of one upstream serving bodies of 100 B, 1 KB,
 * 10 KB and 100 KB, at 1, 2, 4, … 256 keep-alive users, for each engine mode; requests/s per size.
 */
public final class S002Scenario {

    static final Set<String> FLAGS = LabOptions.common("--sizes", "--concurrency", "--subjects", "--runtimes");

    private S002Scenario() {}

    public static int run(List<String> args) throws UsageException, LabFailure {
        LabOptions o = LabOptions.parse(args, FLAGS, Set.of("--pin"));
        int seconds = (int) o.duration("--duration", Duration.ofSeconds(10)).toSeconds();
        int warmup = (int) o.duration("--warmup", Duration.ofSeconds(5)).toSeconds();
        List<Integer> sizes = o.integers("--sizes", List.of(100, 1024, 10_240, 102_400), 16, 10 << 20);
        List<Integer> levels = o.integers("--concurrency", List.of(1, 2, 4, 8, 16, 32, 64, 128, 256), 1, 100_000);
        if (seconds < 2) {
            throw new UsageException("--duration: " + seconds + " s (expected: at least 2s)");
        }
        List<Subject> subjects = Subject.parse(
                o.list("--subjects", List.of("virtual", "reactive", "platform")), o.list("--runtimes", List.of("jvm")));
        if (subjects.stream().anyMatch(Subject::baseline)) {
            throw new UsageException(
                    "--subjects: the baselines have no proxy route (expected: virtual, reactive, platform)");
        }
        Lab lab = Lab.open(o);
        ReportDoc doc = new ReportDoc("Sluice lab — seed 002: proxy overhead by body size and concurrency");
        Map<String, SubjectRun> all = new LinkedHashMap<>();
        Map<Integer, Map<String, double[]>> rps = new LinkedHashMap<>();
        List<String> failures = new ArrayList<>();
        try (Upstreams up =
                Upstreams.sizes(lab.workspace(), lab.cpus(), lab.results().logs())) {
            Path config = lab.gatewayConfig(up.urls());
            Bench bench = lab.bench(up.urls());
            for (Subject s : subjects) {
                String probe = "/bytes/" + sizes.getFirst();
                try (RunningSubject running = bench.launcher().start(s, config, probe, sizes.getFirst())) {
                    boolean first = true;
                    for (int size : sizes) {
                        double[] perLevel = new double[levels.size()];
                        for (int i = 0; i < levels.size(); i++) {
                            String path = "/bytes/" + size;
                            WrkLoad load = WrkLoad.steady(
                                            URI.create("http://127.0.0.1" + path),
                                            levels.get(i),
                                            lab.wrkThreads(),
                                            seconds,
                                            10,
                                            size)
                                    .withExactBytes(size);
                            String label = s.name() + "-" + size + "B-c" + levels.get(i);
                            System.err.println("sluice lab: s002: " + label);
                            SubjectRun run = bench.measure(running, label, path, load, first ? warmup : 0);
                            first = false;
                            lab.record(label, run);
                            all.put(label, run);
                            perLevel[i] = run.throughput();
                        }
                        rps.computeIfAbsent(size, k -> new LinkedHashMap<>()).put(s.name(), perLevel);
                    }
                } catch (LabFailure | IllegalStateException e) {
                    failures.add(
                            s.name() + ": " + e.getMessage().lines().findFirst().orElse(""));
                }
            }
        }
        failures.forEach(f -> doc.alert("did not run: " + f));
        RunTables.alerts(doc, all);
        doc.paragraph("The experiment and the published figures are those of " + Published.S002_CITATION + ".");
        doc.paragraph(
                "`GET /bytes/N` is proxied to the lab's sizes upstream, which answers exactly N bytes; every response "
                        + "is checked for status 200 and exactly N bytes. " + seconds
                        + " s per point, keep-alive, no access log. "
                        + "Machine: " + lab.machineLine()
                        + ". Seed 002 published charts, not numbers: virtual threads somewhat "
                        + "better than the pool; with 2 users the pool slower than with 1 (hand-off latency).");
        for (Map.Entry<Integer, Map<String, double[]>> e : rps.entrySet()) {
            doc.heading(1, "Body " + e.getKey() + " bytes");
            List<String> headers = new ArrayList<>(List.of("users"));
            headers.addAll(e.getValue().keySet().stream().map(n -> n + " req/s").toList());
            List<List<String>> rows = new ArrayList<>();
            for (int i = 0; i < levels.size(); i++) {
                List<String> row = new ArrayList<>(List.of(Integer.toString(levels.get(i))));
                for (double[] v : e.getValue().values()) {
                    row.add(fixed(v[i], 1));
                }
                rows.add(row);
            }
            doc.table(headers, rows);
            List<Charts.Series> series = new ArrayList<>();
            double[] x = levels.stream().mapToDouble(Integer::doubleValue).toArray();
            e.getValue().forEach((n, v) -> series.add(new Charts.Series(n, x, v)));
            doc.chart(
                    "s002-" + e.getKey() + "B.png",
                    Charts.lines(
                            "Requests/s, " + e.getKey() + "-byte bodies", "users (log)", "req/s", series, true, true),
                    "Requests/s against users for " + e.getKey() + "-byte bodies");
        }
        doc.heading(1, "Every run");
        RunTables.metricsTable(doc, all);
        RunTables.summaryCsv(lab.results(), all);
        lab.finish(doc);
        return failures.isEmpty() && all.values().stream().allMatch(r -> r.errors() == 0) ? 0 : 1;
    }
}
