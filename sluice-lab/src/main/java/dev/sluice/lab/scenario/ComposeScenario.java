package dev.sluice.lab.scenario;

import static dev.sluice.lab.report.Figures.NA;
import static dev.sluice.lab.report.Figures.fixed;

import dev.sluice.lab.GatewayYaml;
import dev.sluice.lab.Lab;
import dev.sluice.lab.LabFailure;
import dev.sluice.lab.LabOptions;
import dev.sluice.lab.UsageException;
import dev.sluice.lab.Workspace;
import dev.sluice.lab.compose.ComposeRoutes;
import dev.sluice.lab.compose.Documents;
import dev.sluice.lab.compose.Probe;
import dev.sluice.lab.report.ReportDoc;
import dev.sluice.lab.run.Bench;
import dev.sluice.lab.run.LaunchedProcess;
import dev.sluice.lab.run.Ports;
import dev.sluice.lab.run.ProcessSampler;
import dev.sluice.lab.run.RunningSubject;
import dev.sluice.lab.run.Subject;
import dev.sluice.lab.run.SubjectRun;
import dev.sluice.lab.run.Upstreams;
import dev.sluice.lab.run.WrkLoad;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Issue 30's lab scenario: shaped, chained and collection compositions beside plain ones (CPU per
 * request, RSS, time to first byte) for each engine mode and for {@code tree}, an in-memory baseline that
 * composes as KrakenD does (parts parsed whole into Jackson trees, shaped, merged). Part sizes 16 KB, 1 MB,
 * 8 MB; a memory run of 10 concurrent 8 MB shaped compositions. Routes a build refuses ({@code sluice check})
 * are skipped and named in the report.
 */
public final class ComposeScenario {

    static final Set<String> FLAGS = LabOptions.common(
            "--sizes", "--subjects", "--concurrency", "--probes", "--memory-size", "--memory-users", "--memory-only");

    static final String TREE = "tree";

    private ComposeScenario() {}

    /** One measured point: a load and the probe's medians. */
    record Point(SubjectRun run, Probe.Medians probe) {}

    public static int run(List<String> args) throws UsageException, LabFailure {
        LabOptions o = LabOptions.parse(args, FLAGS, Set.of("--pin", "--memory-only"));
        boolean memoryOnly = o.flag("--memory-only");
        int seconds = (int) o.duration("--duration", Duration.ofSeconds(10)).toSeconds();
        int warmup = (int) o.duration("--warmup", Duration.ofSeconds(5)).toSeconds();
        List<Integer> sizes =
                o.integers("--sizes", List.of(16_384, 1_048_576, 8_388_608), Documents.MIN, Documents.MAX);
        int users = o.integer("--concurrency", 10, 1, 10_000);
        int probes = o.integer("--probes", 11, 1, 1_000);
        int memorySize = o.integer("--memory-size", 8_388_608, Documents.MIN, Documents.MAX);
        int memoryUsers = o.integer("--memory-users", 10, 1, 10_000);
        if (seconds < 2) {
            throw new UsageException("--duration: " + seconds + " s (expected: at least 2s)");
        }
        List<String> names = o.list("--subjects", List.of("virtual", "reactive", "platform", TREE));
        List<Subject> subjects = new ArrayList<>();
        for (String n : names) {
            if (n.equals(TREE)) {
                subjects.add(new Subject(TREE, TREE, true, "jvm", List.of()));
            } else {
                List<Subject> parsed = Subject.parse(List.of(n), List.of("jvm"));
                if (parsed.stream().anyMatch(Subject::baseline)) {
                    throw new UsageException(
                            "--subjects: '" + n + "' (expected: virtual, reactive, platform (optionally -aot), tree)");
                }
                subjects.addAll(parsed);
            }
        }
        Lab lab = Lab.open(o);
        ReportDoc doc = new ReportDoc("Sluice lab — compose: shaped, chained and collection compositions");
        Map<String, SubjectRun> all = new LinkedHashMap<>();
        // subject -> kind -> size -> point
        Map<String, Map<String, Map<Integer, Point>>> points = new LinkedHashMap<>();
        Map<String, double[]> memory = new LinkedHashMap<>(); // subject -> idle, peak
        // subject -> size -> "doc"/"reviews": the chain's parts probed directly after the subject's chain
        Map<String, Map<Integer, Map<String, Probe.Medians>>> direct = new LinkedHashMap<>();
        List<String> failures = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        try (Upstreams up =
                Upstreams.sizes(lab.workspace(), lab.cpus(), lab.results().logs())) {
            URI sizesUrl = up.urls().get("sizes");
            List<String> kinds = new ArrayList<>(List.of("plain", "shaped"));
            boolean sluiceSubjects = subjects.stream().anyMatch(s -> !s.baseline());
            Path config = null;
            if (sluiceSubjects) {
                Optional<String> base = check(lab, routesYaml(up.urls(), kinds), "shaped");
                if (base.isPresent()) {
                    throw new LabFailure("the gateway refuses the lab's plain and shaped routes: " + base.get());
                }
                for (String kind : List.of("chained", "collection")) {
                    Optional<String> refusal = check(lab, routesYaml(up.urls(), List.of("plain", kind)), kind);
                    if (refusal.isEmpty()) {
                        kinds.add(kind);
                    } else {
                        skipped.add(kind + ": not supported by this build (sluice check: " + refusal.get() + ")");
                    }
                }
                config = lab.gatewayConfig("gateway.yaml", routesYaml(up.urls(), kinds));
            }
            Bench bench = lab.bench(up.urls());
            for (Subject s : subjects) {
                List<String> subjectKinds =
                        memoryOnly ? List.of() : s.name().equals(TREE) ? ComposeRoutes.KINDS : kinds;
                String first = "/compose/plain/" + sizes.getFirst();
                try (RunningSubject running = s.name().equals(TREE)
                        ? startTree(lab, s, sizesUrl, first)
                        : bench.launcher().start(s, config, first, 2)) {
                    memory.put(s.name(), memoryRun(lab, bench, running, memorySize, memoryUsers, seconds, warmup, all));
                    for (String kind : subjectKinds) {
                        for (int size : sizes) {
                            String path = "/compose/" + kind + "/" + size;
                            String label = s.name() + "-" + kind + "-" + size + "B";
                            System.err.println("sluice lab: compose: " + label);
                            WrkLoad load = WrkLoad.steady(
                                    URI.create("http://127.0.0.1" + path), users, lab.wrkThreads(), seconds, 60, 2);
                            SubjectRun run = bench.measure(running, label, path, load, warmup);
                            lab.record(label, run);
                            all.put(label, run);
                            Probe.Medians probe;
                            try {
                                probe = Probe.medians(running.url(path), probes);
                            } catch (IOException e) {
                                failures.add(label + " probe: " + e.getMessage());
                                probe = null;
                            }
                            if (kind.equals("chained")) {
                                // the parts alone, right after the chain (same upstream state, same warmth)
                                try {
                                    Map<String, Probe.Medians> d = new LinkedHashMap<>();
                                    d.put("doc", Probe.medians(sizesUrl.resolve("/doc/" + size), probes));
                                    d.put("reviews", Probe.medians(sizesUrl.resolve(reviewsPath()), probes));
                                    if (!s.name().equals(TREE)) { // the same parts as plain routes, through it
                                        URI docVia = running.url(ComposeRoutes.PARTS_PREFIX + "/doc/" + size);
                                        URI reviewsVia = running.url(ComposeRoutes.PARTS_PREFIX + reviewsPath());
                                        Probe.medians(
                                                docVia, probes); // warms the proxy path as the load warmed the chain's
                                        Probe.medians(reviewsVia, probes);
                                        d.put("doc via", Probe.medians(docVia, probes));
                                        d.put("reviews via", Probe.medians(reviewsVia, probes));
                                    }
                                    direct.computeIfAbsent(s.name(), k -> new LinkedHashMap<>())
                                            .put(size, d);
                                } catch (IOException e) {
                                    failures.add("upstream probe, " + size + " B: " + e.getMessage());
                                }
                            }
                            points.computeIfAbsent(s.name(), k -> new LinkedHashMap<>())
                                    .computeIfAbsent(kind, k -> new LinkedHashMap<>())
                                    .put(size, new Point(run, probe));
                        }
                    }
                } catch (LabFailure | IllegalStateException e) {
                    failures.add(
                            s.name() + ": " + e.getMessage().lines().findFirst().orElse(""));
                }
            }
        }
        failures.forEach(f -> doc.alert("did not run: " + f));
        RunTables.alerts(doc, all);
        doc.paragraph("Issue 30's measurements. Each part is `GET /doc/N` on the lab's sizes upstream: a JSON product "
                + "of exactly N bytes (id, name, price, 8 `reviewIds`, 20 `relatedIds`, an `items` array of objects "
                + "with a `sku`, padding). Routes: `plain` (two parts of `/doc/N`), `shaped` (the same, `select: [id, "
                + "name, price, \"items[*].sku\"]`), `chained` (`reviews` after `product`, `/reviews?ids="
                + "{product:/reviewIds}`), `collection` (`related`: `/products/{each}` for `product:/relatedIds`, "
                + "max 20, 5 at a time). `tree` is the in-memory baseline (`sluice-lab tree-compose`): every part "
                + "fetched whole, parsed into a Jackson tree, shaped on the tree, merged and written, as KrakenD "
                + "does. " + seconds + " s per point at " + users + " keep-alive users after a " + warmup
                + " s warmup; time to first byte from " + probes + " sequential requests on fresh connections "
                + "(medians). Machine: " + lab.machineLine() + ".");
        skipped.forEach(doc::paragraph);
        doc.heading(1, "Every point");
        List<List<String>> rows = new ArrayList<>();
        points.forEach((subject, byKind) ->
                byKind.forEach((kind, bySize) -> bySize.forEach((size, p) -> rows.add(List.of(
                        subject,
                        kind,
                        Integer.toString(size),
                        fixed(p.run().throughput(), 1),
                        fixed(p.run().cpuSecondsPer1000(), 3),
                        fixed(p.run().peakRssMb(), 1),
                        p.probe() == null ? NA : fixed(p.probe().firstByteMillis(), 2),
                        p.probe() == null ? NA : fixed(p.probe().lastByteMillis(), 2),
                        Long.toString(p.run().errors()))))));
        doc.table(
                List.of(
                        "subject",
                        "route",
                        "part bytes",
                        "req/s",
                        "CPU ms/req",
                        "RSS peak MiB",
                        "first byte ms",
                        "last byte ms",
                        "errors"),
                rows);
        doc.heading(1, "Shaping: CPU per request, shaped / plain (target: at most 1.30)");
        List<List<String>> shaping = new ArrayList<>();
        points.forEach((subject, byKind) -> sizes.forEach(size -> {
            Point plain = byKind.getOrDefault("plain", Map.of()).get(size);
            Point shaped = byKind.getOrDefault("shaped", Map.of()).get(size);
            if (plain != null && shaped != null) {
                double ratio = shaped.run().cpuSecondsPer1000() / plain.run().cpuSecondsPer1000();
                shaping.add(List.of(
                        subject,
                        Integer.toString(size),
                        fixed(plain.run().cpuSecondsPer1000(), 3),
                        fixed(shaped.run().cpuSecondsPer1000(), 3),
                        fixed(ratio, 2),
                        verdict(ratio <= 1.30)));
            }
        }));
        doc.table(
                List.of("subject", "part bytes", "plain CPU ms/req", "shaped CPU ms/req", "ratio", "within"), shaping);
        doc.heading(1, "Chain: latency against the sum of its parts' (target: sum + under 1 ms)");
        doc.paragraph("The parts' latencies are those of `/doc/N` and `" + reviewsPath() + "` fetched through the "
                + "subject as plain (unchained, unshaped) proxy routes (`" + ComposeRoutes.PARTS_PREFIX
                + "/...`), right after each subject's chain (last byte, median): the same bytes relayed the "
                + "same way, so `chain − sum` is what chaining adds. The upstream's own (probed directly, without "
                + "the gateway) are beside them: `chain − direct` also holds the relay of the parts' bytes "
                + "through the gateway. The chain's is the `chained` route's last byte through the subject. "
                + "Probes use fresh connections, so each figure holds one connect (the chain's, and each part's "
                + "through the subject, one to the subject; the chain's parts reuse its pooled connections). "
                + "`tree` has no plain routes: its figure is against the direct sum.");
        List<List<String>> chain = new ArrayList<>();
        points.forEach((subject, byKind) -> sizes.forEach(size -> {
            Point chained = byKind.getOrDefault("chained", Map.of()).get(size);
            Map<String, Probe.Medians> d =
                    direct.getOrDefault(subject, Map.of()).get(size);
            if (chained != null && chained.probe() != null && d != null) {
                double last = chained.probe().lastByteMillis();
                double directSum =
                        d.get("doc").lastByteMillis() + d.get("reviews").lastByteMillis();
                boolean via = d.containsKey("doc via");
                double viaSum = via
                        ? d.get("doc via").lastByteMillis()
                                + d.get("reviews via").lastByteMillis()
                        : 0;
                double over = last - (via ? viaSum : directSum);
                chain.add(List.of(
                        subject,
                        Integer.toString(size),
                        via ? fixed(d.get("doc via").lastByteMillis(), 2) : NA,
                        via ? fixed(d.get("reviews via").lastByteMillis(), 2) : NA,
                        fixed(last, 2),
                        via ? fixed(last - viaSum, 2) : NA,
                        fixed(d.get("doc").lastByteMillis(), 2),
                        fixed(d.get("reviews").lastByteMillis(), 2),
                        fixed(last - directSum, 2),
                        verdict(over < 1.0)));
            }
        }));
        doc.table(
                List.of(
                        "subject",
                        "part bytes",
                        "product ms (via)",
                        "reviews ms (via)",
                        "chain ms",
                        "chain − sum ms",
                        "product ms (direct)",
                        "reviews ms (direct)",
                        "chain − direct sum ms",
                        "within"),
                chain);
        doc.heading(
                1,
                "Memory: " + memoryUsers + " concurrent " + memorySize
                        + "-byte shaped compositions (target: within 50 MB of idle)");
        doc.paragraph("Idle is measured twice: cold, after the start probe and a second's rest, and warm, after "
                + warmup + " s of the same shaped compositions one at a time and a second's rest, so that what the "
                + "first load costs once (the JIT's compiled code and its compiler's arenas, class data) is not "
                + "charged to the concurrent compositions. The target is read against the warm idle; the cold "
                + "figure is beside it.");
        if (!lab.gatewayOnLauncherFlags()) {
            // without the launcher's heap cap the JVM's defaults (G1, a quarter of the RAM as heap) let the
            // heap's young pages grow under the load
            doc.caution("The Sluice subjects ran on `" + String.join(" ", lab.gatewayFlags()) + "`, not the `sluice` "
                    + "launcher's flags: RSS over idle then measures those flags, not what users run (`"
                    + Lab.LAUNCHER_FLAGS + "`, the default when no `--jvm-flags` is given).");
        } else {
            doc.paragraph("Sluice's JVM flags: the launcher's, `" + Lab.LAUNCHER_FLAGS + "`.");
        }
        doc.paragraph("`tree`'s JVM flags: "
                + (lab.baselineFlags().isEmpty()
                        ? "the JVM's defaults (a tree of an 8 MB part does not fit the gateway's 96 MB heap)."
                        : "`" + String.join(" ", lab.baselineFlags()) + "`."));
        double[] tree = memory.get(TREE);
        List<List<String>> mem = new ArrayList<>();
        memory.forEach((subject, m) -> {
            double over = m[2] - m[1];
            mem.add(List.of(
                    subject,
                    fixed(m[0], 1),
                    fixed(m[1], 1),
                    fixed(m[2], 1),
                    fixed(over, 1),
                    fixed(m[2] - m[0], 1),
                    tree == null ? NA : fixed(tree[2] - tree[1], 1),
                    subject.equals(TREE) ? NA : verdict(over * 1.048576 <= 50)));
        });
        doc.table(
                List.of(
                        "subject",
                        "cold idle RSS MiB",
                        "warm idle RSS MiB",
                        "peak RSS MiB",
                        "over warm idle MiB",
                        "over cold idle MiB",
                        "tree over warm idle MiB",
                        "within"),
                mem);
        doc.heading(1, "Every run");
        RunTables.metricsTable(doc, all);
        RunTables.summaryCsv(lab.results(), all);
        lab.finish(doc);
        return failures.isEmpty() && all.values().stream().allMatch(r -> r.errors() == 0) ? 0 : 1;
    }

    private static String verdict(boolean ok) {
        return ok ? "yes" : "NO";
    }

    /** The chained route's second call for every document (its 8 review ids). */
    static String reviewsPath() {
        StringBuilder sb = new StringBuilder("/reviews?ids=");
        for (int i = 1; i <= Documents.REVIEWS; i++) {
            sb.append(i == 1 ? "" : ",").append(i);
        }
        return sb.toString();
    }

    /** The gateway config with the compose routes of {@code kinds}. */
    static String routesYaml(Map<String, URI> upstreams, List<String> kinds) {
        StringBuilder sb = new StringBuilder(GatewayYaml.demoRoutes(upstreams));
        kinds.forEach(k -> sb.append(ComposeRoutes.route(k)));
        sb.append(ComposeRoutes.partsRoute());
        return sb.toString();
    }

    /** Empty when {@code sluice check} takes {@code yaml}; else its first problem line. */
    private static Optional<String> check(Lab lab, String yaml, String kind) throws LabFailure {
        Path file = lab.gatewayConfig("gateway-check-" + kind + ".yaml", yaml);
        List<String> command = List.of(
                lab.workspace().java().toString(),
                "-jar",
                lab.workspace().gatewayJar().toString(),
                "check",
                "-c",
                file.toString());
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.of("did not finish in 60 s");
            }
            if (p.exitValue() == 0) {
                return Optional.empty();
            }
            return Optional.of(out.lines()
                    .map(String::strip)
                    .filter(l -> l.contains(kind.equals("chained") ? "after" : "each") || l.contains("routes"))
                    .findFirst()
                    .or(() -> out.lines()
                            .map(String::strip)
                            .filter(l -> !l.isEmpty())
                            .findFirst())
                    .orElse("exit " + p.exitValue()));
        } catch (IOException e) {
            throw new LabFailure("cannot run " + String.join(" ", command) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LabFailure("interrupted while checking " + file, e);
        }
    }

    /** Starts the tree baseline as its own process and waits for a good answer on {@code probe}. */
    private static RunningSubject startTree(Lab lab, Subject s, URI upstream, String probe) throws LabFailure {
        int port = Ports.free();
        List<String> command = new ArrayList<>(List.of(lab.workspace().java().toString()));
        command.addAll(lab.baselineFlags());
        command.addAll(List.of(
                "-cp",
                Workspace.labClasspath(),
                "dev.sluice.lab.LabMain",
                "tree-compose",
                "--port",
                Integer.toString(port),
                "--upstream",
                upstream.toString()));
        command = lab.cpus().subject(command);
        LaunchedProcess p = LaunchedProcess.start(
                TREE,
                command,
                lab.results().logs().resolve("tree-compose.log"),
                Pattern.compile("tree compose started"));
        try {
            LaunchedProcess.Matched started = p.awaitStarted(Duration.ofSeconds(60));
            URI base = URI.create("http://127.0.0.1:" + port);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (true) {
                try {
                    Probe.once(base.resolve(probe));
                    break;
                } catch (IOException e) {
                    if (System.nanoTime() > deadline || !p.isAlive()) {
                        throw new LabFailure("tree did not answer " + probe + ": " + e.getMessage() + "; log " + p.log()
                                + ":\n" + p.tail());
                    }
                    Thread.sleep(20);
                }
            }
            return new RunningSubject(
                    s,
                    p,
                    command,
                    base,
                    started.nanosAfterStart() / 1e6,
                    Optional.empty(),
                    (System.nanoTime() - p.startNanos()) / 1e6);
        } catch (LabFailure | RuntimeException e) {
            p.close();
            throw e;
        } catch (InterruptedException e) {
            p.close();
            Thread.currentThread().interrupt();
            throw new LabFailure("interrupted while starting tree", e);
        }
    }

    /**
     * The memory run: the subject's RSS idle after its start probe and a second's rest (cold), again after
     * {@code warmup} seconds of the same shaped compositions one at a time and a second's rest (warm),
     * then its peak under {@code users} concurrent shaped compositions of {@code size}-byte parts. {cold
     * idle, warm idle, peak} MiB.
     */
    private static double[] memoryRun(
            Lab lab,
            Bench bench,
            RunningSubject running,
            int size,
            int users,
            int seconds,
            int warmup,
            Map<String, SubjectRun> all)
            throws LabFailure {
        rest();
        double cold = ProcessSampler.rssMb(running.process().pid()).orElse(Double.NaN);
        String path = "/compose/shaped/" + size;
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(Math.max(1, warmup));
        try {
            do {
                Probe.once(running.url(path));
            } while (System.nanoTime() < until);
        } catch (IOException e) {
            throw new LabFailure("memory run's warm-up, " + path + ": " + e.getMessage(), e);
        }
        rest();
        double idle = ProcessSampler.rssMb(running.process().pid()).orElse(Double.NaN);
        String label = running.subject().name() + "-memory-" + size + "B-c" + users;
        System.err.println("sluice lab: compose: " + label);
        SubjectRun run = bench.measure(
                running,
                label,
                path,
                WrkLoad.steady(URI.create("http://127.0.0.1" + path), users, lab.wrkThreads(), seconds, 60, 2),
                0);
        lab.record(label, run);
        all.put(label, run);
        return new double[] {cold, idle, run.peakRssMb()};
    }

    private static void rest() throws LabFailure {
        try {
            Thread.sleep(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LabFailure("interrupted", e);
        }
    }
}
