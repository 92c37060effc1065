package dev.sluice.lab.scenario;

import static dev.sluice.lab.report.Figures.fixed;
import static dev.sluice.lab.report.Figures.meanSd;

import dev.sluice.lab.Lab;
import dev.sluice.lab.LabFailure;
import dev.sluice.lab.LabOptions;
import dev.sluice.lab.UsageException;
import dev.sluice.lab.report.Charts;
import dev.sluice.lab.report.Figures;
import dev.sluice.lab.report.ReportDoc;
import dev.sluice.lab.run.NativeImage;
import dev.sluice.lab.run.RunningSubject;
import dev.sluice.lab.run.Subject;
import dev.sluice.lab.run.SubjectLauncher;
import dev.sluice.lab.run.Upstreams;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The paper's Table 2 on this machine: packaging time (5 builds), file size (jar + whole JDK; jlink
 * image + jar; native executable) and start time (process start to the started line and to the first
 * good response; 5 starts) for the JVM and the JDK AOT cache. Native: measured only where GraalVM is
 * installed, else "not available on this machine".
 */
public final class DeployScenario {

    static final Set<String> FLAGS = Set.of(
            "--out",
            "--pin",
            "--jdk",
            "--jvm-flags",
            "--project",
            "--runs",
            "--packaging-runs",
            "--engines",
            "--wrk-threads");

    private DeployScenario() {}

    public static int run(List<String> args) throws UsageException, LabFailure {
        LabOptions o = LabOptions.parse(args, FLAGS, Set.of("--pin"));
        int runs = o.integer("--runs", 5, 1, 100);
        int packagingRuns = o.integer("--packaging-runs", 5, 0, 100);
        List<String> engines = o.list("--engines", List.of("virtual", "reactive"));
        for (String e : engines) {
            if (!Subject.ENGINES.contains(e)) {
                throw new UsageException("--engines: '" + e + "' (expected: virtual, reactive, platform)");
            }
        }
        Lab lab = Lab.open(o);
        Packaging packaging = new Packaging(lab);
        ReportDoc doc = new ReportDoc("Sluice lab — deployment (the paper's Table 2)");
        doc.paragraph("The published figures are Table 2 of " + Published.PAPER_CITATION + ".");
        doc.paragraph("Machine: " + lab.machineLine() + ". Published (paper): " + Published.PAPER_MACHINE + ".");

        List<Double> buildSeconds = packaging.timeBuilds(packagingRuns);
        Packaging.Sizes sizes = packaging.sizes();
        Map<String, List<Double>> startLine = new LinkedHashMap<>();
        Map<String, List<Double>> firstResponse = new LinkedHashMap<>();
        try (Upstreams up = lab.demoUpstreams()) {
            long minBytes = Bodies.totalSize(
                    up.urls().get("products").resolve("/products"),
                    up.urls().get("customers").resolve("/customers/42"),
                    up.urls().get("reviews").resolve("/reviews"));
            Path config = lab.gatewayConfig(up.urls());
            SubjectLauncher launcher = lab.bench(up.urls()).launcher();
            for (String engine : engines) {
                for (String runtime : List.of("jvm", "aot")) {
                    Subject s = new Subject(
                            runtime.equals("jvm") ? engine : engine + "-aot", engine, false, runtime, List.of());
                    System.err.println("sluice lab: deploy: " + runs + " starts of " + s.label());
                    for (int i = 0; i < runs; i++) {
                        try (RunningSubject r = launcher.start(s, config, "/compose", minBytes)) {
                            startLine
                                    .computeIfAbsent(s.name(), k -> new ArrayList<>())
                                    .add(r.startedMillis());
                            firstResponse
                                    .computeIfAbsent(s.name(), k -> new ArrayList<>())
                                    .add(r.firstResponseMillis());
                        }
                    }
                }
            }
        }
        String nativeNa = NativeImage.unavailable(lab.workspace());
        doc.heading(1, "Table 2, measured here");
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of(
                "Packaging time (s), " + buildSeconds.size() + " runs",
                meanSd(buildSeconds, 2) + " (`" + packaging.buildCommand() + "`)",
                "jlink: " + fixed(sizes.jlinkSeconds(), 2) + " s more",
                nativeNa,
                "VT JVM " + Published.PAPER_PACKAGING_S.get("VT JVM") + "; Reactive JVM "
                        + Published.PAPER_PACKAGING_S.get("Reactive JVM")
                        + "; VT Native " + Published.PAPER_PACKAGING_S.get("VT Native") + "; Reactive Native "
                        + Published.PAPER_PACKAGING_S.get("Reactive Native")));
        rows.add(List.of(
                "File size (MB)",
                "jar " + mb(sizes.jarBytes()) + " + JDK " + mb(sizes.jdkBytes()) + " = "
                        + mb(sizes.jarBytes() + sizes.jdkBytes()),
                "image " + mb(sizes.jlinkBytes()) + " + jar = " + mb(sizes.jlinkBytes() + sizes.jarBytes())
                        + " (modules: " + sizes.modules() + ")",
                nativeNa,
                "VT JVM " + Published.PAPER_SIZE_MB.get("VT JVM") + "; Reactive JVM "
                        + Published.PAPER_SIZE_MB.get("Reactive JVM")
                        + "; VT Native " + Published.PAPER_SIZE_MB.get("VT Native") + "; Reactive Native "
                        + Published.PAPER_SIZE_MB.get("Reactive Native")));
        doc.table(List.of("metric", "JVM (jar + JDK)", "jlink image", "native", "published (paper)"), rows);
        doc.heading(1, "Start time (ms), " + runs + " starts each, mean ± sd");
        List<List<String>> startRows = new ArrayList<>();
        startLine.forEach((name, values) -> {
            String col = name.startsWith("virtual") ? "VT JVM" : name.startsWith("reactive") ? "Reactive JVM" : "";
            startRows.add(List.of(
                    name,
                    meanSd(values, 1),
                    meanSd(firstResponse.get(name), 1),
                    col.isEmpty() ? "–" : Published.PAPER_START_MS.get(col) + " (" + col + ")"));
        });
        for (String engine : engines) {
            String col = engine.equals("virtual") ? "VT Native" : engine.equals("reactive") ? "Reactive Native" : "";
            startRows.add(List.of(
                    engine + "-native",
                    nativeNa,
                    nativeNa,
                    col.isEmpty() ? "–" : Published.PAPER_START_MS.get(col) + " (" + col + ")"));
        }
        doc.table(
                List.of(
                        "run",
                        "process start → started line",
                        "process start → first good response",
                        "published start time (paper)"),
                startRows);
        doc.paragraph(
                "AOT: a JDK 25 AOT cache per engine, made by a training run (`-XX:AOTCacheOutput=FILE` on "
                        + "`sluice demo` under 5 s of load on /compose, stopped with SIGTERM), then used with `-XX:AOTCache=FILE`.");
        Map<String, List<Double>> startBars = new LinkedHashMap<>();
        Map<String, List<Double>> startErr = new LinkedHashMap<>();
        List<String> names = new ArrayList<>(startLine.keySet());
        startBars.put(
                "started line",
                names.stream().map(n -> Figures.mean(startLine.get(n))).toList());
        startBars.put(
                "first response",
                names.stream().map(n -> Figures.mean(firstResponse.get(n))).toList());
        startErr.put(
                "started line",
                names.stream().map(n -> Figures.sd(startLine.get(n))).toList());
        startErr.put(
                "first response",
                names.stream().map(n -> Figures.sd(firstResponse.get(n))).toList());
        if (!names.isEmpty()) {
            doc.chart(
                    "deploy-start.png",
                    Charts.bars("Start time (ms), mean ± sd", "ms", names, startBars, startErr),
                    "Start time: JVM vs AOT cache (native: not available on this machine)");
        }
        Map<String, Double> sizeBars = new LinkedHashMap<>();
        sizeBars.put("jar + JDK", sizes.jarBytes() / 1e6 + sizes.jdkBytes() / 1e6);
        sizeBars.put("jlink image + jar", sizes.jlinkBytes() / 1e6 + sizes.jarBytes() / 1e6);
        doc.chart("deploy-size.png", Charts.bars("File size (MB)", "MB", sizeBars), "File size (Table 2)");
        if (!buildSeconds.isEmpty()) {
            Map<String, List<Double>> pack = new LinkedHashMap<>();
            pack.put("seconds", List.of(Figures.mean(buildSeconds), sizes.jlinkSeconds()));
            doc.chart(
                    "deploy-packaging.png",
                    Charts.bars(
                            "Packaging time (s)",
                            "s",
                            List.of("jar (mvn package)", "jlink image"),
                            pack,
                            Map.of("seconds", List.of(Figures.sd(buildSeconds), 0.0))),
                    "Packaging time (Table 2)");
        }
        List<List<String>> raw = new ArrayList<>();
        for (int i = 0; i < buildSeconds.size(); i++) {
            raw.add(List.of(
                    "packaging",
                    "jvm",
                    Integer.toString(i + 1),
                    String.format(java.util.Locale.ROOT, "%.3f", buildSeconds.get(i))));
        }
        startLine.forEach((name, values) -> {
            for (int i = 0; i < values.size(); i++) {
                raw.add(List.of(
                        "start_line_ms",
                        name,
                        Integer.toString(i + 1),
                        String.format(java.util.Locale.ROOT, "%.1f", values.get(i))));
                raw.add(List.of(
                        "first_response_ms",
                        name,
                        Integer.toString(i + 1),
                        String.format(
                                java.util.Locale.ROOT,
                                "%.1f",
                                firstResponse.get(name).get(i))));
            }
        });
        raw.add(List.of("size_bytes", "jar", "1", Long.toString(sizes.jarBytes())));
        raw.add(List.of("size_bytes", "jdk", "1", Long.toString(sizes.jdkBytes())));
        raw.add(List.of("size_bytes", "jlink_image", "1", Long.toString(sizes.jlinkBytes())));
        lab.results().csv("deploy.csv", List.of("metric", "subject", "run", "value"), raw);
        lab.env()
                .put(
                        "deploy",
                        Map.of(
                                "build_command",
                                packaging.buildCommand(),
                                "jlink_modules",
                                sizes.modules(),
                                "native",
                                nativeNa));
        lab.finish(doc);
        return 0;
    }

    private static String mb(long bytes) {
        return bytes < 0 ? Figures.NA : fixed(bytes / 1e6, 1);
    }
}
