package dev.sluice.lab.run;

import dev.sluice.lab.LabFailure;
import dev.sluice.lab.Workspace;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Upstream processes, on the load generator's CPUs: the gateway's demo upstreams
 * ({@code sluice upstreams}: products, customers, reviews, delay, blocking, limited) or the lab's sizes
 * upstream.
 */
public record Upstreams(LaunchedProcess process, Map<String, URI> urls, List<String> command) implements AutoCloseable {

    public static final List<String> DEMO = List.of("products", "customers", "reviews", "delay", "blocking", "limited");

    /** Starts {@code sluice upstreams} on six free consecutive ports. */
    public static Upstreams demo(Workspace workspace, CpuPlan cpus, Path logDir) throws LabFailure {
        return demoAt(workspace, cpus, logDir, Ports.freeBlock(DEMO.size()), 0);
    }

    /**
     * Starts {@code sluice upstreams} on the six ports from {@code base} (again, after a soak killed
     * them); {@code run} numbers its log ({@code upstreams-N.log}, 0: {@code upstreams.log}).
     */
    public static Upstreams demoAt(Workspace workspace, CpuPlan cpus, Path logDir, int base, int run)
            throws LabFailure {
        List<String> command = cpus.load(List.of(
                workspace.java().toString(),
                "-jar",
                workspace.gatewayJar().toString(),
                "upstreams",
                "--host",
                "127.0.0.1",
                "--port-base",
                Integer.toString(base)));
        LaunchedProcess p = LaunchedProcess.start(
                "upstreams",
                command,
                logDir.resolve(run == 0 ? "upstreams.log" : "upstreams-" + run + ".log"),
                Pattern.compile("sluice upstreams started"));
        try {
            p.awaitStarted(Duration.ofSeconds(60));
        } catch (LabFailure e) {
            p.close();
            throw e;
        }
        Map<String, URI> urls = new LinkedHashMap<>();
        for (int i = 0; i < DEMO.size(); i++) {
            urls.put(DEMO.get(i), URI.create("http://127.0.0.1:" + (base + i)));
        }
        return new Upstreams(p, urls, command);
    }

    /** Starts the lab's sizes upstream ({@code GET /bytes/N}). */
    public static Upstreams sizes(Workspace workspace, CpuPlan cpus, Path logDir) throws LabFailure {
        int port = Ports.free();
        List<String> command = cpus.load(List.of(
                workspace.java().toString(),
                "-cp",
                Workspace.labClasspath(),
                "dev.sluice.lab.LabMain",
                "sizes-upstream",
                "--port",
                Integer.toString(port)));
        LaunchedProcess p = LaunchedProcess.start(
                "sizes-upstream",
                command,
                logDir.resolve("sizes-upstream.log"),
                Pattern.compile("sizes upstream started"));
        try {
            p.awaitStarted(Duration.ofSeconds(60));
        } catch (LabFailure e) {
            p.close();
            throw e;
        }
        return new Upstreams(p, Map.of("sizes", URI.create("http://127.0.0.1:" + port)), command);
    }

    @Override
    public void close() {
        process.close();
    }
}
