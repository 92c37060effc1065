package dev.sluice.lab;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Where the lab finds what it runs: the project checkout (the gateway jar, the baselines), the JDK
 * that runs the subjects, and the lab's own classpath (for its sizes upstream).
 */
public final class Workspace {

    /** The baselines the lab knows, by subject name, with the jar that runs each. */
    public static final List<String> BASELINE_APPS = List.of("spring-reactive", "spring-virtual", "kotlin-coroutines");

    private final Path projectDir;
    private final Path jdk;

    Workspace(Path projectDir, Path jdk) {
        this.projectDir = requireNonNull(projectDir, "projectDir");
        this.jdk = requireNonNull(jdk, "jdk");
    }

    /**
     * @param project {@code --project}; else the {@code sluice.projectDir} property; else the working
     *     directory or the nearest parent holding {@code sluice-lab/}
     * @param jdkDir {@code --jdk}; else {@code JAVA_HOME} when it is a JDK 25 or later; else the lab's own JDK
     */
    public static Workspace locate(Optional<String> project, Optional<String> jdkDir) throws LabFailure {
        Path dir = project.map(Path::of)
                .or(() -> Optional.ofNullable(System.getProperty("sluice.projectDir"))
                        .map(Path::of))
                .orElseGet(() -> findProject(Path.of("").toAbsolutePath()));
        dir = dir.toAbsolutePath().normalize();
        if (!Files.isDirectory(dir.resolve("sluice-lab"))) {
            throw new LabFailure("project directory: '" + dir
                    + "' has no sluice-lab/ (expected: the Sluice checkout; pass --project DIR)");
        }
        Path jdk = jdkDir.map(Path::of)
                .orElseGet(Workspace::defaultJdk)
                .toAbsolutePath()
                .normalize();
        if (!Files.isExecutable(jdk.resolve("bin/java"))) {
            throw new LabFailure("JDK: '" + jdk + "' has no bin/java (expected: a JDK 25 directory; pass --jdk DIR)");
        }
        return new Workspace(dir, jdk);
    }

    private static Path findProject(Path start) {
        for (Path p = start; p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("sluice-lab")) && Files.exists(p.resolve("pom.xml"))) {
                return p;
            }
        }
        return start;
    }

    private static Path defaultJdk() {
        String env = System.getenv("JAVA_HOME");
        if (env != null && !env.isBlank() && featureVersion(Path.of(env)).orElse(0) >= 25) {
            return Path.of(env);
        }
        return Path.of(System.getProperty("java.home"));
    }

    /** The feature version in a JDK's {@code release} file ({@code JAVA_VERSION="25.0.1"} gives 25). */
    static Optional<Integer> featureVersion(Path jdk) {
        try {
            for (String line : Files.readAllLines(jdk.resolve("release"))) {
                if (line.startsWith("JAVA_VERSION=")) {
                    String v = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                    int end = 0;
                    while (end < v.length() && Character.isDigit(v.charAt(end))) {
                        end++;
                    }
                    return end == 0 ? Optional.empty() : Optional.of(Integer.parseInt(v.substring(0, end)));
                }
            }
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    public Path projectDir() {
        return projectDir;
    }

    public Path jdk() {
        return jdk;
    }

    public Path java() {
        return jdk.resolve("bin/java");
    }

    public Path jdkTool(String name) {
        return jdk.resolve("bin").resolve(name);
    }

    /** The gateway jar; fails with how to build it when it is missing. */
    public Path gatewayJar() throws LabFailure {
        Path jar = projectDir.resolve("sluice-app/target/sluice.jar");
        if (!Files.isRegularFile(jar)) {
            throw new LabFailure(
                    "the gateway jar " + jar + " does not exist (expected: built by `./mvnw -q -B -pl "
                            + "sluice-core,sluice-engine-blocking,sluice-engine-reactive,sluice-demo,sluice-app install -DskipTests`)");
        }
        return jar;
    }

    public Path baselinesPom() {
        return projectDir.resolve("sluice-lab/baselines/pom.xml");
    }

    public Path baselineJar(String app) {
        return projectDir
                .resolve("sluice-lab/baselines")
                .resolve(app)
                .resolve("target")
                .resolve(app + ".jar");
    }

    /**
     * Builds the baselines when one of {@code apps} has no jar yet
     * ({@code mvnw -q -B -f sluice-lab/baselines/pom.xml package -DskipTests}); the build's output goes to
     * {@code log}.
     */
    public void ensureBaselines(List<String> apps, Path log) throws LabFailure {
        List<String> missing =
                apps.stream().filter(a -> !Files.isRegularFile(baselineJar(a))).toList();
        if (missing.isEmpty()) {
            return;
        }
        if (!Files.isRegularFile(baselinesPom())) {
            throw new LabFailure(
                    "the baselines " + missing + " are not built and " + baselinesPom() + " does not exist");
        }
        maven(List.of("-f", baselinesPom().toString(), "package", "-DskipTests"), log, "the baselines " + missing);
        for (String app : missing) {
            if (!Files.isRegularFile(baselineJar(app))) {
                throw new LabFailure("the baselines build succeeded but " + baselineJar(app) + " is missing");
            }
        }
    }

    /**
     * Builds the gateway jar when it is missing ({@code mvnw -q -B -pl <gateway modules> package
     * -DskipTests}), as a test run by {@code mvn test} (which stops before packaging) needs.
     */
    public Path ensureGatewayJar(Path log) throws LabFailure {
        Path jar = projectDir.resolve("sluice-app/target/sluice.jar");
        if (!Files.isRegularFile(jar)) {
            maven(
                    List.of(
                            "-pl",
                            "sluice-core,sluice-engine-blocking,sluice-engine-reactive,sluice-demo,sluice-app",
                            "package",
                            "-DskipTests"),
                    log,
                    "the gateway jar");
        }
        return gatewayJar();
    }

    private void maven(List<String> args, Path log, String what) throws LabFailure {
        List<String> command =
                new ArrayList<>(List.of(projectDir.resolve("mvnw").toString(), "-q", "-B"));
        command.addAll(args);
        System.err.println("sluice lab: building " + what + " (" + String.join(" ", command) + ")");
        try {
            Files.createDirectories(log.getParent());
            ProcessBuilder pb = new ProcessBuilder(command)
                    .directory(projectDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            pb.environment().put("JAVA_HOME", jdk.toString());
            Process p = pb.start();
            if (!p.waitFor(20, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new LabFailure("building " + what + " took more than 20 minutes; see " + log);
            }
            if (p.exitValue() != 0) {
                throw new LabFailure("building " + what + " failed (exit " + p.exitValue() + "); see " + log);
            }
        } catch (IOException e) {
            throw new LabFailure("building " + what + " could not start: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LabFailure("interrupted while building " + what, e);
        }
    }

    /** The classpath of the running lab, to start its own helper processes (the sizes upstream). */
    public static String labClasspath() {
        return System.getProperty("java.class.path");
    }
}
