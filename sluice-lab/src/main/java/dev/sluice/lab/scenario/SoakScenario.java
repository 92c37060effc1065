package dev.sluice.lab.scenario;

import static dev.sluice.lab.report.Figures.fixed;

import dev.sluice.lab.Lab;
import dev.sluice.lab.LabFailure;
import dev.sluice.lab.LabOptions;
import dev.sluice.lab.UsageException;
import dev.sluice.lab.report.ReportDoc;
import dev.sluice.lab.run.LoadResult;
import dev.sluice.lab.run.ProcessSampler;
import dev.sluice.lab.run.RunningSubject;
import dev.sluice.lab.run.Subject;
import dev.sluice.lab.run.Upstreams;
import dev.sluice.lab.run.WrkLoad;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Soak and chaos (issue 15): {@code /compose} and the proxied {@code /products} at a share of their
 * measured peak ({@code --load}, 80 % by default) for {@code --duration}, while the demo upstreams are
 * killed (SIGKILL) and restarted on the same ports every {@code --restart-every}. Every response is
 * classified by the soak's wrk script ({@code sluice-soak.lua}): whole, partial (a composition whose
 * failed parts are {@code null}, as the contract says), an error status, or <b>broken</b>: a 200 whose
 * body is not whole although HTTP took it as complete, the failure a gateway must never produce. A
 * body cut short by an aborted connection is a read error, visible to the client. Once a second the
 * gateway's RSS, open file descriptors and threads are sampled from {@code /proc}; the report gives
 * their start, end and maximum, and the RSS slope (least squares, after the first tenth of the run).
 */
public final class SoakScenario {

    static final Set<String> FLAGS =
            LabOptions.common("--connections", "--subjects", "--restart-every", "--load", "--peak-duration");

    private static final Pattern SUMMARY = Pattern.compile("sluice-soak summary (.*)");

    /** The proxied path the soak loads beside {@code /compose}: the products API's 15,723-byte page. */
    static final String PRODUCTS_ROUTE = """
        # The soak's proxied path: the products page (15,723 bytes), streamed through.
        - id: products
          match: { path: /products, methods: [GET] }
          proxy: { upstream: products }
      """;

    private SoakScenario() {}

    /** One sample of the gateway process. */
    record Sample(long second, double rssMb, int fds, int threads) {}

    /** What one wrk process of the soak counted. */
    record Counts(Map<String, Long> values) {
        long get(String key) {
            return values.getOrDefault(key, 0L);
        }

        Counts plus(Counts o) {
            Map<String, Long> sum = new LinkedHashMap<>(values);
            o.values.forEach((k, v) -> sum.merge(k, v, Long::sum));
            return new Counts(sum);
        }

        static Counts parse(String text) throws LabFailure {
            Matcher m = SUMMARY.matcher(text);
            if (!m.find()) {
                throw new LabFailure("the soak's wrk printed no summary:\n"
                        + text.lines().limit(20).reduce("", (a, b) -> a + b + "\n"));
            }
            Map<String, Long> values = new LinkedHashMap<>();
            for (String pair : m.group(1).trim().split("\\s+")) {
                String[] kv = pair.split("=", 2);
                values.put(kv[0], Math.round(Double.parseDouble(kv[1])));
            }
            return new Counts(values);
        }
    }

    public static int run(List<String> args) throws UsageException, LabFailure {
        LabOptions o = LabOptions.parse(args, FLAGS, Set.of("--pin"));
        long seconds = o.duration("--duration", Duration.ofMinutes(30)).toSeconds();
        long restartEvery = o.duration("--restart-every", Duration.ofMinutes(1)).toSeconds();
        int peakSeconds =
                (int) o.duration("--peak-duration", Duration.ofSeconds(10)).toSeconds();
        int connections = o.integer("--connections", 40, 2, 10_000);
        int loadPercent = o.integer("--load", 80, 1, 100);
        if (seconds < 5 || restartEvery < 2 || peakSeconds < 2) {
            throw new UsageException("--duration >= 5s, --restart-every >= 2s, --peak-duration >= 2s (got " + seconds
                    + " s, " + restartEvery + " s, " + peakSeconds + " s)");
        }
        List<Subject> subjects =
                Subject.parse(o.list("--subjects", List.of("virtual", "reactive", "platform")), List.of("jvm"));
        if (subjects.stream().anyMatch(Subject::baseline)) {
            throw new UsageException(
                    "--subjects: the soak runs Sluice's engines (expected: virtual, reactive, platform)");
        }
        Lab lab = Lab.open(o);
        Path script = writeScript(lab.results().raw());
        ReportDoc doc = new ReportDoc("Sluice lab — soak: load with upstreams killed and restarted");
        List<List<String>> rows = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (Subject s : subjects) {
            System.err.println("sluice lab: soak: " + s.label() + " for " + seconds + " s");
            try {
                rows.add(soak(lab, s, script, seconds, restartEvery, peakSeconds, connections, loadPercent));
            } catch (LabFailure | RuntimeException e) {
                failures.add(s.name() + ": "
                        + String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
            }
        }
        failures.forEach(f -> doc.alert("did not run: " + f));
        doc.paragraph("Each engine served `/compose` (three demo upstreams, streamed) and the proxied `/products` "
                + "(15,723 bytes) with " + connections + " connections split between them, paced to " + loadPercent
                + " % of the peak measured first (" + peakSeconds + " s at full speed), for " + seconds
                + " s, while the demo upstreams were killed with SIGKILL and restarted on the same ports every "
                + restartEvery
                + " s. Served/s counts whole and partial responses against the peak. Responses: whole; partial (a composition whose failed parts are null, listed in "
                + "`_meta.failed`); errors (5xx while the upstreams were down, socket errors: visibly failed); "
                + "**broken**: a 200 whose body was not whole although HTTP took it as complete (must be 0). "
                + "RSS, file descriptors and threads are the gateway process's, sampled once a second from /proc; "
                + "the RSS slope is a least-squares fit after the first tenth of the run. Machine: "
                + lab.machineLine() + ".");
        doc.table(
                List.of(
                        "mode",
                        "served/s (% of peak)",
                        "requests",
                        "whole",
                        "partial",
                        "errors",
                        "broken",
                        "restarts",
                        "RSS start→end (max) MB",
                        "RSS slope MB/h",
                        "fds start→end (max)",
                        "threads start→end (max)"),
                rows);
        lab.finish(doc);
        return failures.isEmpty() && rows.stream().allMatch(r -> r.get(6).equals("0")) ? 0 : 1;
    }

    private static Path writeScript(Path raw) throws LabFailure {
        try (InputStream in = SoakScenario.class.getResourceAsStream("/dev/sluice/lab/sluice-soak.lua")) {
            if (in == null) {
                throw new LabFailure("the lab jar has no sluice-soak.lua (rebuild sluice-lab)");
            }
            Files.createDirectories(raw);
            Path script = raw.resolve("sluice-soak.lua");
            Files.write(script, in.readAllBytes());
            return script;
        } catch (IOException e) {
            throw new LabFailure("cannot write the soak script into " + raw + ": " + e.getMessage(), e);
        }
    }

    private static List<String> soak(
            Lab lab,
            Subject s,
            Path script,
            long seconds,
            long restartEvery,
            int peakSeconds,
            int connections,
            int loadPercent)
            throws LabFailure {
        AtomicInteger restarts = new AtomicInteger();
        Upstreams first = lab.demoUpstreams();
        int base = first.urls().get("products").getPort();
        Map<String, URI> urls = new LinkedHashMap<>(first.urls());
        Upstreams[] up = {first};
        try {
            Path config = lab.gatewayConfig(urls, PRODUCTS_ROUTE);
            try (RunningSubject running = lab.bench(urls).launcher().start(s, config, "/compose", 1000)) {
                int composeConnections = connections / 2;
                int proxyConnections = connections - composeConnections;
                // the peak: both paths at full speed at once, as they will run
                WrkLoad composePeak =
                        WrkLoad.steady(running.url("/compose"), composeConnections, 1, peakSeconds, 10, 1000);
                WrkLoad proxyPeak =
                        WrkLoad.steady(running.url("/products"), proxyConnections, 1, peakSeconds, 10, 15723);
                LoadResult[] peaks = new LoadResult[2];
                Thread proxyThread = Thread.ofPlatform().start(() -> {
                    try {
                        peaks[1] = lab.wrk().run(proxyPeak, lab.results().raw(), s.name() + "-peak-products");
                    } catch (LabFailure e) {
                        throw new IllegalStateException(e.getMessage(), e);
                    }
                });
                peaks[0] = lab.wrk().run(composePeak, lab.results().raw(), s.name() + "-peak-compose");
                proxyThread.join();
                if (peaks[1] == null) {
                    throw new LabFailure("the peak run of /products did not finish");
                }
                double composePeakRate = peaks[0].good() / (double) peakSeconds;
                double proxyPeakRate = peaks[1].good() / (double) peakSeconds;
                long composeThink = think(composeConnections, composePeakRate, peaks[0], loadPercent);
                long proxyThink = think(proxyConnections, proxyPeakRate, peaks[1], loadPercent);

                List<Sample> samples = new ArrayList<>();
                AtomicBoolean done = new AtomicBoolean();
                long pid = running.process().pid();
                Thread sampler = Thread.ofPlatform().daemon().start(() -> {
                    while (!done.get()) {
                        samples.add(sample(pid));
                        sleep(1000);
                    }
                });
                Thread chaos = Thread.ofPlatform().daemon().start(() -> {
                    long next = System.nanoTime() + TimeUnit.SECONDS.toNanos(restartEvery);
                    while (!done.get()) {
                        if (System.nanoTime() < next) {
                            sleep(200);
                            continue;
                        }
                        next += TimeUnit.SECONDS.toNanos(restartEvery);
                        up[0].process().kill();
                        sleep(1000); // the gateway sees refused connections meanwhile
                        try {
                            up[0] = Upstreams.demoAt(
                                    lab.workspace(), lab.cpus(), lab.results().logs(), base, restarts.get() + 1);
                            restarts.incrementAndGet();
                        } catch (LabFailure e) {
                            System.err.println("sluice lab: soak: upstreams did not restart: " + e.getMessage());
                        }
                    }
                });
                long start = System.nanoTime();
                Process compose = wrk(
                        lab,
                        script,
                        running.url("/compose"),
                        composeConnections,
                        seconds,
                        "compose",
                        composeThink,
                        s.name() + "-soak-compose");
                Process proxy = wrk(
                        lab,
                        script,
                        running.url("/products"),
                        proxyConnections,
                        seconds,
                        "15723",
                        proxyThink,
                        s.name() + "-soak-products");
                Counts counts = finish(compose, lab.results().raw().resolve(s.name() + "-soak-compose.txt"), seconds)
                        .plus(finish(proxy, lab.results().raw().resolve(s.name() + "-soak-products.txt"), seconds));
                double elapsed = (System.nanoTime() - start) / 1e9;
                done.set(true);
                chaos.join();
                sampler.join();
                writeSamples(lab, s, samples);
                long requests = counts.get("requests");
                long errors = counts.get("status_5xx")
                        + counts.get("status_other")
                        + counts.get("connect")
                        + counts.get("read")
                        + counts.get("write")
                        + counts.get("timeout");
                double served = (counts.get("ok") + counts.get("partial")) / elapsed;
                double peak = composePeakRate + proxyPeakRate;
                return List.of(
                        s.name(),
                        fixed(served, 0) + " (" + fixed(served / peak * 100, 0) + " %)",
                        Long.toString(requests),
                        Long.toString(counts.get("ok")),
                        Long.toString(counts.get("partial")),
                        Long.toString(errors),
                        Long.toString(counts.get("broken")),
                        Integer.toString(restarts.get()),
                        span(samples, Sample::rssMb, 0),
                        fixed(slopePerHour(samples), 1),
                        span(samples, x -> x.fds(), 0),
                        span(samples, x -> x.threads(), 0));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LabFailure("interrupted", e);
        } finally {
            up[0].close();
        }
    }

    /**
     * Milliseconds each connection waits between requests so that {@code connections} make {@code
     * percent} % of {@code peakRate}: the time a connection has per request, less what a request took
     * at the peak.
     */
    static long think(int connections, double peakRate, LoadResult peak, int percent) {
        if (peakRate <= 0) {
            return 0;
        }
        double perRequestMillis = connections / (peakRate * percent / 100.0) * 1000;
        double latency = peak.latency().meanMillis().orElse(0.0);
        // at least half the interval: while the upstreams are down, errors come back at once, and a
        // connection that did not wait would spin and load the gateway far beyond the target
        return Math.round(Math.max(perRequestMillis / 2, perRequestMillis - latency));
    }

    private static Process wrk(
            Lab lab, Path script, URI url, int connections, long seconds, String kind, long think, String label)
            throws LabFailure {
        List<String> command = lab.cpus()
                .load(List.of(
                        "wrk",
                        "-t1",
                        "-c" + connections,
                        "-d" + seconds + "s",
                        "--timeout",
                        "30s",
                        "-s",
                        script.toString(),
                        url.toString(),
                        "--",
                        kind,
                        Long.toString(think)));
        Path out = lab.results().raw().resolve(label + ".txt");
        try {
            Files.writeString(out, "$ " + String.join(" ", command) + "\n");
            return new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()))
                    .start();
        } catch (IOException e) {
            throw new LabFailure("wrk could not run: " + e.getMessage(), e);
        }
    }

    private static Counts finish(Process wrk, Path out, long seconds) throws LabFailure, InterruptedException {
        if (!wrk.waitFor(seconds + 120, TimeUnit.SECONDS)) {
            wrk.destroyForcibly();
            throw new LabFailure("wrk did not finish: see " + out);
        }
        try {
            return Counts.parse(Files.readString(out));
        } catch (IOException e) {
            throw new LabFailure("cannot read " + out + ": " + e.getMessage(), e);
        }
    }

    static Sample sample(long pid) {
        double rss = ProcessSampler.rssMb(pid).orElse(Double.NaN);
        int fds = -1;
        try (var entries = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            fds = (int) entries.count();
        } catch (IOException | RuntimeException e) {
            // the process ended
        }
        int threads = -1;
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("Threads:")) {
                    threads = Integer.parseInt(line.substring(8).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            // the process ended
        }
        return new Sample(System.currentTimeMillis() / 1000, rss, fds, threads);
    }

    private static void writeSamples(Lab lab, Subject s, List<Sample> samples) throws LabFailure {
        List<List<String>> rows = new ArrayList<>();
        for (Sample x : samples) {
            rows.add(List.of(
                    Long.toString(x.second()),
                    fixed(x.rssMb(), 1),
                    Integer.toString(x.fds()),
                    Integer.toString(x.threads())));
        }
        lab.results().csv(s.name() + "-soak-seconds.csv", List.of("epoch_second", "rss_mb", "fds", "threads"), rows);
    }

    /** RSS growth in MB per hour: least squares over the samples after the first tenth of the run. */
    static double slopePerHour(List<Sample> samples) {
        List<Sample> kept = samples.subList(samples.size() / 10, samples.size()).stream()
                .filter(x -> !Double.isNaN(x.rssMb()))
                .toList();
        if (kept.size() < 3) {
            return Double.NaN;
        }
        double n = kept.size();
        double t0 = kept.getFirst().second();
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (Sample x : kept) {
            double t = x.second() - t0;
            sx += t;
            sy += x.rssMb();
            sxx += t * t;
            sxy += t * x.rssMb();
        }
        double denominator = n * sxx - sx * sx;
        return denominator == 0 ? 0 : (n * sxy - sx * sy) / denominator * 3600;
    }

    private static String span(List<Sample> samples, java.util.function.ToDoubleFunction<Sample> value, int digits) {
        List<Double> values = samples.stream()
                .mapToDouble(value)
                .filter(v -> !Double.isNaN(v) && v >= 0)
                .boxed()
                .toList();
        if (values.isEmpty()) {
            return "n/a";
        }
        double max = values.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        return fixed(values.getFirst(), digits) + "→" + fixed(values.getLast(), digits) + " (" + fixed(max, digits)
                + ")";
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
