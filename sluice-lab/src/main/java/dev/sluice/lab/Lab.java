package dev.sluice.lab;

import dev.sluice.lab.report.ReportDoc;
import dev.sluice.lab.report.ResultsDir;
import dev.sluice.lab.run.Bench;
import dev.sluice.lab.run.CpuPlan;
import dev.sluice.lab.run.LaunchedProcess;
import dev.sluice.lab.run.Ports;
import dev.sluice.lab.run.SubjectLauncher;
import dev.sluice.lab.run.SubjectRun;
import dev.sluice.lab.run.Upstreams;
import dev.sluice.lab.run.Wrk;
import dev.sluice.lab.run.WrkLoad;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One lab command in progress: where results go, how processes are placed, the load generator, and
 * what {@code env.json} will record. Scenarios take their subjects, loads and upstreams from it.
 */
public final class Lab {

    private final LabOptions options;
    private final Workspace workspace;
    private final CpuPlan cpus;
    private final ResultsDir results;
    private final List<String> gatewayFlags;
    private final List<String> baselineFlags;
    private final int wrkThreads;
    private final Map<String, Object> env;
    private final List<Object> subjectRecords = new ArrayList<>();
    private final Map<String, Path> aotCaches = new HashMap<>();
    private Wrk wrk;

    private Lab(
            LabOptions options,
            Workspace workspace,
            CpuPlan cpus,
            ResultsDir results,
            List<String> gatewayFlags,
            List<String> baselineFlags,
            int wrkThreads) {
        this.options = options;
        this.workspace = workspace;
        this.cpus = cpus;
        this.results = results;
        this.gatewayFlags = gatewayFlags;
        this.baselineFlags = baselineFlags;
        this.wrkThreads = wrkThreads;
        this.env = Environment.describe(workspace, cpus, options, gatewayFlags, baselineFlags);
        env.put("subjects", subjectRecords);
    }

    public static Lab open(LabOptions options) throws LabFailure, UsageException {
        Workspace ws = Workspace.locate(options.text("--project"), options.text("--jdk"));
        CpuPlan cpus = CpuPlan.of(options.flag("--pin"));
        ResultsDir results = ResultsDir.create(ws.projectDir(), options.scenario(), options.text("--out"));
        List<String> given = options.text("--jvm-flags")
                .map(s -> List.of(s.trim().split("\\s+")))
                .filter(l -> !l.getFirst().isEmpty())
                .orElse(null);
        int threads = options.integer("--wrk-threads", cpus.pinned() ? 1 : 2, 1, 64);
        // what users run: Sluice on its launcher's flags, each baseline on the JVM's own defaults, as its
        // project ships it; --jvm-flags gives every subject the same flags instead
        return given == null
                ? new Lab(options, ws, cpus, results, launcherFlags(), List.of(), threads)
                : new Lab(options, ws, cpus, results, given, given, threads);
    }

    /** The `sluice` launcher's default JVM flags (its DEFAULT_JAVA_OPTS; {@code ComposeLabTest} holds the two equal). */
    public static final String LAUNCHER_FLAGS = "-XX:+UseParallelGC -Xms32m -Xmx96m -XX:TrimNativeHeapInterval=2000 "
            + "-XX:-OmitStackTraceInFastThrow --sun-misc-unsafe-memory-access=allow";

    static List<String> launcherFlags() {
        return List.of(LAUNCHER_FLAGS.split(" "));
    }

    public LabOptions options() {
        return options;
    }

    public Workspace workspace() {
        return workspace;
    }

    public CpuPlan cpus() {
        return cpus;
    }

    public ResultsDir results() {
        return results;
    }

    /** The JVM flags of the Sluice subjects (and of the AOT cache's training run). */
    public List<String> gatewayFlags() {
        return gatewayFlags;
    }

    /** The JVM flags of the baselines ({@code tree} included): none, the JVM's defaults, unless --jvm-flags. */
    public List<String> baselineFlags() {
        return baselineFlags;
    }

    /** Whether the Sluice subjects run on the launcher's flags, as users run them. */
    public boolean gatewayOnLauncherFlags() {
        return gatewayFlags.equals(launcherFlags());
    }

    public int wrkThreads() {
        return wrkThreads;
    }

    public Map<String, Object> env() {
        return env;
    }

    /** One line about the machine for the report: CPU model, cores, memory, kernel, JDK, CPU placement. */
    @SuppressWarnings("unchecked")
    public String machineLine() {
        Map<String, Object> m = (Map<String, Object>) env.get("machine");
        Map<String, Object> j = (Map<String, Object>) env.get("jdk");
        return m.get("cpu_model") + ", " + m.get("cores") + " CPUs, " + memory(String.valueOf(m.get("memory_total")))
                + ", Linux " + m.get("kernel")
                + "; JDK " + j.get("version") + " (" + j.get("implementor") + ")"
                + "; Sluice's flags " + (gatewayFlags.isEmpty() ? "the JVM's defaults" : String.join(" ", gatewayFlags))
                + ", the baselines' "
                + (baselineFlags.isEmpty() ? "the JVM's defaults" : String.join(" ", baselineFlags))
                + "; " + cpus.describe()
                + "; load generator " + ((Map<String, Object>) env.get("versions")).get("load_generator");
    }

    /** The load generator, installed if needed (only scenarios that load anything ask for it). */
    public Wrk wrk() throws LabFailure {
        if (wrk == null) {
            wrk = Wrk.prepare(results.raw(), cpus);
        }
        return wrk;
    }

    /** Starts the demo upstreams (recorded in env.json). */
    public Upstreams demoUpstreams() throws LabFailure {
        Upstreams u = Upstreams.demo(workspace, cpus, results.logs());
        env.put(
                "upstreams",
                Map.of(
                        "command",
                        String.join(" ", u.command()),
                        "urls",
                        u.urls().toString()));
        return u;
    }

    /** Writes {@code gateway.yaml} for these upstreams into the results and returns its path. */
    public Path gatewayConfig(Map<String, URI> upstreams) throws LabFailure {
        return gatewayConfig(upstreams, "");
    }

    /** As {@link #gatewayConfig(Map)}, with more routes (YAML list items) appended. */
    public Path gatewayConfig(Map<String, URI> upstreams, String moreRoutes) throws LabFailure {
        return gatewayConfig(upstreams, moreRoutes, 200);
    }

    /** As {@link #gatewayConfig(Map, String)} with {@code platformThreads} request threads in platform mode. */
    public Path gatewayConfig(Map<String, URI> upstreams, String moreRoutes, int platformThreads) throws LabFailure {
        Path file = results.root().resolve("gateway.yaml");
        results.write(file, GatewayYaml.demoRoutes(upstreams, platformThreads) + moreRoutes);
        return file;
    }

    /** Writes {@code yaml}, a whole gateway configuration, as {@code name} in the results. */
    public Path gatewayConfig(String name, String yaml) throws LabFailure {
        Path file = results.root().resolve(name);
        results.write(file, yaml);
        return file;
    }

    public Bench bench(Map<String, URI> upstreams) throws LabFailure {
        SubjectLauncher launcher = new SubjectLauncher(
                workspace, cpus, gatewayFlags, baselineFlags, results.logs(), upstreams, this::aotCache);
        return new Bench(launcher, wrk(), cpus, results.raw());
    }

    /**
     * The JDK AOT cache for an engine mode, made once per lab command by a training run: the gateway's
     * demo ({@code -XX:AOTCacheOutput=FILE}) under a short load of {@code /compose}, stopped with
     * SIGTERM so the JVM writes the cache as it exits.
     */
    public Path aotCache(String engine) {
        return aotCaches.computeIfAbsent(engine, e -> {
            try {
                return trainAot(e);
            } catch (LabFailure f) {
                throw new IllegalStateException(f.getMessage(), f);
            }
        });
    }

    private Path trainAot(String engine) throws LabFailure {
        Path cache = results.root().resolve("aot").resolve("sluice-" + engine + ".aot");
        int port = Ports.free();
        int base = Ports.freeBlock(6);
        List<String> command = new ArrayList<>(List.of(workspace.java().toString(), "-XX:AOTCacheOutput=" + cache));
        command.addAll(gatewayFlags);
        command.addAll(List.of(
                "-jar",
                workspace.gatewayJar().toString(),
                "demo",
                "--engine",
                engine,
                "--port",
                Integer.toString(port),
                "--upstream-port-base",
                Integer.toString(base)));
        System.err.println("sluice lab: training the AOT cache for " + engine + " (" + String.join(" ", command) + ")");
        try {
            Files.createDirectories(cache.getParent());
        } catch (java.io.IOException e) {
            throw new LabFailure("cannot create " + cache.getParent() + ": " + e.getMessage(), e);
        }
        LaunchedProcess p = LaunchedProcess.start(
                "aot-training-" + engine,
                cpus.subject(command),
                results.logs().resolve("aot-training-" + engine + ".log"),
                Pattern.compile("sluice started in"));
        try {
            p.awaitStarted(Duration.ofSeconds(120));
            wrk().run(
                            WrkLoad.steady(URI.create("http://127.0.0.1:" + port + "/compose"), 8, 1, 5, 10, 1),
                            results.raw(),
                            "aot-training-" + engine);
        } finally {
            int exit = p.stop(Duration.ofSeconds(300));
            if (exit == -1) {
                System.err.println("sluice lab: the AOT training run did not exit in 300 s; see " + p.log());
            }
        }
        if (!Files.isRegularFile(cache)) {
            throw new LabFailure(
                    "the AOT training run wrote no cache " + cache + "; log " + p.log() + ":\n" + p.tail());
        }
        Map<String, Object> record = new LinkedHashMap<>();
        record.put("aot_cache", cache.toString());
        record.put("training_command", String.join(" ", command));
        record.put("training_load", "wrk 5 s, 8 connections, GET /compose");
        subjectRecords.add(record);
        return cache;
    }

    /** Keeps a measured run: {@code raw/<label>-seconds.csv} and its command in env.json. */
    public void record(String label, SubjectRun run) throws LabFailure {
        List<List<String>> rows = new ArrayList<>();
        for (double[] r : run.perSecond()) {
            rows.add(List.of(
                    Integer.toString((int) r[0]),
                    Long.toString(run.firstSecond() + (long) r[0]),
                    Long.toString((long) r[1]),
                    Long.toString((long) r[2]),
                    num(r[3]),
                    num(r[4])));
        }
        results.csv(
                label + "-seconds.csv",
                List.of("second", "epoch_second", "good_responses", "bad_responses", "cpu_percent", "rss_mib"),
                rows);
        Map<String, Object> record = new LinkedHashMap<>();
        record.put("label", label);
        record.put("subject", run.subject().name());
        record.put("command", String.join(" ", run.command()));
        record.put("users", run.users());
        record.put("seconds", run.seconds());
        record.put("stable_window_seconds", List.of(run.windowFrom(), run.windowTo()));
        record.put("stable_window_status", run.window().status().name().toLowerCase(Locale.ROOT));
        record.put("stable_window_reason", run.window().reason());
        record.put("errors", run.errors());
        subjectRecords.add(record);
    }

    /** {@code 24684092 kB} as {@code 23.5 GiB}. */
    static String memory(String meminfo) {
        try {
            long kb = Long.parseLong(meminfo.replace("kB", "").trim());
            return String.format(Locale.ROOT, "%.1f GiB", kb / 1024.0 / 1024.0);
        } catch (NumberFormatException e) {
            return meminfo;
        }
    }

    private static String num(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.2f", v) : "";
    }

    /** Writes the report and env.json; prints where they are. */
    public void finish(ReportDoc doc) throws LabFailure {
        results.writeReport(doc, env);
        System.out.println("sluice lab: report " + results.root().resolve("report.html"));
        System.out.println("sluice lab: tables " + results.root().resolve("report.md"));
    }
}
