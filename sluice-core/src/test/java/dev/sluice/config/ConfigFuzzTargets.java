package dev.sluice.config;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.SilentCloseable;
import java.util.List;

/** Fuzz target for the configuration loader (run by {@code dev.sluice.fuzz.CoreFuzzTest}). */
public final class ConfigFuzzTargets {

    private ConfigFuzzTargets() {}

    /**
     * Input: a configuration file (UTF-8). {@link ConfigLoader#parse} gives a configuration or a
     * {@link ConfigException} with at least one problem, each with a path and a message, and nothing
     * else (no other exception, no error); {@link ConfigLoader#check} finds problems exactly when
     * parse refuses, and the same ones.
     */
    public static void parse(byte[] data) {
        // A configuration may name files to read beside it (key sets): reading what it names is its
        // job, not a path traversal for Jazzer's detector to report.
        try (SilentCloseable filesAllowed = BugDetectors.setFilePathTraversalAllowPath(path -> true)) {
            parseAndCheck(new String(data, UTF_8));
        }
    }

    private static void parseAndCheck(String yaml) {
        List<Problem> checked = ConfigLoader.check(yaml, "fuzz.yaml");
        try {
            GatewayConfig config = ConfigLoader.parse(yaml, "fuzz.yaml");
            if (config == null) {
                throw new AssertionError("parse returned null (input: " + yaml + ")");
            }
            if (!checked.isEmpty()) {
                throw new AssertionError("parse accepted what check refuses: " + checked + " (input: " + yaml + ")");
            }
        } catch (ConfigException e) {
            if (e.problems().isEmpty()) {
                throw new AssertionError("a ConfigException without problems (input: " + yaml + ")", e);
            }
            for (Problem problem : e.problems()) {
                if (problem.path() == null
                        || problem.message() == null
                        || problem.message().isEmpty()) {
                    throw new AssertionError(
                            "a problem without path or message: " + problem + " (input: " + yaml + ")");
                }
            }
            if (!e.problems().equals(checked)) {
                throw new AssertionError(
                        "check found " + checked + ", parse " + e.problems() + " (input: " + yaml + ")");
            }
        }
    }
}
