package dev.sluice.tck;

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
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} (the Debian package) in a process of its own, for the tests of {@code
 * store: redis}: no persistence, on 127.0.0.1 and a port of its own choosing. A random port is
 * tried, and another when Redis says it is in use, so no port is ever "found free" and then lost to
 * another process. {@link #kill()} ends it with SIGKILL (an outage); {@link #restart()} starts it
 * again on the same port, empty.
 *
 * <p>A machine without {@code redis-server} fails the test that asks for one, with how to install it:
 * these tests are never skipped.
 */
public final class RedisServer implements AutoCloseable {

    private static final String READY = "Ready to accept connections";
    private static final String IN_USE = "Address already in use";

    private final Path binary;
    private final Path dir;
    private final int port;
    private Process process; // guarded by this

    private RedisServer(Path binary, Path dir, int port, Process process) {
        this.binary = binary;
        this.dir = dir;
        this.port = port;
        this.process = process;
    }

    /** Starts a Redis on a random free port; fails with how to install it when there is none. */
    public static RedisServer start() {
        Path binary = binary();
        Path dir;
        try {
            dir = Files.createTempDirectory("sluice-redis");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> tried = new ArrayList<>();
        for (int attempt = 0; attempt < 30; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(20_000, 60_000);
            Started started = launch(binary, dir, port);
            if (started.process() != null) {
                return new RedisServer(binary, dir, port, started.process());
            }
            tried.add(port + ": " + started.output());
            if (!started.output().contains(IN_USE)) {
                break;
            }
        }
        throw new IllegalStateException("redis-server did not start (expected: '" + READY + "'); " + tried);
    }

    /** {@code redis://127.0.0.1:<port>}. */
    public URI url() {
        return URI.create("redis://127.0.0.1:" + port);
    }

    public int port() {
        return port;
    }

    /** Ends the server at once (SIGKILL), as a crash would, and waits until it is gone. */
    public synchronized void kill() {
        if (process != null) {
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process = null;
        }
    }

    /** Starts the server again on its port (empty: it keeps nothing); retries for up to 30 s while the port is taken. */
    public synchronized void restart() {
        kill();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String last = "";
        while (System.nanoTime() - end < 0) {
            Started started = launch(binary, dir, port);
            if (started.process() != null) {
                process = started.process();
                return;
            }
            last = started.output();
            if (!last.contains(IN_USE)) {
                break;
            }
            try {
                Thread.sleep(100); // the port is someone else's for now: nothing to wait on but time
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new IllegalStateException("redis-server did not start again on port " + port + ": " + last);
    }

    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    @Override
    public void close() {
        kill();
        try (var files = Files.list(dir)) {
            for (Path file : files.toList()) {
                Files.deleteIfExists(file);
            }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // a temporary directory: best effort
        }
    }

    private record Started(Process process, String output) {}

    /** Runs redis-server on {@code port}; a process once it is ready, else what it said before it exited. */
    private static Started launch(Path binary, Path dir, int port) {
        List<String> command = List.of(
                binary.toString(),
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                dir.toString(),
                "--daemonize",
                "no",
                "--logfile",
                "",
                "--protected-mode",
                "yes");
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new UncheckedIOException("redis-server: could not run " + binary, e);
        }
        BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder said = new StringBuilder();
        CompletableFuture<Boolean> ready = CompletableFuture.supplyAsync(
                () -> {
                    try {
                        for (String line = out.readLine(); line != null; line = out.readLine()) {
                            said.append(line).append('\n');
                            if (line.contains(READY)) {
                                return true;
                            }
                        }
                        return false;
                    } catch (IOException e) {
                        return false;
                    }
                },
                r -> Thread.ofVirtual().start(r));
        boolean up;
        try {
            up = ready.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            up = false;
        }
        if (!up) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new Started(null, said.toString());
        }
        Thread.ofVirtual()
                .start(
                        () -> { // keep reading, so that a full pipe never stalls the server
                            try {
                                while (out.readLine() != null) {
                                    // discarded
                                }
                            } catch (IOException e) {
                                // the server is gone
                            }
                        });
        return new Started(process, said.toString());
    }

    private static Path binary() {
        List<Path> candidates = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            for (String entry : path.split(java.io.File.pathSeparator)) {
                candidates.add(Path.of(entry, "redis-server"));
            }
        }
        candidates.add(Path.of("/usr/bin/redis-server"));
        candidates.add(Path.of("/usr/local/bin/redis-server"));
        for (Path candidate : candidates) {
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("redis-server is not installed, and the tests of store: redis run a real"
                + " one (expected: redis-server on the PATH; on Debian or Ubuntu: sudo apt-get install redis-server;"
                + " .ci/run installs it)");
    }
}
