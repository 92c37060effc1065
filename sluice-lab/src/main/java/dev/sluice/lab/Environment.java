package dev.sluice.lab;

import dev.sluice.lab.run.CpuPlan;
import dev.sluice.lab.run.NativeImage;
import dev.sluice.lab.run.ProcessSampler;
import dev.sluice.lab.run.Wrk;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

/** What {@code env.json} records: the machine, the JDK, the versions of everything run, and the flags. */
public final class Environment {

    private Environment() {}

    public static Map<String, Object> describe(
            Workspace ws, CpuPlan cpus, LabOptions options, List<String> gatewayFlags, List<String> baselineFlags) {
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("date", OffsetDateTime.now().toString());
        env.put("scenario", options.scenario());
        env.put("command", "sluice lab " + String.join(" ", options.commandLine()));
        Map<String, Object> machine = new LinkedHashMap<>();
        machine.put("cpu_model", cpuModel());
        machine.put("cores", Runtime.getRuntime().availableProcessors());
        machine.put("memory_total", meminfo("MemTotal"));
        machine.put("kernel", read("/proc/sys/kernel/osrelease").orElse("unknown"));
        machine.put("os", osName());
        machine.put("clock_ticks_per_second", ProcessSampler.ticksPerSecond());
        machine.put("cpu_plan", cpus.describe());
        env.put("machine", machine);
        Map<String, Object> jdk = new LinkedHashMap<>();
        jdk.put("home", ws.jdk().toString());
        jdk.put("version", releaseField(ws.jdk(), "JAVA_VERSION"));
        jdk.put("implementor", releaseField(ws.jdk(), "IMPLEMENTOR"));
        jdk.put(
                "java_version_output",
                output(List.of(ws.java().toString(), "-version")).orElse("unknown"));
        jdk.put("subject_jvm_flags", gatewayFlags);
        jdk.put("baseline_jvm_flags", baselineFlags);
        jdk.put("lab_jvm", Runtime.version().toString());
        env.put("jdk", jdk);
        Map<String, Object> versions = new LinkedHashMap<>();
        versions.put("load_generator", Wrk.version());
        versions.put(
                "pidstat",
                output(List.of("pidstat", "-V"))
                        .map(s -> s.lines().findFirst().orElse(""))
                        .orElse("not installed"));
        try {
            Path jar = ws.gatewayJar();
            versions.put(
                    "sluice",
                    output(List.of(ws.java().toString(), "-jar", jar.toString(), "version"))
                            .orElse("unknown")
                            .trim());
            versions.put("sluice_jar", jar + " (" + size(jar) + " bytes)");
        } catch (LabFailure e) {
            versions.put("sluice", e.getMessage());
        }
        Map<String, Object> baselines = new LinkedHashMap<>();
        for (String app : Workspace.BASELINE_APPS) {
            Path jar = ws.baselineJar(app);
            baselines.put(app, Files.isRegularFile(jar) ? manifest(jar) : "not built");
        }
        versions.put("baselines", baselines);
        versions.put("native_image", NativeImage.tool(ws).map(Path::toString).orElse("not available on this machine"));
        versions.put(
                "git_commit",
                output(List.of("git", "-C", ws.projectDir().toString(), "rev-parse", "HEAD"))
                        .map(String::trim)
                        .orElse("unknown"));
        versions.put(
                "git_dirty",
                output(List.of(
                                "git",
                                "-C",
                                ws.projectDir().toString(),
                                "status",
                                "--porcelain",
                                "--untracked-files=no"))
                        .map(s -> !s.isBlank())
                        .orElse(false));
        env.put("versions", versions);
        env.put("subjects", new ArrayList<Object>());
        return env;
    }

    static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException e) {
            return "unknown";
        }
        return "unknown";
    }

    private static String meminfo(String key) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith(key + ":")) {
                    return line.substring(key.length() + 1).trim();
                }
            }
        } catch (IOException e) {
            return "unknown";
        }
        return "unknown";
    }

    private static String osName() {
        try {
            for (String line : Files.readAllLines(Path.of("/etc/os-release"))) {
                if (line.startsWith("PRETTY_NAME=")) {
                    return line.substring(12).replace("\"", "");
                }
            }
        } catch (IOException e) {
            return System.getProperty("os.name");
        }
        return System.getProperty("os.name");
    }

    private static String releaseField(Path jdk, String key) {
        try {
            for (String line : Files.readAllLines(jdk.resolve("release"))) {
                if (line.startsWith(key + "=")) {
                    return line.substring(key.length() + 1).replace("\"", "");
                }
            }
        } catch (IOException e) {
            return "unknown";
        }
        return "unknown";
    }

    private static Map<String, String> manifest(Path jar) {
        Map<String, String> m = new LinkedHashMap<>();
        try (JarFile j = new JarFile(jar.toFile())) {
            var attrs = j.getManifest().getMainAttributes();
            for (String key : List.of(
                    "Implementation-Title", "Implementation-Version", "Spring-Boot-Version", "Build-Jdk-Spec")) {
                Optional.ofNullable(attrs.getValue(key)).ifPresent(v -> m.put(key, v));
            }
        } catch (IOException | RuntimeException e) {
            m.put("error", e.toString());
        }
        m.put("jar", jar.toString());
        return m;
    }

    private static long size(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            return -1;
        }
    }

    private static Optional<String> read(String file) {
        try {
            return Optional.of(Files.readString(Path.of(file)).trim());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The output of a short command that exited 0. */
    static Optional<String> output(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.empty();
            }
            return p.exitValue() == 0 ? Optional.of(out.trim()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
