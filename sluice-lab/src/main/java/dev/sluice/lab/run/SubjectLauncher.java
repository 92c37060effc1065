package dev.sluice.lab.run;

import static java.util.Objects.requireNonNull;

import dev.sluice.lab.LabFailure;
import dev.sluice.lab.Workspace;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Starts subjects as their own processes (pinned to the subject's CPUs), waits for the started line
 * and the first successful response, and times both from the process's start.
 */
public final class SubjectLauncher {

    /** Sluice's line, or Spring Boot's {@code Started FooApplication in 1.234 seconds}. */
    static final Pattern STARTED = Pattern.compile("sluice started in (\\d+) ms|Started \\S+ in ([0-9.]+) seconds");

    private final Workspace workspace;
    private final CpuPlan cpus;
    private final List<String> gatewayFlags;
    private final List<String> baselineFlags;
    private final Path logDir;
    private final Map<String, URI> upstreams;
    private final Function<String, Path> aotCache;
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1))
            .build();
    private int launches;

    /**
     * @param upstreams the upstream base URLs by name (products, customers, reviews, delay, blocking, limited)
     * @param aotCache the AOT cache for an engine mode (trained on first use)
     */
    public SubjectLauncher(
            Workspace workspace,
            CpuPlan cpus,
            List<String> gatewayFlags,
            List<String> baselineFlags,
            Path logDir,
            Map<String, URI> upstreams,
            Function<String, Path> aotCache) {
        this.workspace = requireNonNull(workspace, "workspace");
        this.cpus = requireNonNull(cpus, "cpus");
        this.gatewayFlags = List.copyOf(gatewayFlags);
        this.baselineFlags = List.copyOf(baselineFlags);
        this.logDir = requireNonNull(logDir, "logDir");
        this.upstreams = Map.copyOf(upstreams);
        this.aotCache = requireNonNull(aotCache, "aotCache");
    }

    /** The command that runs {@code subject} on {@code port} (with {@code gatewayConfig} for Sluice). */
    public List<String> command(Subject subject, Path gatewayConfig, int port) throws LabFailure {
        List<String> c = new ArrayList<>();
        if (subject.baseline()) {
            Path jar = workspace.baselineJar(subject.app());
            if (!Files.isRegularFile(jar)) {
                throw new LabFailure(
                        subject.name() + ": " + jar + " does not exist (expected: built by `./mvnw -q -B -f "
                                + "sluice-lab/baselines/pom.xml package -DskipTests`)");
            }
            c.add(workspace.java().toString());
            c.addAll(baselineFlags);
            c.addAll(List.of("-jar", jar.toString(), "--server.port=" + port, "--server.address=127.0.0.1"));
            for (String name : List.of("products", "customers", "reviews", "delay", "blocking")) {
                URI u = upstreams.get(name);
                if (u != null) {
                    c.add("--baseline.upstream." + name + "=" + u);
                }
            }
            c.addAll(subject.extraArgs());
            return cpus.subject(c);
        }
        Path jar = workspace.gatewayJar();
        switch (subject.runtime()) {
            case "jvm" -> {
                c.add(workspace.java().toString());
                c.addAll(gatewayFlags);
                c.addAll(List.of("-jar", jar.toString()));
            }
            case "aot" -> {
                c.add(workspace.java().toString());
                // AOTMode=on: fail rather than silently run without the cache
                c.add("-XX:AOTMode=on");
                c.add("-XX:AOTCache=" + aotCache.apply(subject.engine()));
                c.addAll(gatewayFlags);
                c.addAll(List.of("-jar", jar.toString()));
            }
            case "native" ->
                c.add(NativeImage.executable(workspace)
                        .orElseThrow(() -> new LabFailure(subject.name() + ": " + NativeImage.unavailable(workspace)))
                        .toString());
            default ->
                throw new LabFailure(
                        subject.name() + ": runtime '" + subject.runtime() + "' (expected: jvm, aot, native)");
        }
        c.addAll(List.of(
                "run", "-c", gatewayConfig.toString(), "--engine", subject.engine(), "--port", Integer.toString(port)));
        return cpus.subject(c);
    }

    /**
     * Starts {@code subject} and waits until {@code probePath} answers 200 with at least {@code minBytes}.
     */
    public RunningSubject start(Subject subject, Path gatewayConfig, String probePath, long minBytes)
            throws LabFailure {
        int port = Ports.free();
        List<String> command = command(subject, gatewayConfig, port);
        Path log = logDir.resolve(subject.name() + "-" + (++launches) + ".log");
        LaunchedProcess p = LaunchedProcess.start(subject.name(), command, log, STARTED);
        try {
            LaunchedProcess.Matched started = p.awaitStarted(Duration.ofSeconds(120));
            Optional<Double> reported = Optional.empty();
            if (!started.groups().get(0).isEmpty()) {
                reported = Optional.of(Double.parseDouble(started.groups().get(0)));
            } else if (!started.groups().get(1).isEmpty()) {
                reported = Optional.of(Double.parseDouble(started.groups().get(1)) * 1000);
            }
            URI base = URI.create("http://127.0.0.1:" + port);
            long firstNanos = awaitFirstResponse(p, base.resolve(probePath), minBytes);
            return new RunningSubject(
                    subject,
                    p,
                    command,
                    base,
                    started.nanosAfterStart() / 1e6,
                    reported,
                    (firstNanos - p.startNanos()) / 1e6);
        } catch (LabFailure | RuntimeException e) {
            p.close();
            throw e;
        }
    }

    /** Polls {@code url} every few milliseconds; the nanoTime of the first good answer. */
    long awaitFirstResponse(LaunchedProcess p, URI url, long minBytes) throws LabFailure {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new LabFailure(
                        p.name() + " exited before answering " + url + "; log " + p.log() + ":\n" + p.tail());
            }
            try {
                HttpResponse<byte[]> r = http.send(
                        HttpRequest.newBuilder(url)
                                .timeout(Duration.ofSeconds(15))
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                long now = System.nanoTime();
                if (r.statusCode() == 200 && r.body().length >= minBytes) {
                    return now;
                }
                last = "status " + r.statusCode() + ", " + r.body().length + " bytes (expected: 200 with >= " + minBytes
                        + " bytes)";
            } catch (IOException e) {
                last = e.toString();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LabFailure("interrupted while waiting for " + url, e);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LabFailure("interrupted while waiting for " + url, e);
            }
        }
        throw new LabFailure(p.name() + " did not answer " + url + " correctly within 60 s (last: " + last + "); log "
                + p.log() + ":\n" + p.tail());
    }
}
