package dev.sluice.lab.run;

import dev.sluice.lab.LabFailure;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The load generator: wrk with the lab's Lua script ({@code sluice-lab.lua}), which checks every
 * response and prints per-second counts and latency quantiles that {@link #parse} reads.
 */
public final class Wrk {

    private final Path script;
    private final CpuPlan cpus;

    private Wrk(Path script, CpuPlan cpus) {
        this.script = script;
        this.cpus = cpus;
    }

    /** Writes the Lua script into {@code dir} (it is part of the results) and checks that wrk runs. */
    public static Wrk prepare(Path dir, CpuPlan cpus) throws LabFailure {
        ensureInstalled();
        try (InputStream in = Wrk.class.getResourceAsStream("/dev/sluice/lab/sluice-lab.lua")) {
            if (in == null) {
                throw new LabFailure("the lab jar has no sluice-lab.lua (rebuild sluice-lab)");
            }
            Files.createDirectories(dir);
            Path script = dir.resolve("sluice-lab.lua");
            Files.write(script, in.readAllBytes());
            return new Wrk(script, cpus);
        } catch (IOException e) {
            throw new LabFailure("cannot write the wrk script into " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Whether {@code wrk} is on the PATH. */
    public static boolean installed() {
        return run(List.of("wrk", "-v"), 10).isPresent();
    }

    /** wrk's version line, such as {@code wrk 4.1.0 [epoll]}. */
    public static String version() {
        return run(List.of("wrk", "-v"), 10)
                .map(s -> s.lines().findFirst().orElse("wrk (unknown version)").trim())
                .orElse("wrk not installed");
    }

    /** Installs wrk from Debian when it is missing and the lab runs as root; else fails saying how. */
    public static void ensureInstalled() throws LabFailure {
        if (installed()) {
            return;
        }
        boolean root =
                run(List.of("id", "-u"), 5).map(s -> s.trim().equals("0")).orElse(false);
        boolean apt = run(List.of("apt-get", "--version"), 10).isPresent();
        if (!root || !apt) {
            throw new LabFailure(
                    "wrk is not installed (the lab's load generator): install it with `sudo apt-get install -y wrk`"
                            + " (or your system's package manager) and run the lab again");
        }
        System.err.println("sluice lab: wrk is missing; installing it: apt-get install -y wrk");
        if (run(List.of("apt-get", "install", "-y", "-q", "wrk"), 600).isEmpty() || !installed()) {
            run(List.of("apt-get", "update", "-q"), 600);
            run(List.of("apt-get", "install", "-y", "-q", "wrk"), 600);
        }
        if (!installed()) {
            throw new LabFailure(
                    "wrk is not installed and `apt-get install -y wrk` did not install it: install wrk and run the lab again");
        }
    }

    /** Runs {@code command}; its output when it exited 0 within {@code seconds}. */
    private static java.util.Optional<String> run(List<String> command, int seconds) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return java.util.Optional.empty();
            }
            // wrk -v exits 1 after printing its version
            boolean ok = p.exitValue() == 0 || (command.getFirst().equals("wrk") && new String(out).startsWith("wrk"));
            return ok ? java.util.Optional.of(new String(out, StandardCharsets.UTF_8)) : java.util.Optional.empty();
        } catch (IOException e) {
            return java.util.Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return java.util.Optional.empty();
        }
    }

    /** The wrk command for one process of {@code load}. */
    List<String> command(WrkLoad load, int connections, int seconds) {
        int threads = Math.max(1, Math.min(load.threads(), connections));
        return cpus.load(List.of(
                "wrk",
                "-t" + threads,
                "-c" + connections,
                "-d" + seconds + "s",
                "--timeout",
                load.timeoutSeconds() + "s",
                "-s",
                script.toString(),
                load.url().toString(),
                "--",
                Long.toString(load.minBytes()),
                Long.toString(load.exactBytes())));
    }

    /**
     * Runs {@code load} and returns what wrk saw; each process's output is kept as
     * {@code rawDir/<label>-wrk-<i>.txt}.
     */
    public LoadResult run(WrkLoad load, Path rawDir, String label) throws LabFailure {
        return run(load, rawDir, label, Map.of());
    }

    /**
     * As {@link #run(WrkLoad, Path, String)}, with {@code env} added to wrk's environment (the script
     * reads {@code SLUICE_LAB_RETRY_AFTER=honour}: back off on a 503's Retry-After).
     */
    public LoadResult run(WrkLoad load, Path rawDir, String label, Map<String, String> env) throws LabFailure {
        int steps = load.steps();
        List<Process> processes = new ArrayList<>();
        List<Path> outputs = new ArrayList<>();
        List<List<String>> commands = new ArrayList<>();
        try {
            Files.createDirectories(rawDir);
            long t0 = System.nanoTime();
            for (int i = 0; i < steps; i++) {
                int connections = load.connections() / steps + (i < load.connections() % steps ? 1 : 0);
                int delay = (int) ((long) i * load.rampUpSeconds() / steps);
                long wait = t0 + TimeUnit.SECONDS.toNanos(delay) - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                List<String> command = command(load, connections, load.seconds() - delay);
                Path out = rawDir.resolve(label + "-wrk-" + i + ".txt");
                Files.writeString(
                        out,
                        "$ "
                                + env.entrySet().stream()
                                        .map(e -> e.getKey() + "=" + e.getValue() + " ")
                                        .collect(java.util.stream.Collectors.joining())
                                + String.join(" ", command) + "\n");
                ProcessBuilder builder = new ProcessBuilder(command);
                builder.environment().putAll(env);
                processes.add(builder.redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()))
                        .start());
                outputs.add(out);
                commands.add(command);
            }
            LoadResult result = LoadResult.empty();
            for (int i = 0; i < steps; i++) {
                Process p = processes.get(i);
                if (!p.waitFor(load.seconds() + load.timeoutSeconds() + 60L, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new LabFailure("wrk did not finish: " + String.join(" ", commands.get(i)));
                }
                String text = Files.readString(outputs.get(i));
                if (p.exitValue() != 0 || !text.contains("sluice-lab summary")) {
                    throw new LabFailure("wrk failed (exit " + p.exitValue() + "): " + String.join(" ", commands.get(i))
                            + "\n" + text.lines().limit(20).reduce("", (a, b) -> a + b + "\n"));
                }
                result = result.merge(parse(text));
            }
            return result;
        } catch (IOException e) {
            throw new LabFailure("wrk could not run: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            processes.forEach(Process::destroyForcibly);
            Thread.currentThread().interrupt();
            throw new LabFailure("interrupted while wrk ran", e);
        }
    }

    /** Reads the {@code sluice-lab ...} lines of one wrk run. */
    public static LoadResult parse(String output) {
        TreeMap<Long, long[]> seconds = new TreeMap<>();
        TreeMap<Integer, Long> statuses = new TreeMap<>();
        List<double[]> quantiles = new ArrayList<>();
        java.util.Map<String, Long> summary = new java.util.HashMap<>();
        double mean = 0;
        for (String line : output.split("\n")) {
            if (!line.startsWith("sluice-lab ")) {
                continue;
            }
            String[] f = line.trim().split(" ");
            switch (f[1]) {
                case "summary" -> {
                    for (int i = 2; i < f.length; i++) {
                        String[] kv = f[i].split("=");
                        summary.put(kv[0], Long.parseLong(kv[1]));
                    }
                }
                case "second" ->
                    seconds.merge(
                            Long.parseLong(f[2]), new long[] {Long.parseLong(f[3]), Long.parseLong(f[4])}, (a, b) ->
                                    new long[] {a[0] + b[0], a[1] + b[1]});
                case "status" -> statuses.merge(Integer.parseInt(f[2]), Long.parseLong(f[3]), Long::sum);
                case "mean" -> mean = Double.parseDouble(f[2]);
                case "quantile" -> quantiles.add(new double[] {Double.parseDouble(f[2]), Double.parseDouble(f[3])});
                default -> {}
            }
        }
        long requests = summary.getOrDefault("requests", 0L);
        return new LoadResult(
                seconds,
                statuses,
                summary.getOrDefault("bad_size", 0L),
                summary.getOrDefault("connect", 0L),
                summary.getOrDefault("read", 0L),
                summary.getOrDefault("write", 0L),
                summary.getOrDefault("timeout", 0L),
                requests,
                summary.getOrDefault("bytes", 0L),
                LatencyDistribution.of(requests, mean, quantiles));
    }
}
