package dev.sluice.tls;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.ConfigException;
import dev.sluice.config.Problem;
import dev.sluice.config.TlsConfig;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS for the gateway's listener, decided once for every engine: one {@link SSLContext} (the JDK's
 * provider) whose key manager chooses the certificate by server name ({@link SniKeyManager}) and whose
 * trust manager checks client certificates ({@link ClientCaTrust}), the protocols and cipher suites
 * offered, and whether a client certificate is asked for. Jetty and Netty each wrap this context;
 * neither reads a PEM file or chooses a certificate itself.
 *
 * <pre>
 *   PEM files ──load──► ServerCertificates ──swap──► SniKeyManager / ClientCaTrust ──► SSLContext
 *       ▲                                                                  (engines' SSLEngines)
 *       └── watched directories: a change, once quiet for 200 ms, is read whole and swapped in
 * </pre>
 *
 * <p><b>Rotation.</b> The files' directories are watched (so an editor's replace and a Kubernetes
 * Secret's {@code ..data} symlink swap are both seen). When their contents change, they are read and
 * checked whole; if every file is usable, new handshakes get the new certificates while established
 * connections go on undisturbed; if not, the running certificates stay and the problems are logged.
 */
public final class ServerTls implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ServerTls.class);

    /** Writers replace files in several steps: the watcher waits this long after the last event. */
    static final long SETTLE_MILLIS = 200;

    /**
     * Mozilla's "intermediate" cipher suites (TLS 1.3's three, then TLS 1.2's forward-secret AEAD
     * ones), in the JDK's names; those the JDK lacks are left out.
     */
    static final List<String> CIPHER_SUITES = List.of(
            "TLS_AES_128_GCM_SHA256",
            "TLS_AES_256_GCM_SHA384",
            "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
            "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256",
            "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384",
            "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256");

    private final TlsConfig config;
    private final String path; // server.tls, admin.tls: where its problems are named
    private final Clock clock;
    private final SniKeyManager keys;
    private final ClientCaTrust trust;
    private final SSLContext context;
    private final List<String> protocols;
    private final List<String> cipherSuites;
    private final WatchService watcher;
    private final Thread watching;

    private ServerTls(TlsConfig config, Clock clock, ServerCertificates first, String path) throws IOException {
        this.path = path;
        this.config = config;
        this.clock = clock;
        this.keys = new SniKeyManager(first);
        this.trust = config.clientCa().isPresent() ? new ClientCaTrust(first.clientCa()) : null;
        try {
            context = SSLContext.getInstance("TLS");
            context.init(new KeyManager[] {keys}, trust == null ? null : new TrustManager[] {trust}, null);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("server.tls: the JDK could not make a TLS context: " + e, e);
        }
        SSLParameters supported = context.getSupportedSSLParameters();
        List<String> supportedProtocols = List.of(supported.getProtocols());
        protocols =
                config.protocols().stream().filter(supportedProtocols::contains).toList();
        List<String> supportedSuites = List.of(supported.getCipherSuites());
        cipherSuites = CIPHER_SUITES.stream().filter(supportedSuites::contains).toList();
        watcher = watch(config);
        watching = Thread.ofPlatform().name("sluice-tls-watch").daemon(true).start(this::watchLoop);
    }

    /**
     * Reads {@code tls}'s files and starts watching them.
     *
     * @throws ConfigException listing every unusable file by its path under {@code server.tls}
     * @throws IOException when the files' directories cannot be watched
     */
    public static ServerTls open(TlsConfig tls) throws ConfigException, IOException {
        return open(tls, "server.tls");
    }

    /** {@link #open(TlsConfig)} for another listener's TLS, its problems named under {@code path} ({@code admin.tls}). */
    public static ServerTls open(TlsConfig tls, String path) throws ConfigException, IOException {
        return open(tls, Clock.systemUTC(), path);
    }

    static ServerTls open(TlsConfig tls, Clock clock) throws ConfigException, IOException {
        return open(tls, clock, "server.tls");
    }

    private static ServerTls open(TlsConfig tls, Clock clock, String path) throws ConfigException, IOException {
        requireNonNull(tls, "tls");
        ServerCertificates.Checked checked = ServerCertificates.load(tls, path, clock.instant());
        if (checked.certificates().isEmpty()) {
            throw new ConfigException(path, checked.problems());
        }
        warn(checked.warnings());
        return new ServerTls(tls, clock, checked.certificates().get(), path);
    }

    /** The context every engine makes its {@code SSLEngine}s from. */
    public SSLContext context() {
        return context;
    }

    /** The protocols to enable, {@code server.tls.protocols} (TLS 1.3 and 1.2 by default). */
    public String[] protocols() {
        return protocols.toArray(String[]::new);
    }

    /** The cipher suites to enable, in order of preference: Mozilla's "intermediate" list. */
    public String[] cipherSuites() {
        return cipherSuites.toArray(String[]::new);
    }

    /** Whether clients are asked for a certificate. */
    public TlsConfig.ClientAuth clientAuth() {
        return config.clientAuth();
    }

    /**
     * Reads the files again and, if they changed and every one is usable, makes new handshakes use
     * them. The file watcher calls it; so may anyone who knows the files changed.
     *
     * @return whether new certificates were swapped in
     */
    public synchronized boolean reload() {
        ServerCertificates.Checked checked = ServerCertificates.load(config, path, clock.instant());
        if (checked.certificates().isEmpty()) {
            LOG.warn(
                    "TLS files changed but cannot be used; the running certificates stay: {}",
                    checked.problems().stream().map(Problem::toString).collect(Collectors.joining("; ")));
            return false;
        }
        ServerCertificates next = checked.certificates().get();
        if (next.sameFilesAs(keys.current())) {
            return false;
        }
        if (trust != null) {
            trust.swap(next.clientCa());
        }
        keys.swap(next);
        LOG.info(
                "TLS certificates reloaded: new handshakes get {} (serial {}, valid until {})",
                next.defaultCertificate().getSubjectX500Principal().getName(),
                next.defaultCertificate().getSerialNumber().toString(16),
                next.defaultCertificate().getNotAfter().toInstant());
        warn(checked.warnings());
        return true;
    }

    /** The certificates new handshakes choose from. */
    ServerCertificates current() {
        return keys.current();
    }

    private static void warn(List<Problem> warnings) {
        for (Problem warning : warnings) {
            LOG.warn("{}", warning);
        }
    }

    private static WatchService watch(TlsConfig config) throws IOException {
        Set<Path> directories = new LinkedHashSet<>();
        List<Path> files = new ArrayList<>();
        files.add(config.certificate().certificate());
        files.add(config.certificate().key());
        config.sni().forEach(f -> {
            files.add(f.certificate());
            files.add(f.key());
        });
        config.clientCa().ifPresent(files::add);
        for (Path file : files) {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                directories.add(parent);
            }
        }
        WatchService service = directories.iterator().next().getFileSystem().newWatchService();
        try {
            for (Path dir : directories) {
                dir.register(
                        service,
                        StandardWatchEventKinds.ENTRY_CREATE,
                        StandardWatchEventKinds.ENTRY_MODIFY,
                        StandardWatchEventKinds.ENTRY_DELETE);
            }
        } catch (IOException e) {
            service.close();
            throw e;
        }
        return service;
    }

    private void watchLoop() {
        try {
            while (true) {
                WatchKey key = watcher.take();
                key.pollEvents();
                key.reset();
                WatchKey more; // let the writer finish: take every event that follows within the settle time
                while ((more = watcher.poll(SETTLE_MILLIS, TimeUnit.MILLISECONDS)) != null) {
                    more.pollEvents();
                    more.reset();
                }
                try {
                    reload();
                } catch (RuntimeException e) {
                    LOG.error("TLS files changed and could not be reloaded; the running certificates stay", e);
                }
            }
        } catch (ClosedWatchServiceException | InterruptedException stopped) {
            // closed: the listener is stopping
        }
    }

    /** Stops watching the files; established connections are the engine's to close. */
    @Override
    public void close() {
        try {
            watcher.close();
        } catch (IOException ignored) {
            // closing a watch service frees an inotify descriptor; nothing to recover
        }
        watching.interrupt();
    }
}
