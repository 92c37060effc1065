package dev.sluice.app;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.ConfigChange;
import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigFiles;
import dev.sluice.config.ConfigLoader;
import dev.sluice.config.GatewayConfig;
import dev.sluice.config.Problem;
import dev.sluice.engine.RunningGateway;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hot reload of {@code sluice run}'s configuration file: when the file changes (watched, including
 * Kubernetes' ConfigMap symlink swap), on SIGHUP, or on the admin listener's {@code POST /reload}.
 * The file is read and validated whole, the command line's {@code --engine}, {@code --port} and
 * {@code --admin-port} are applied as at start, and {@link ConfigChange} decides what may change live; then the engine swaps
 * its snapshot in one step. A file with any problem changes nothing: the running configuration
 * stays, and every problem is logged (and answered to {@code POST /reload}) with its path.
 */
final class Reloader implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Reloader.class);

    /** Editors write a file in several steps: the watcher waits this long after the last event. */
    static final long SETTLE_MILLIS = 200;

    /** What a reload did. */
    record Outcome(boolean applied, GatewayConfig config, List<Problem> problems, String source) {}

    private final Path file;
    private final UnaryOperator<GatewayConfig> commandLine;
    private final RunningGateway gateway;
    private final Counter applied;
    private final Counter refused;
    private final AtomicLong lastApplied = new AtomicLong();
    private volatile GatewayConfig running;
    private volatile ConfigFiles runningFiles;
    private byte[] runningDigest;
    private final java.util.Set<Path> watched = new java.util.HashSet<>();
    private WatchService watcher;
    private Thread watching;

    Reloader(
            Path file,
            UnaryOperator<GatewayConfig> commandLine,
            GatewayConfig running,
            RunningGateway gateway,
            Optional<MeterRegistry> registry) {
        this.file = requireNonNull(file, "file").toAbsolutePath();
        this.commandLine = requireNonNull(commandLine, "commandLine");
        this.running = requireNonNull(running, "running");
        this.gateway = requireNonNull(gateway, "gateway");
        this.runningFiles = ConfigFiles.read(this.file);
        this.runningDigest = runningFiles.digest();
        this.applied = registry.map(r -> Counter.builder("sluice.config.reloads")
                        .description("Configuration reloads, by outcome")
                        .tag("outcome", "applied")
                        .register(r))
                .orElse(null);
        this.refused = registry.map(r -> Counter.builder("sluice.config.reloads")
                        .description("Configuration reloads, by outcome")
                        .tag("outcome", "refused")
                        .register(r))
                .orElse(null);
        registry.ifPresent(r -> io.micrometer.core.instrument.Gauge.builder(
                        "sluice.config.last.reload", lastApplied, a -> a.get() / 1000.0)
                .description("When the configuration was last applied by a reload (Unix seconds; 0: never)")
                .baseUnit("seconds")
                .register(r));
    }

    /** The configuration new requests run on. */
    GatewayConfig running() {
        return running;
    }

    /** The running configuration as JSON, secrets redacted ({@link ConfigView}). */
    String runningJson() {
        return ConfigView.json(runningFiles.tree(), running);
    }

    /** Reads the file and applies it if it is whole and valid; otherwise changes nothing. */
    synchronized Outcome reload(String trigger) {
        ConfigFiles files = ConfigFiles.read(file);
        byte[] digest = files.digest();
        watchMore(files);
        GatewayConfig next;
        ConfigChange change;
        try {
            next = ConfigLoader.parse(files);
            next = commandLine.apply(next);
            change = ConfigChange.between(running, next, file.toString());
            gateway.reload(next, change);
        } catch (ConfigException e) {
            count(refused);
            LOG.error(
                    "config reload ({}) refused; the running configuration stays: {}",
                    trigger,
                    e.getMessage().strip());
            runningDigest = digest; // the watcher waits for the next change of this file, not this one again
            return new Outcome(false, running, e.problems(), e.source());
        } catch (RuntimeException e) {
            count(refused);
            LOG.error("config reload ({}) failed; the running configuration stays", trigger, e);
            runningDigest = digest;
            return new Outcome(
                    false, running, List.of(new Problem("(reload)", "could not be applied: " + e)), file.toString());
        }
        running = next;
        runningFiles = files;
        runningDigest = digest;
        lastApplied.set(System.currentTimeMillis());
        count(applied);
        LOG.info(
                "config reloaded ({}): {} routes, {} upstreams; pools kept: {}; new: {}; retired: {}",
                trigger,
                next.routes().size(),
                next.upstreams().size(),
                names(change.kept()),
                names(change.started()),
                names(change.retired()));
        return new Outcome(true, next, List.of(), file.toString());
    }

    /**
     * Watches the file's directory, and those its {@code include:} patterns list, and reloads when
     * the content of the file or of an included one changes (or one is added or removed). Directories
     * are watched, not files: editors replace files, and Kubernetes swaps a ConfigMap's {@code ..data}
     * symlink, so the file's own node may never change.
     */
    synchronized void watch() throws IOException {
        Path dir = file.getParent();
        watcher = dir.getFileSystem().newWatchService();
        register(dir);
        watchMore(runningFiles);
        WatchService service = watcher;
        watching = Thread.ofPlatform().name("sluice-config-watch").daemon(true).start(() -> watchLoop(service));
    }

    private void watchLoop(WatchService service) {
        try {
            while (true) {
                WatchKey key = service.take();
                key.pollEvents();
                key.reset();
                // let the writer finish: take every event that follows within the settle time
                WatchKey more;
                while ((more = service.poll(SETTLE_MILLIS, TimeUnit.MILLISECONDS)) != null) {
                    more.pollEvents();
                    more.reset();
                }
                if (changed()) {
                    reload("file changed");
                }
            }
        } catch (ClosedWatchServiceException | InterruptedException stopped) {
            // closed: the gateway is stopping
        }
    }

    private synchronized boolean changed() {
        ConfigFiles now = ConfigFiles.read(file);
        watchMore(now); // a directory an include names may appear after the start
        return now.text().isPresent() && !Arrays.equals(now.digest(), runningDigest);
    }

    /** Watches the directories {@code files}' include patterns list that are not watched yet. */
    private void watchMore(ConfigFiles files) {
        if (watcher == null) {
            return;
        }
        for (Path dir : files.directories()) {
            try {
                register(dir);
            } catch (IOException e) {
                LOG.warn("cannot watch {} for changes; reload by SIGHUP or POST /reload", dir);
            }
        }
    }

    private void register(Path dir) throws IOException {
        if (!watched.contains(dir)) {
            dir.register(
                    watcher,
                    StandardWatchEventKinds.ENTRY_CREATE,
                    StandardWatchEventKinds.ENTRY_MODIFY,
                    StandardWatchEventKinds.ENTRY_DELETE);
            watched.add(dir);
        }
    }

    /**
     * Reloads on SIGHUP, where the platform has it. A process started with SIGHUP ignored ({@code nohup},
     * some supervisors) keeps it ignored: the JVM does not take an ignored hang-up signal back, so the
     * handler would never run; that is said once, with the other ways to reload.
     */
    void onHangUp() {
        try {
            sun.misc.SignalHandler previous = sun.misc.Signal.handle(
                    new sun.misc.Signal("HUP"),
                    signal -> Thread.ofVirtual().name("sluice-sighup").start(() -> reload("SIGHUP")));
            if (previous == sun.misc.SignalHandler.SIG_IGN) {
                LOG.warn("SIGHUP is ignored by this process (started under nohup?): it will not reload;"
                        + " reload by file change or POST /reload");
            }
        } catch (IllegalArgumentException | UnsupportedOperationException noSuchSignal) {
            LOG.debug("no SIGHUP here; reload by file change or POST /reload");
        }
    }

    private void count(Counter counter) {
        if (counter != null) {
            counter.increment();
        }
    }

    private static String names(java.util.Set<String> names) {
        return names.isEmpty() ? "none" : String.join(", ", new java.util.TreeSet<>(names));
    }

    @Override
    public synchronized void close() {
        if (watcher != null) {
            try {
                watcher.close();
            } catch (IOException ignored) {
                // closing a watch service frees an inotify descriptor; nothing to recover
            }
            watching.interrupt();
        }
    }
}
