package dev.sluice.lab.scenario;

import static dev.sluice.lab.report.Figures.fixed;
import static dev.sluice.lab.report.Figures.millis;

import dev.sluice.lab.GatewayYaml;
import dev.sluice.lab.Lab;
import dev.sluice.lab.LabFailure;
import dev.sluice.lab.LabOptions;
import dev.sluice.lab.UsageException;
import dev.sluice.lab.report.Charts;
import dev.sluice.lab.report.ReportDoc;
import dev.sluice.lab.run.Bench;
import dev.sluice.lab.run.LoadResult;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Seed 003: a fast route ({@code /fast}, a 5 ms upstream) under 200 users, first alone, then while 100
 * users keep a slow composition in flight ({@code /slow-composition}: a parallelisable API 5 times and
 * a rate-limited API, paced at 1 call / 200 ms, 4 times). Whether the slow work is isolated from the
 * fast route shows as the fast route's throughput and latency holding or falling. Each mode runs
 * without and with isolation ({@code --isolation off,on}): with it, the slow route has a {@code
 * concurrency} filter ({@code max} = {@code --slow-max}, no queue), so the requests beyond it are shed
 * at once with 503 and Retry-After, which the slow clients honour.
 */
public final class S003Scenario {

    static final Set<String> FLAGS = LabOptions.common(
            "--connections", "--slow-connections", "--subjects", "--runtimes", "--isolation", "--slow-max");

    private S003Scenario() {}

    public static int run(List<String> args) throws UsageException, LabFailure {
        LabOptions o = LabOptions.parse(args, FLAGS, Set.of("--pin"));
        int seconds = (int) o.duration("--duration", Duration.ofSeconds(60)).toSeconds();
        int warmup = (int) o.duration("--warmup", Duration.ofSeconds(10)).toSeconds();
        int users = o.integer("--connections", 200, 1, 100_000);
        int slowUsers = o.integer("--slow-connections", 100, 1, 100_000);
        int slowMax = o.integer("--slow-max", 8, 1, 100_000);
        List<String> isolation = o.list("--isolation", List.of("off", "on"));
        for (String i : isolation) {
            if (!i.equals("off") && !i.equals("on")) {
                throw new UsageException("--isolation: '" + i + "' (expected: off, on or off,on)");
            }
        }
        if (seconds < 2) {
            throw new UsageException("--duration: " + seconds + " s (expected: at least 2s)");
        }
        List<Subject> subjects = Subject.parse(
                o.list("--subjects", List.of("virtual", "reactive", "platform")), o.list("--runtimes", List.of("jvm")));
        if (subjects.stream().anyMatch(Subject::baseline)) {
            throw new UsageException(
                    "--subjects: the baselines have no slow-composition route (expected: virtual, reactive, platform)");
        }
        Lab lab = Lab.open(o);
        ReportDoc doc = new ReportDoc("Sluice lab — seed 003: a fast route beside slow, rate-limited composition");
        Map<String, SubjectRun> all = new LinkedHashMap<>();
        Map<String, LoadResult> slow = new LinkedHashMap<>();
        List<String> failures = new ArrayList<>();
        Map<String, Path> configs = new LinkedHashMap<>();
        try (Upstreams up = lab.demoUpstreams()) {
            Map<String, URI> urls = new LinkedHashMap<>(up.urls());
            for (String i : isolation) {
                configs.put(
                        i,
                        i.equals("off")
                                ? lab.gatewayConfig(urls, FAST_ROUTE)
                                : lab.gatewayConfig(
                                        "gateway-isolated.yaml",
                                        GatewayYaml.demoRoutes(urls, 200, isolatedFilter(slowMax)) + FAST_ROUTE));
            }
            Bench bench = lab.bench(urls);
            WrkLoad fast =
                    WrkLoad.steady(URI.create("http://127.0.0.1/fast"), users, lab.wrkThreads(), seconds, 30, 16);
            WrkLoad slowLoad = WrkLoad.steady(
                    URI.create("http://127.0.0.1/slow-composition"), slowUsers, 1, seconds + 2, seconds + 150, 100);
            for (Subject s : subjects) {
                for (Map.Entry<String, Path> config : configs.entrySet()) {
                    String key = key(s, config.getKey());
                    System.err.println("sluice lab: s003: " + s.label() + ", isolation " + config.getKey());
                    try (RunningSubject running = bench.launcher().start(s, config.getValue(), "/fast", 16)) {
                        SubjectRun alone = bench.measure(running, key + "-fast-alone", "/fast", fast, warmup);
                        lab.record(key + "-fast-alone", alone);
                        all.put(key + " fast alone", alone);
                        WrkLoad slowTarget = new WrkLoad(
                                running.url("/slow-composition"),
                                slowLoad.connections(),
                                1,
                                slowLoad.seconds(),
                                slowLoad.timeoutSeconds(),
                                slowLoad.minBytes(),
                                -1,
                                0,
                                1);
                        CompletableFuture<LoadResult> slowRun = CompletableFuture.supplyAsync(() -> {
                            try {
                                return bench.wrk()
                                        .run(
                                                slowTarget,
                                                lab.results().raw(),
                                                key + "-slow",
                                                Map.of("SLUICE_LAB_RETRY_AFTER", "honour"));
                            } catch (LabFailure e) {
                                throw new CompletionException(e);
                            }
                        });
                        Thread.sleep(1000);
                        SubjectRun mixed = bench.measure(running, key + "-fast-with-slow", "/fast", fast, 0);
                        lab.record(key + "-fast-with-slow", mixed);
                        all.put(key + " fast with slow", mixed);
                        slow.put(key, slowRun.join());
                    } catch (LabFailure | IllegalStateException | CompletionException e) {
                        failures.add(key + ": "
                                + String.valueOf(e.getMessage())
                                        .lines()
                                        .findFirst()
                                        .orElse(""));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new LabFailure("interrupted", e);
                    }
                }
            }
        }
        failures.forEach(f -> doc.alert("did not run: " + f));
        RunTables.alerts(doc, all);
        doc.paragraph("The experiment and the published figures are those of " + Published.S003_CITATION + ".");
        doc.paragraph("`/fast` proxies a 5 ms upstream (the seed's DB-backed endpoint), " + users
                + " users. `/slow-composition` "
                + "calls the delay API 5 times in parallel (200 ms each) and the rate-limited API 4 times, paced by Sluice at "
                + "1 call / 200 ms (`pace:`), " + slowUsers
                + " users: at most 1.25 slow requests/s complete, the rest wait. "
                + "The platform engine holds a request thread and fan-out threads while slow work waits (not isolated); the "
                + "virtual engine parks virtual threads and the reactive engine holds no thread (isolated). Seed 003 published: "
                + "synchronous " + Published.S003_SYNC + "; slow calls on their own executor " + Published.S003_ISOLATED
                + ". "
                + "Machine: " + lab.machineLine() + ".");
        List<List<String>> rows = new ArrayList<>();
        Map<String, List<Double>> bars = new LinkedHashMap<>();
        List<String> cats = new ArrayList<>();
        List<Double> aloneTps = new ArrayList<>();
        List<Double> mixedTps = new ArrayList<>();
        rows.add(published("seed 003 published: synchronous", Published.S003_SYNC));
        rows.add(published("seed 003 published: slow calls on their own executor", Published.S003_ISOLATED));
        for (Subject s : subjects) {
            for (String iso : configs.keySet()) {
                String key = key(s, iso);
                SubjectRun a = all.get(key + " fast alone");
                SubjectRun m = all.get(key + " fast with slow");
                if (a == null || m == null) {
                    continue;
                }
                LoadResult sl = slow.get(key);
                rows.add(List.of(
                        s.name() + (iso.equals("on") ? ", slow route max " + slowMax : ", slow route unlimited"),
                        fixed(a.throughput(), 1),
                        millis(a.load().latency().meanMillis().orElse(Double.NaN)),
                        fixed(m.throughput(), 1),
                        millis(m.load().latency().meanMillis().orElse(Double.NaN)),
                        fixed(m.throughput() / a.throughput() * 100, 0) + " %",
                        sl == null ? "n/a" : Long.toString(sl.good()),
                        sl == null ? "n/a" : Long.toString(sl.badStatuses().getOrDefault(503, 0L)),
                        sl == null ? "n/a" : millis(sl.latency().meanMillis().orElse(Double.NaN))));
                cats.add(key);
                aloneTps.add(a.throughput());
                mixedTps.add(m.throughput());
            }
        }
        doc.heading(1, "Fast route: alone vs beside the slow composition");
        doc.table(
                List.of(
                        "mode",
                        "fast TPS alone",
                        "fast mean ms alone",
                        "fast TPS with slow",
                        "fast mean ms with slow",
                        "kept",
                        "slow responses completed",
                        "slow shed (503)",
                        "slow mean ms"),
                rows);
        if (!cats.isEmpty()) {
            bars.put("fast route alone", aloneTps);
            bars.put("fast route with slow work in flight", mixedTps);
            doc.chart(
                    "s003-fast.png",
                    Charts.bars("Fast route TPS", "TPS", cats, bars, Map.of()),
                    "Fast-route throughput, alone and with the slow composition in flight");
        }
        doc.heading(1, "Every run");
        RunTables.metricsTable(doc, all);
        RunTables.summaryCsv(lab.results(), all);
        lab.finish(doc);
        return failures.isEmpty() && all.values().stream().allMatch(r -> r.errors() == 0) ? 0 : 1;
    }

    private static String key(Subject s, String isolation) {
        return isolation.equals("on") ? s.name() + "-isolated" : s.name();
    }

    /** The slow route's filter with isolation on: {@code max} in flight, the rest shed at once. */
    static String isolatedFilter(int max) {
        return "- concurrency: { max: " + max + ", queue: 0 }";
    }

    private static final Pattern PUBLISHED = Pattern.compile("([0-9.]+) TPS / ([0-9.]+) ms");

    /** A row of the seed's own figures (fast route with the slow work), beside the measured ones. */
    private static List<String> published(String label, String figures) {
        Matcher m = PUBLISHED.matcher(figures);
        if (!m.matches()) {
            throw new IllegalStateException("unreadable published figures: " + figures);
        }
        return List.of(label, "", "", m.group(1), m.group(2), "", "", "", "");
    }

    static final String FAST_ROUTE = """
        # Seed 003's fast endpoint: one 5 ms upstream call.
        - id: fast
          match: { path: /fast, methods: [GET] }
          proxy: { upstream: delay, path: "/delay?index=0&ms=5" }
      """;
}
