package dev.sluice.lab.scenario;

import dev.sluice.lab.Lab;
import dev.sluice.lab.LabFailure;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Builds and measures the gateway's deployables: the jar (timed builds), the JDK, a jlink image. */
final class Packaging {

    /** Sizes in bytes; the jlink image's modules and how long jlink took. */
    record Sizes(long jarBytes, long jdkBytes, long jlinkBytes, String modules, double jlinkSeconds) {}

    static final String MODULES = "sluice-core,sluice-engine-blocking,sluice-engine-reactive,sluice-demo,sluice-app";

    private final Lab lab;

    Packaging(Lab lab) {
        this.lab = lab;
    }

    String buildCommand() {
        return "./mvnw -q -B -o -pl " + MODULES + " clean package -DskipTests";
    }

    /** Times {@code runs} clean builds of the gateway jar (offline, tests skipped), like the paper's `mvn clean package`. */
    List<Double> timeBuilds(int runs) throws LabFailure {
        List<Double> seconds = new ArrayList<>();
        if (runs > 0) {
            // One untimed build online first: the timed ones run offline (no download is measured), so every
            // plugin they use, maven-clean-plugin included, must already be in the local repository.
            System.err.println("sluice lab: deploy: priming build (not timed): ./mvnw -q -B -pl " + MODULES
                    + " clean package -DskipTests");
            run(
                    List.of(
                            lab.workspace().projectDir().resolve("mvnw").toString(),
                            "-q",
                            "-B",
                            "-pl",
                            MODULES,
                            "clean",
                            "package",
                            "-DskipTests"),
                    lab.results().logs().resolve("packaging-priming.log"),
                    1800);
        }
        for (int i = 0; i < runs; i++) {
            System.err.println("sluice lab: deploy: packaging run " + (i + 1) + " of " + runs + ": " + buildCommand());
            List<String> command = List.of(
                    lab.workspace().projectDir().resolve("mvnw").toString(),
                    "-q",
                    "-B",
                    "-o",
                    "-pl",
                    MODULES,
                    "clean",
                    "package",
                    "-DskipTests");
            long t0 = System.nanoTime();
            run(command, lab.results().logs().resolve("packaging-" + (i + 1) + ".log"), 1800);
            seconds.add((System.nanoTime() - t0) / 1e9);
        }
        lab.workspace().gatewayJar();
        return seconds;
    }

    Sizes sizes() throws LabFailure {
        Path jar = lab.workspace().gatewayJar();
        Path image = lab.results().root().resolve("jlink-image");
        Path log = lab.results().logs().resolve("jlink.log");
        String modules = output(
                        List.of(
                                lab.workspace().jdkTool("jdeps").toString(),
                                "--print-module-deps",
                                "--ignore-missing-deps",
                                "--multi-release",
                                "25",
                                jar.toString()),
                        log)
                .trim();
        if (modules.isEmpty() || modules.contains(" ")) {
            throw new LabFailure("jdeps printed no module list for " + jar + ": '" + modules + "'; see " + log);
        }
        long t0 = System.nanoTime();
        deleteTree(image);
        run(
                List.of(
                        lab.workspace().jdkTool("jlink").toString(),
                        "--add-modules",
                        modules,
                        "--strip-debug",
                        "--no-header-files",
                        "--no-man-pages",
                        "--output",
                        image.toString()),
                log,
                600);
        double jlinkSeconds = (System.nanoTime() - t0) / 1e9;
        return new Sizes(size(jar), size(lab.workspace().jdk()), size(image), modules, jlinkSeconds);
    }

    static long size(Path p) throws LabFailure {
        try (Stream<Path> s = Files.walk(p)) {
            return s.filter(Files::isRegularFile)
                    .mapToLong(f -> {
                        try {
                            return Files.size(f);
                        } catch (IOException e) {
                            return 0;
                        }
                    })
                    .sum();
        } catch (IOException e) {
            throw new LabFailure("cannot measure " + p + ": " + e.getMessage(), e);
        }
    }

    private static void deleteTree(Path dir) throws LabFailure {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new LabFailure("cannot delete " + dir + ": " + e.getMessage(), e);
        }
    }

    private String output(List<String> command, Path log) throws LabFailure {
        run(command, log, 300);
        try {
            List<String> lines = Files.readAllLines(log);
            return lines.isEmpty() ? "" : lines.getLast();
        } catch (IOException e) {
            throw new LabFailure("cannot read " + log + ": " + e.getMessage(), e);
        }
    }

    private void run(List<String> command, Path log, int timeoutSeconds) throws LabFailure {
        try {
            ProcessBuilder pb = new ProcessBuilder(command)
                    .directory(lab.workspace().projectDir().toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            pb.environment().put("JAVA_HOME", lab.workspace().jdk().toString());
            Process p = pb.start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new LabFailure(command.getFirst() + " took more than " + timeoutSeconds + " s; see " + log);
            }
            if (p.exitValue() != 0) {
                throw new LabFailure(String.join(" ", command) + " failed (exit " + p.exitValue() + "); see " + log);
            }
        } catch (IOException e) {
            throw new LabFailure("cannot run " + command.getFirst() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LabFailure("interrupted", e);
        }
    }
}
