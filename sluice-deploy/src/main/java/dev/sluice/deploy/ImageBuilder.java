package dev.sluice.deploy;

import static java.util.Objects.requireNonNull;

import com.google.cloud.tools.jib.api.Containerizer;
import com.google.cloud.tools.jib.api.Jib;
import com.google.cloud.tools.jib.api.JibContainer;
import com.google.cloud.tools.jib.api.TarImage;
import com.google.cloud.tools.jib.api.buildplan.AbsoluteUnixPath;
import com.google.cloud.tools.jib.api.buildplan.FileEntriesLayer;
import com.google.cloud.tools.jib.api.buildplan.FilePermissions;
import com.google.cloud.tools.jib.api.buildplan.ImageFormat;
import com.google.cloud.tools.jib.api.buildplan.Port;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Builds Sluice's container image without a Docker daemon, with Jib Core, on an empty base: no
 * distribution, no shell, no package manager; only what the gateway runs on.
 *
 * <pre>
 *   layer      contents
 *   os         the C libraries the runtime links (copied from this machine, as ldd resolves them),
 *              /etc/passwd and /etc/group with the user sluice (65532), /tmp, /etc/sluice
 *   java       a jlink'd runtime (/opt/java): the modules jdeps finds in the jar
 *   sluice     the gateway jar (/opt/sluice/sluice.jar)
 *   aot-cache  the JDK AOT cache (/opt/sluice/sluice.aot), trained by a real run of this runtime and
 *              jar on the demo (sluice train: every engine), so the image starts with classes already
 *              loaded and linked, whichever engine its configuration names
 * </pre>
 *
 * <p>The entrypoint runs {@code java} with the container flags and the cache, as user 65532, in
 * {@code /opt/sluice}; the arguments default to {@code run -c /etc/sluice/sluice.yaml} (a
 * ConfigMap mounted there). Paths to the jar and cache are relative to the working directory, as at
 * training, so the cache's class path matches.
 */
public final class ImageBuilder {

    /** The JVM flags of the image's entrypoint: a container's memory, not a fixed heap. */
    static final List<String> JVM_FLAGS = List.of(
            "-XX:+UseParallelGC",
            "-XX:MaxRAMPercentage=70",
            "-XX:TrimNativeHeapInterval=2000",
            "-XX:-OmitStackTraceInFastThrow",
            "--sun-misc-unsafe-memory-access=allow");

    static final String USER = "65532:65532";
    static final String WORKDIR = "/opt/sluice";
    static final List<String> DEFAULT_ARGS = List.of("run", "-c", "/etc/sluice/sluice.yaml");

    /** What was built. */
    record Result(Path tar, long tarBytes, Map<String, Long> layerBytes, String modules, String digest) {}

    /** The time every file of the image carries (reproducible layers). */
    private static final Instant EPOCH = Instant.ofEpochSecond(1);

    private final Path jar;
    private final Path jdk;
    private final Path work;
    private final Path out;
    private final String name;

    /**
     * @param jar the gateway's jar (sluice-app/target/sluice.jar)
     * @param jdk a JDK 25 (jlink, jdeps)
     * @param work a scratch directory (emptied)
     * @param out the image tar to write
     * @param name the image's name and tag, such as {@code sluice:0.1.0}
     */
    ImageBuilder(Path jar, Path jdk, Path work, Path out, String name) {
        this.jar = requireNonNull(jar, "jar");
        this.jdk = requireNonNull(jdk, "jdk");
        this.work = requireNonNull(work, "work");
        this.out = requireNonNull(out, "out");
        this.name = requireNonNull(name, "name");
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 == args.length) {
                System.err.println(
                        "usage: ImageBuilder --jar FILE --jdk DIR --out FILE [--work DIR] [--name NAME:TAG]");
                System.exit(2);
            }
            options.put(args[i].substring(2), args[++i]);
        }
        for (String required : List.of("jar", "jdk", "out")) {
            if (!options.containsKey(required)) {
                System.err.println("ImageBuilder: --" + required + " is required");
                System.exit(2);
            }
        }
        Path out = Path.of(options.get("out")).toAbsolutePath();
        Result r = new ImageBuilder(
                        Path.of(options.get("jar")).toAbsolutePath(),
                        Path.of(options.get("jdk")),
                        Path.of(options.getOrDefault(
                                        "work", out.resolveSibling("image-work").toString()))
                                .toAbsolutePath(),
                        out,
                        options.getOrDefault("name", "sluice:latest"))
                .build(System.out);
        System.out.printf(
                "image %s: %s, %.1f MB (layers: %s); %s%n",
                options.getOrDefault("name", "sluice:latest"),
                r.tar(),
                r.tarBytes() / 1e6,
                describe(r.layerBytes()),
                r.digest());
    }

    static String describe(Map<String, Long> layers) {
        List<String> parts = new ArrayList<>();
        layers.forEach((layer, bytes) -> parts.add(layer + " " + String.format("%.1f MB", bytes / 1e6)));
        return String.join(", ", parts);
    }

    Result build(java.io.PrintStream log) throws Exception {
        if (!System.getProperty("os.name").equals("Linux")) {
            throw new IllegalStateException("the image is built on Linux (it copies this machine's C libraries)");
        }
        deleteTree(work);
        Path rootfs = work.resolve("rootfs");
        Files.createDirectories(rootfs);

        log.println("image: jlink");
        String modules = run(List.of(
                        tool("jdeps"),
                        "--print-module-deps",
                        "--ignore-missing-deps",
                        "--multi-release",
                        "25",
                        jar.toString()))
                .strip();
        if (modules.isEmpty() || modules.contains(" ") || modules.contains("\n")) {
            throw new IllegalStateException("jdeps printed no module list for " + jar + ": '" + modules + "'");
        }
        Path java = rootfs.resolve("opt/java");
        run(List.of(
                tool("jlink"),
                "--add-modules",
                modules,
                "--strip-debug",
                "--no-header-files",
                "--no-man-pages",
                "--output",
                java.toString()));
        Path app = Files.createDirectories(rootfs.resolve("opt/sluice"));
        Files.copy(jar, app.resolve("sluice.jar"), StandardCopyOption.REPLACE_EXISTING);
        // the layers carry every file at EPOCH; the AOT cache records the jar's time when it is
        // trained and refuses a jar whose time differs, so the jar has that time from the start
        Files.setLastModifiedTime(app.resolve("sluice.jar"), FileTime.from(EPOCH));

        log.println("image: C libraries");
        Path os = Files.createDirectories(work.resolve("os"));
        copyLibraries(java, os);
        Path etc = Files.createDirectories(os.resolve("etc"));
        Files.writeString(etc.resolve("passwd"), """
                root:x:0:0:root:/root:/sbin/nologin
                sluice:x:65532:65532:sluice:/opt/sluice:/sbin/nologin
                """);
        Files.writeString(etc.resolve("group"), """
                root:x:0:
                sluice:x:65532:
                """);
        Files.createDirectories(os.resolve("etc/sluice"));
        Files.createDirectories(os.resolve("tmp"));

        log.println("image: AOT cache (a training run of every engine on the demo)");
        train(java.resolve("bin/java"), app);

        log.println("image: layers");
        Instant epoch = EPOCH;
        FileEntriesLayer.Builder osLayer = FileEntriesLayer.builder().setName("os");
        try (Stream<Path> files = Files.walk(os)) {
            for (Path p : files.sorted().toList()) {
                if (p.equals(os)) {
                    continue;
                }
                AbsoluteUnixPath target = AbsoluteUnixPath.get("/" + os.relativize(p));
                String path = target.toString();
                if (path.equals("/tmp")) { // the JVM's and Netty's scratch files (Netty's native library)
                    osLayer.addEntry(p, target, FilePermissions.fromOctalString("700"), epoch, USER);
                } else {
                    osLayer.addEntry(p, target, permissionsOf(p), epoch);
                }
            }
        }
        FileEntriesLayer javaLayer = FileEntriesLayer.builder()
                .setName("java")
                .addEntryRecursive(
                        java,
                        AbsoluteUnixPath.get("/opt/java"),
                        (source, target) -> permissionsOf(source),
                        (source, target) -> epoch)
                .build();
        FileEntriesLayer sluiceLayer = FileEntriesLayer.builder()
                .setName("sluice")
                .addEntry(
                        app.resolve("sluice.jar"),
                        AbsoluteUnixPath.get(WORKDIR + "/sluice.jar"),
                        FilePermissions.fromOctalString("644"),
                        epoch)
                .build();
        FileEntriesLayer aotLayer = FileEntriesLayer.builder()
                .setName("aot-cache")
                .addEntry(
                        app.resolve("sluice.aot"),
                        AbsoluteUnixPath.get(WORKDIR + "/sluice.aot"),
                        FilePermissions.fromOctalString("644"),
                        epoch)
                .build();

        List<String> entrypoint = new ArrayList<>();
        entrypoint.add("/opt/java/bin/java");
        entrypoint.addAll(JVM_FLAGS);
        entrypoint.add("-XX:AOTCache=sluice.aot");
        entrypoint.add("-jar");
        entrypoint.add("sluice.jar");

        Files.createDirectories(out.getParent());
        Files.deleteIfExists(out);
        log.println("image: writing " + out);
        JibContainer container = Jib.fromScratch()
                .setFormat(ImageFormat.OCI)
                .addFileEntriesLayer(osLayer.build())
                .addFileEntriesLayer(javaLayer)
                .addFileEntriesLayer(sluiceLayer)
                .addFileEntriesLayer(aotLayer)
                .setEntrypoint(entrypoint)
                .setProgramArguments(DEFAULT_ARGS)
                .setUser(USER)
                .setWorkingDirectory(AbsoluteUnixPath.get(WORKDIR))
                .setExposedPorts(Set.of(Port.tcp(8080), Port.tcp(9090)))
                .setEnvironment(Map.of("JAVA_HOME", "/opt/java", "PATH", "/opt/java/bin"))
                .addLabel("org.opencontainers.image.title", "sluice")
                .addLabel("org.opencontainers.image.description", "Sluice, a stream-based API gateway for the JVM")
                .setCreationTime(Instant.EPOCH)
                .containerize(Containerizer.to(TarImage.at(out).named(name))
                        .setOfflineMode(true)
                        .setBaseImageLayersCache(work.resolve("jib-cache"))
                        .setApplicationLayersCache(work.resolve("jib-cache"))
                        .setToolName("sluice-deploy"));

        Map<String, Long> sizes = new LinkedHashMap<>();
        sizes.put("os", size(os));
        sizes.put("java", size(java));
        sizes.put("sluice", Files.size(app.resolve("sluice.jar")));
        sizes.put("aot-cache", Files.size(app.resolve("sluice.aot")));
        return new Result(
                out, Files.size(out), sizes, modules, container.getDigest().toString());
    }

    /**
     * Copies every shared library the runtime's executables and libraries (and the jar's native
     * libraries: Netty's io_uring transport) need, at the paths ldd resolves them to, plus the
     * dynamic loader.
     */
    private void copyLibraries(Path java, Path os) throws IOException, InterruptedException {
        List<Path> elves = new ArrayList<>();
        try (Stream<Path> files = Files.walk(java)) {
            files.filter(Files::isRegularFile)
                    .filter(p -> p.toString().endsWith(".so") || p.getParent().endsWith("bin"))
                    .forEach(elves::add);
        }
        Path natives = Files.createDirectories(work.resolve("jar-natives"));
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            for (ZipEntry e : Collections.list(zip.entries())) {
                if (e.getName().startsWith("META-INF/native/") && e.getName().endsWith("x86_64.so")) {
                    Path target =
                            natives.resolve(Path.of(e.getName()).getFileName().toString());
                    try (InputStream in = zip.getInputStream(e)) {
                        Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                    }
                    elves.add(target);
                }
            }
        }
        Set<String> own = new TreeSet<>();
        for (Path elf : elves) {
            own.add(elf.getFileName().toString());
        }
        Pattern resolved = Pattern.compile("=>\\s+(/\\S+)\\s+\\(");
        Pattern loader = Pattern.compile("^\\s*(/\\S*ld-linux\\S*)\\s+\\(");
        Set<String> libraries = new TreeSet<>();
        for (Path elf : elves) {
            List<String> command = List.of("ldd", elf.toString());
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor();
            if (output.contains("not a dynamic executable")) {
                continue;
            }
            for (String line : output.lines().toList()) {
                // the runtime's own libraries (libjvm, libjava, ...) are found through its own paths
                if (line.contains("not found") && !own.contains(line.strip().split("\\s+")[0])) {
                    throw new IllegalStateException("ldd " + elf + ": " + line.strip());
                }
                Matcher m = resolved.matcher(line);
                if (m.find()
                        && !m.group(1).startsWith(java.toString())
                        && !m.group(1).startsWith(natives.toString())) {
                    libraries.add(m.group(1));
                }
                Matcher l = loader.matcher(line);
                if (l.find()) {
                    libraries.add(l.group(1));
                }
            }
        }
        for (String library : libraries) {
            Path source = Path.of(library).toRealPath(); // the file, not the symlink
            Path target = os.resolve(library.substring(1));
            Files.createDirectories(target.getParent());
            Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
        }
        if (libraries.stream().noneMatch(l -> l.contains("ld-linux"))) {
            throw new IllegalStateException("ldd named no dynamic loader for " + java.resolve("bin/java"));
        }
    }

    /**
     * A real run of the image's runtime and jar, from the image's working directory with the
     * entrypoint's flags and relative paths: {@code sluice train} (the demo upstreams, then every engine
     * in turn serving compositions, proxied requests and 404s), after which the JVM writes the cache as
     * it exits. Every engine: the configuration mounted later names the one it runs.
     */
    private void train(Path java, Path app) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(java.toString());
        command.addAll(JVM_FLAGS);
        command.add("-XX:AOTCacheOutput=sluice.aot");
        command.addAll(List.of("-jar", "sluice.jar", "train"));
        Path log = work.resolve("training.log");
        Process training = new ProcessBuilder(command)
                .directory(app.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        if (!training.waitFor(300, TimeUnit.SECONDS)) {
            training.destroyForcibly();
            throw new IllegalStateException(
                    "the training run did not end within 300 s; its output:\n" + Files.readString(log));
        }
        if (training.exitValue() != 0 || !Files.isRegularFile(app.resolve("sluice.aot"))) {
            throw new IllegalStateException("the training run failed (exit " + training.exitValue()
                    + ") or wrote no AOT cache; its output:\n" + Files.readString(log));
        }
    }

    private String tool(String name) {
        Path tool = jdk.resolve("bin").resolve(name);
        if (!Files.isExecutable(tool)) {
            throw new IllegalStateException(tool + " is missing (expected: a JDK 25 with " + name + ")");
        }
        return tool.toString();
    }

    private static FilePermissions permissionsOf(Path p) {
        try {
            return FilePermissions.fromPosixFilePermissions(Files.getPosixFilePermissions(p));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed:\n" + output);
        }
        return output;
    }

    static long size(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile)
                    .mapToLong(p -> p.toFile().length())
                    .sum();
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
