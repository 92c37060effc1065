package dev.sluice.app;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs the CLI in-process and keeps what it printed. */
final class CliRunner {

    record Result(int exitCode, String out, String err) {}

    private CliRunner() {}

    static Result run(StopSignal signal, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = new Cli(o, e, signal).run(args);
        }
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** For commands that never start anything: a signal that fails the test if it is awaited. */
    static Result run(String... args) {
        return run(
                session -> {
                    throw new AssertionError("nothing should have started");
                },
                args);
    }
}
