package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * Builds the image from the gateway's jar (as {@code ./sluice image} does), then reads the tar as a
 * registry or runtime would: its config (user, entrypoint, arguments, working directory, ports) and
 * each layer's files. Then it runs the image's file system as a container does (its own root, mount
 * and PID namespaces, as user 65532, in the working directory) on a configuration that proxies to an
 * upstream on this machine, and measures the start to the first 200, with the AOT cache required.
 */
class ImageTest {

    private static final Path PROJECT =
            Path.of(System.getProperty("sluice.projectDir", "..")).toAbsolutePath();
    private static final Path TARGET = PROJECT.resolve("sluice-deploy/target");
    private static ImageBuilder.Result image;
    private static Map<String, Object> config;
    private static List<Map<String, TarArchiveEntry>> layers;
    private static Path blobs;

    @BeforeAll
    static void build() throws Exception {
        Path jar = PROJECT.resolve("sluice-app/target/sluice.jar");
        assertThat(jar)
                .as("the gateway jar (sluice-app is built before this module)")
                .isRegularFile();
        image = new ImageBuilder(
                        jar,
                        Path.of(System.getProperty("java.home")),
                        TARGET.resolve("image-work"),
                        TARGET.resolve("image/sluice-image.tar"),
                        "sluice:test")
                .build(System.out);
        System.out.printf(
                "image: %.1f MB tar (layers: %s); modules %s%n",
                image.tarBytes() / 1e6, ImageBuilder.describe(image.layerBytes()), image.modules());
        Path unpacked = TARGET.resolve("image/unpacked");
        ImageBuilder.deleteTree(unpacked);
        Files.createDirectories(unpacked);
        try (TarArchiveInputStream tar = new TarArchiveInputStream(Files.newInputStream(image.tar()))) {
            TarArchiveEntry e;
            while ((e = tar.getNextEntry()) != null) {
                Path to = unpacked.resolve(e.getName()).normalize();
                if (e.isDirectory()) {
                    Files.createDirectories(to);
                } else {
                    Files.createDirectories(to.getParent());
                    Files.copy(tar, to, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        blobs = unpacked.resolve("blobs/sha256");
        Map<String, Object> index = json(unpacked.resolve("index.json"));
        Map<String, Object> manifest = json(blob(digestOf(((List<?>) index.get("manifests")).get(0))));
        config = json(blob(digestOf(manifest.get("config"))));
        layers = new ArrayList<>();
        for (Object layer : (List<?>) manifest.get("layers")) {
            Map<String, TarArchiveEntry> entries = new LinkedHashMap<>();
            try (TarArchiveInputStream tar = new TarArchiveInputStream(
                    new GzipCompressorInputStream(Files.newInputStream(blob(digestOf(layer)))))) {
                TarArchiveEntry e;
                while ((e = tar.getNextEntry()) != null) {
                    entries.put("/" + e.getName().replaceFirst("^\\./", "").replaceFirst("/$", ""), e);
                }
            }
            layers.add(entries);
        }
    }

    private static String digestOf(Object descriptor) {
        return ((String) ((Map<?, ?>) descriptor).get("digest")).substring("sha256:".length());
    }

    private static Path blob(String digest) {
        return blobs.resolve(digest);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> json(Path file) throws IOException {
        return (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(Files.readString(file));
    }

    @Test
    @SuppressWarnings("unchecked")
    void theImageRunsJavaAsAnUnprivilegedUserWithTheAotCache() {
        Map<String, Object> c = (Map<String, Object>) config.get("config");
        assertThat(c.get("User")).isEqualTo("65532:65532");
        assertThat(c.get("WorkingDir")).isEqualTo("/opt/sluice");
        assertThat((List<String>) c.get("Entrypoint"))
                .startsWith("/opt/java/bin/java")
                .contains("-XX:AOTCache=sluice.aot", "-XX:MaxRAMPercentage=70", "-XX:-OmitStackTraceInFastThrow")
                .endsWith("-jar", "sluice.jar");
        assertThat((List<String>) c.get("Cmd")).containsExactly("run", "-c", "/etc/sluice/sluice.yaml");
        assertThat(((Map<String, Object>) c.get("ExposedPorts")).keySet())
                .containsExactlyInAnyOrder("8080/tcp", "9090/tcp");
        assertThat(config.get("os")).isEqualTo("linux");
        assertThat(config.get("architecture")).isEqualTo("amd64");
    }

    @Test
    void itsLayersHoldTheLibrariesTheRuntimeTheJarAndTheCacheAndNothingElse() {
        assertThat(layers).hasSize(4);
        Map<String, TarArchiveEntry> os = layers.get(0);
        assertThat(os).containsKeys("/etc/passwd", "/etc/group", "/lib64/ld-linux-x86-64.so.2", "/tmp", "/etc/sluice");
        assertThat(os.keySet()).anyMatch(p -> p.matches("/(usr/)?lib/x86_64-linux-gnu/libc\\.so\\.6"));
        assertThat(os.keySet())
                .noneMatch(p -> p.startsWith("/bin") || p.startsWith("/usr/bin") || p.startsWith("/sbin"));
        assertThat(os.get("/tmp").getLongUserId()).isEqualTo(65532);
        assertThat(layers.get(1))
                .containsKeys("/opt/java/bin/java", "/opt/java/lib/server/libjvm.so", "/opt/java/lib/modules");
        assertThat(layers.get(1).get("/opt/java/bin/java").getMode() & 0111)
                .as("java is executable")
                .isNotZero();
        assertThat(layers.get(2)).containsKey("/opt/sluice/sluice.jar");
        assertThat(layers.get(3)).containsKey("/opt/sluice/sluice.aot");
        for (Map<String, TarArchiveEntry> layer : layers) {
            for (TarArchiveEntry e : layer.values()) {
                if (!e.getName().replaceFirst("^\\./", "").startsWith("tmp")) {
                    assertThat(e.getLongUserId())
                            .as(e.getName() + " is root's: the user cannot change it")
                            .isZero();
                }
            }
        }
    }

    @Test
    void theImageStartsAsAContainerWouldAndProxiesWithItsAotCache() throws Exception {
        Path root = TARGET.resolve("image/rootfs");
        ImageBuilder.deleteTree(root);
        Files.createDirectories(root);
        for (Path layerBlob : layerBlobs()) {
            try (TarArchiveInputStream tar =
                    new TarArchiveInputStream(new GzipCompressorInputStream(Files.newInputStream(layerBlob)))) {
                TarArchiveEntry e;
                while ((e = tar.getNextEntry()) != null) {
                    Path to = root.resolve(e.getName()).normalize();
                    if (e.isDirectory()) {
                        Files.createDirectories(to);
                    } else {
                        Files.createDirectories(to.getParent());
                        Files.copy(tar, to, StandardCopyOption.REPLACE_EXISTING);
                    }
                    Files.setPosixFilePermissions(to, permissions(e.getMode()));
                    // as a container runtime unpacks a layer: the entry's time too (the AOT cache checks the jar's)
                    Files.setLastModifiedTime(
                            to,
                            java.nio.file.attribute.FileTime.from(e.getModTime().toInstant()));
                }
            }
        }
        Files.createDirectories(root.resolve("proc"));
        Files.createDirectories(root.resolve("dev"));
        Files.setPosixFilePermissions(root.resolve("tmp"), permissions(0777)); // a runtime mounts it writable
        HttpServer upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        upstream.createContext("/", exchange -> {
            byte[] body = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        upstream.start();
        try {
            Files.writeString(root.resolve("etc/sluice/sluice.yaml"), """
                    server: { host: 127.0.0.1, port: 0 }
                    upstreams:
                      up: { url: "http://127.0.0.1:%d" }
                    routes:
                      - { id: up, match: { path: "/up/**" }, proxy: { upstream: up } }
                    """.formatted(
                            upstream.getAddress().getPort()));
            // alternated, the first pair only warming the page cache; then -Dsluice.image.starts pairs
            // (1 in the build; more to measure on a quiet machine), each printed, and their medians
            startToFirst200(root, true);
            startToFirst200(root, false);
            int pairs = Integer.getInteger("sluice.image.starts", 1);
            long[] with = new long[pairs];
            long[] without = new long[pairs];
            for (int i = 0; i < pairs; i++) {
                with[i] = startToFirst200(root, true);
                without[i] = startToFirst200(root, false);
                System.out.printf(
                        "image: start to first 200 through the gateway: %d ms with its AOT cache, %d ms without%n",
                        with[i], without[i]);
            }
            if (pairs > 1) {
                java.util.Arrays.sort(with);
                java.util.Arrays.sort(without);
                System.out.printf(
                        "image: medians of %d pairs: %d ms with its AOT cache, %d ms without%n",
                        pairs, with[pairs / 2], without[pairs / 2]);
            }
        } finally {
            upstream.stop(0);
        }
    }

    private static List<Path> layerBlobs() throws IOException {
        Map<String, Object> index = json(blobs.getParent().getParent().resolve("index.json"));
        Map<String, Object> manifest = json(blob(digestOf(((List<?>) index.get("manifests")).get(0))));
        List<Path> out = new ArrayList<>();
        for (Object layer : (List<?>) manifest.get("layers")) {
            out.add(blob(digestOf(layer)));
        }
        return out;
    }

    /**
     * Runs the image's entrypoint and arguments in {@code root} as a runtime would (own root, mount
     * and PID namespaces with /proc, the image's user and working directory; the host's network, so
     * the upstream on loopback is reachable) and returns the milliseconds from the spawn to the first
     * 200 through the gateway. With the cache, {@code -XX:AOTMode=on} makes a cache the JVM cannot
     * use an error instead of a silent slow start.
     */
    @SuppressWarnings("unchecked")
    private static long startToFirst200(Path root, boolean cache) throws Exception {
        Map<String, Object> c = (Map<String, Object>) config.get("config");
        List<String> command = new ArrayList<>(List.of("unshare"));
        boolean realRoot = "root".equals(System.getProperty("user.name"));
        if (realRoot) {
            command.addAll(List.of("--setgid", "65532", "--setuid", "65532"));
        } else {
            command.add("--map-root-user"); // no real root here: the namespace's own root stands in
        }
        command.addAll(List.of(
                "--mount", "--pid", "--fork", "--kill-child", "--mount-proc", "--root=" + root, "--wd=/opt/sluice"));
        List<String> entrypoint = new ArrayList<>((List<String>) c.get("Entrypoint"));
        if (!cache) {
            entrypoint.removeIf(flag -> flag.startsWith("-XX:AOTCache="));
        }
        command.addAll(entrypoint);
        command.addAll((List<String>) c.get("Cmd"));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().clear();
        for (Object variable : (List<?>) c.get("Env")) {
            String[] kv = ((String) variable).split("=", 2);
            builder.environment().put(kv[0], kv[1]);
        }
        if (cache) {
            builder.environment().put("JAVA_TOOL_OPTIONS", "-XX:AOTMode=on");
        }
        Path log = TARGET.resolve("image/run-" + (cache ? "aot" : "plain") + ".log");
        builder.redirectOutput(log.toFile());
        long t0 = System.nanoTime();
        Process gateway = builder.start();
        try {
            HttpClient client = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(2))
                    .build();
            Pattern started = Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+)");
            long deadline = t0 + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                assertThat(gateway.isAlive())
                        .as("the gateway runs; its output:\n" + Files.readString(log))
                        .isTrue();
                assertThat(System.nanoTime()).as("started within 60 s").isLessThan(deadline);
                Matcher m = started.matcher(Files.readString(log));
                if (m.find()) {
                    HttpResponse<String> r = client.send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + m.group(1) + "/up/x"))
                                    .timeout(Duration.ofSeconds(10))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 200) {
                        assertThat(r.body()).isEqualTo("{\"ok\":true}");
                        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                        String out = Files.readString(log);
                        assertThat(out).doesNotContainIgnoringCase("error").doesNotContainIgnoringCase("warn");
                        return millis;
                    }
                }
                Thread.sleep(5);
            }
        } finally {
            // SIGTERM to the gateway itself, as a runtime stops a container (unshare's --kill-child does
            // not reach it: a change of user clears the parent-death signal); unshare ends with it
            List<ProcessHandle> inside = gateway.descendants().toList();
            inside.forEach(ProcessHandle::destroy);
            if (!gateway.waitFor(30, TimeUnit.SECONDS)) {
                inside.forEach(ProcessHandle::destroyForcibly);
                gateway.destroyForcibly();
            }
        }
    }

    private static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> set = java.util.EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] order = {
            PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
            PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ
        };
        for (int i = 0; i < order.length; i++) {
            if ((mode & (1 << i)) != 0) {
                set.add(order[i]);
            }
        }
        return set;
    }
}
