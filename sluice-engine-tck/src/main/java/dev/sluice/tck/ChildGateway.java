package dev.sluice.tck;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.EngineMode;
import dev.sluice.config.Transport;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A {@link GatewayProcess} in a child JVM with a 64 MB heap; closing it ends the child, by force if need be. */
public final class ChildGateway implements AutoCloseable {

    /** The child's memory limits: far less than the bodies pushed through it. */
    public static final List<String> JVM_FLAGS =
            List.of("-Xmx64m", "-XX:MaxDirectMemorySize=64m", "-XX:+ExitOnOutOfMemoryError", "-Xshare:auto");

    private final Process process;
    private final Path stderr;
    private final int port;
    private final StringBuffer stdout; // what the child printed after its port line (its log), last 1 MB

    private ChildGateway(Process process, Path stderr, int port, StringBuffer stdout) {
        this.process = process;
        this.stderr = stderr;
        this.port = port;
        this.stdout = stdout;
    }

    /** Starts the child and waits (up to 60 s) for its {@code PORT <n>} line. */
    public static ChildGateway start(EngineMode mode, Transport transport, URI upstream) {
        requireNonNull(mode, "mode");
        requireNonNull(transport, "transport");
        requireNonNull(upstream, "upstream");
        return launch(
                mode.key(), List.of(GatewayProcess.class.getName(), mode.key(), upstream.toString(), transport.key()));
    }

    /**
     * Starts a child that runs the gateway a configuration file describes ({@link ConfigGatewayProcess})
     * and waits (up to 60 s) for its {@code PORT <n>} line.
     */
    public static ChildGateway start(Path config) {
        requireNonNull(config, "config");
        return launch("config", List.of(ConfigGatewayProcess.class.getName(), config.toString()));
    }

    private static ChildGateway launch(String label, List<String> mainAndArgs) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_FLAGS);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.addAll(mainAndArgs);
        Process process = null;
        Path stderr = null;
        try {
            stderr = Files.createTempFile("sluice-child-" + label, ".err");
            process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            CompletableFuture<String> portLine = CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            for (String line = out.readLine(); line != null; line = out.readLine()) {
                                if (line.startsWith("PORT ")) {
                                    return line;
                                }
                            }
                            return "";
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    },
                    r -> Thread.ofVirtual().start(r));
            String line = portLine.get(60, TimeUnit.SECONDS);
            if (!line.startsWith("PORT ")) {
                throw new IllegalStateException("child gateway: exited with " + process.waitFor()
                        + " before 'PORT <n>' (expected: a port); stderr: " + Files.readString(stderr));
            }
            StringBuffer log = new StringBuffer();
            Thread.ofVirtual().start(() -> drain(out, log));
            return new ChildGateway(
                    process, stderr, Integer.parseInt(line.substring(5).trim()), log);
        } catch (IOException | ExecutionException | TimeoutException | RuntimeException e) {
            kill(process);
            deleteQuietly(stderr);
            throw new IllegalStateException(
                    "child gateway: " + label + " " + JVM_FLAGS + " did not start (expected: 'PORT <n>' within 60 s)",
                    e);
        } catch (InterruptedException e) {
            kill(process);
            deleteQuietly(stderr);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("child gateway: interrupted while starting", e);
        }
    }

    public int port() {
        return port;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The child's resident memory now, in bytes ({@code VmRSS} of {@code /proc/<pid>/status}, Linux). */
    public java.util.OptionalLong residentBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    String kb = line.substring("VmRSS:".length()).trim().split("\\s+")[0];
                    return java.util.OptionalLong.of(Long.parseLong(kb) * 1024);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or the child is gone
        }
        return java.util.OptionalLong.empty();
    }

    /** What the child wrote on stdout after its port line so far (its log): the last megabyte of it. */
    public String stdout() {
        return stdout.toString();
    }

    /** What the child wrote on stderr so far. */
    public String stderr() {
        try {
            return Files.readString(stderr);
        } catch (IOException e) {
            return "(stderr unreadable: " + e + ")";
        }
    }

    /** Closes the child's stdin so it stops; kills it if it has not exited within 5 s. */
    @Override
    public void close() {
        try {
            process.getOutputStream().close();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                kill(process);
            }
        } catch (IOException e) {
            kill(process);
        } catch (InterruptedException e) {
            kill(process);
            Thread.currentThread().interrupt();
        } finally {
            deleteQuietly(stderr);
        }
    }

    private static void deleteQuietly(Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // a temp file
            }
        }
    }

    private static void kill(Process process) {
        if (process != null) {
            process.destroyForcibly();
            try {
                process.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void drain(BufferedReader out, StringBuffer log) {
        try {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                log.append(line).append('\n');
                if (log.length() > 1 << 20) {
                    log.delete(0, log.length() - (1 << 19));
                }
            }
        } catch (IOException ignored) {
            // the child ended
        }
    }
}
