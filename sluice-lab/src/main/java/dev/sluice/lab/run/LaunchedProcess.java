package dev.sluice.lab.run;

import static java.util.Objects.requireNonNull;

import dev.sluice.lab.LabFailure;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A process the lab started: its output (stdout and stderr merged) is copied to a log file while a
 * pattern is watched for (the "started" line), and the time from {@link ProcessBuilder#start()} to
 * that line is taken.
 */
public final class LaunchedProcess implements AutoCloseable {

    private final String name;
    private final Process process;
    private final long startNanos;
    private final Path log;
    private final CompletableFuture<Matched> started = new CompletableFuture<>();
    private final Thread pump;

    /** The watched line, when it came (nanoseconds after the start) and its regex groups. */
    public record Matched(String line, long nanosAfterStart, List<String> groups) {}

    private LaunchedProcess(String name, Process process, long startNanos, Path log, Pattern ready) {
        this.name = name;
        this.process = process;
        this.startNanos = startNanos;
        this.log = log;
        this.pump = Thread.ofPlatform().daemon().name("lab-log-" + name).start(() -> pump(ready));
    }

    /** Starts {@code command}; its output goes to {@code log}. */
    public static LaunchedProcess start(String name, List<String> command, Path log, Pattern ready) throws LabFailure {
        requireNonNull(command, "command");
        try {
            Files.createDirectories(log.getParent());
            Files.writeString(log, "$ " + String.join(" ", command) + "\n");
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
            long t0 = System.nanoTime();
            Process p = pb.start();
            return new LaunchedProcess(name, p, t0, log, ready);
        } catch (IOException e) {
            throw new LabFailure(name + ": could not start " + command.getFirst() + ": " + e.getMessage(), e);
        }
    }

    private void pump(Pattern ready) {
        try (BufferedReader in =
                        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                Writer out =
                        Files.newBufferedWriter(log, StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND)) {
            String line;
            while ((line = in.readLine()) != null) {
                long now = System.nanoTime();
                if (!started.isDone()) {
                    Matcher m = ready.matcher(line);
                    if (m.find()) {
                        List<String> groups = new java.util.ArrayList<>();
                        for (int i = 1; i <= m.groupCount(); i++) {
                            groups.add(m.group(i) == null ? "" : m.group(i));
                        }
                        started.complete(new Matched(line, now - startNanos, groups));
                    }
                }
                out.write(line);
                out.write('\n');
                out.flush();
            }
        } catch (IOException e) {
            started.completeExceptionally(e);
        } finally {
            started.completeExceptionally(new IOException(name + " ended its output without the started line"));
        }
    }

    /** Waits for the started line; fails with the log's tail when the process dies or takes too long. */
    public Matched awaitStarted(Duration timeout) throws LabFailure {
        try {
            return started.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new LabFailure(name + " printed no started line within " + timeout.toSeconds() + " s; log " + log
                    + ":\n" + tail());
        } catch (ExecutionException e) {
            throw new LabFailure(name + " did not start (exit " + exitCode() + "); log " + log + ":\n" + tail());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LabFailure("interrupted while waiting for " + name, e);
        }
    }

    public long pid() {
        return process.pid();
    }

    public long startNanos() {
        return startNanos;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Path log() {
        return log;
    }

    public String name() {
        return name;
    }

    private String exitCode() {
        try {
            return process.waitFor(2, TimeUnit.SECONDS) ? Integer.toString(process.exitValue()) : "still running";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    /** The last lines of the log, for failure messages. */
    public String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    /**
     * Stops the process as a user would (SIGTERM, so shutdown hooks run and an AOT cache is written),
     * then kills it after {@code grace}. Returns the exit code, or -1 when it had to be killed.
     */
    public int stop(Duration grace) {
        // ProcessHandle.destroy() only signals; Process.destroy() would also close the output pipe, and a JVM
        // (or the AOT cache's assembly child it starts at exit) writing to a closed pipe dies of SIGPIPE.
        process.toHandle().destroy();
        try {
            if (process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                pump.join(2000);
                return process.exitValue();
            }
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
            pump.join(2000);
            return -1;
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Kills the process at once (SIGKILL), as a crash would end it, and waits for it to be gone. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
            pump.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            stop(Duration.ofSeconds(20));
        }
    }
}
