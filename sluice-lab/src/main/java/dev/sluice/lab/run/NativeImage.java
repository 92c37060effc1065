package dev.sluice.lab.run;

import dev.sluice.lab.Workspace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * GraalVM Native Image, when this machine has it. Without {@code native-image} the lab reports the
 * native columns as not available: never estimated, never copied from the paper.
 */
public final class NativeImage {

    private NativeImage() {}

    /** {@code native-image} on the PATH, in {@code GRAALVM_HOME/bin} or in the subjects' JDK. */
    public static Optional<Path> tool(Workspace workspace) {
        List<Path> candidates = new ArrayList<>();
        String graal = System.getenv("GRAALVM_HOME");
        if (graal != null && !graal.isBlank()) {
            candidates.add(Path.of(graal, "bin", "native-image"));
        }
        candidates.add(workspace.jdkTool("native-image"));
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(java.io.File.pathSeparator)) {
                if (!dir.isBlank()) {
                    candidates.add(Path.of(dir, "native-image"));
                }
            }
        }
        return candidates.stream().filter(Files::isExecutable).findFirst();
    }

    /** The gateway's native executable ({@code sluice-app/target/sluice}), when native-image exists and it was built. */
    public static Optional<Path> executable(Workspace workspace) {
        if (tool(workspace).isEmpty()) {
            return Optional.empty();
        }
        Path exe = workspace.projectDir().resolve("sluice-app/target/sluice");
        return Files.isExecutable(exe) && Files.isRegularFile(exe) ? Optional.of(exe) : Optional.empty();
    }

    /** Why there is no native subject here, for the report. */
    public static String unavailable(Workspace workspace) {
        if (tool(workspace).isEmpty()) {
            return "not available on this machine (no GraalVM native-image on the PATH, in GRAALVM_HOME or in the JDK)";
        }
        return "native-image exists but sluice-app/target/sluice was not built (build it with the app's native profile)";
    }
}
