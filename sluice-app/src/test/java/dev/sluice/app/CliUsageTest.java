package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CliUsageTest {

    @Test
    void helpPrintsTheUsageAndSucceeds() {
        CliRunner.Result result = CliRunner.run("help");
        assertThat(result.exitCode()).isZero();
        assertThat(result.out())
                .startsWith("usage:")
                .contains(
                        "sluice run -c FILE",
                        "sluice demo",
                        "sluice check -c FILE",
                        "sluice upstreams",
                        "sluice config",
                        "sluice version | help",
                        "sluice test",
                        "sluice lab");
        assertThat(result.err()).isEmpty();
    }

    /**
     * {@code help} lists every command: each of the CLI's table ({@link Cli#OPTIONS}) and each the
     * {@code ./sluice} launcher runs itself, and no other; so neither can gain a command help omits.
     */
    @Test
    void helpListsEveryCommandOfTheCliAndTheLauncher() throws Exception {
        java.util.Set<String> listed = new java.util.TreeSet<>();
        java.util.regex.Matcher line = java.util.regex.Pattern.compile("(?m)^\\s+sluice ([a-z]+(?: \\| [a-z]+)*)")
                .matcher(Cli.USAGE);
        while (line.find()) {
            listed.addAll(java.util.List.of(line.group(1).split(" \\| ")));
        }
        java.nio.file.Path root = java.nio.file.Path.of("").toAbsolutePath();
        while (!java.nio.file.Files.isRegularFile(root.resolve("sluice"))) {
            root = root.getParent();
        }
        java.util.Set<String> commands = new java.util.TreeSet<>(Cli.OPTIONS.keySet());
        java.util.regex.Matcher launcher = java.util.regex.Pattern.compile("if \\[ \"\\$\\{1:-}\" = \"([a-z]+)\" ]")
                .matcher(java.nio.file.Files.readString(root.resolve("sluice")));
        while (launcher.find()) {
            commands.add(launcher.group(1));
        }
        assertThat(commands).contains("image", "test", "lab", "run");
        assertThat(listed).isEqualTo(commands);
    }

    @Test
    void noCommandIsAUsageError() {
        CliRunner.Result result = CliRunner.run();
        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).startsWith("sluice: no command\nusage:");
        assertThat(result.out()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
      launch                                 | sluice: unknown command 'launch'
      run                                    | sluice: 'run' needs --config FILE (-c FILE)
      run -c a.yaml --port                   | sluice: --port needs a value
      run -c a.yaml --port 70000             | sluice: --port: '70000' (expected: an integer 0..65535)
      run -c a.yaml -c b.yaml                | sluice: --config is given twice
      run -c a.yaml extra                    | sluice: 'run' takes no argument 'extra'
      run -c a.yaml --engine=loom            | sluice: --engine: 'loom' (expected: virtual, platform or reactive)
      demo --upstream-port-base 65531        | sluice: --upstream-port-base: '65531' (expected: an integer 0..65530)
      demo --config a.yaml                   | sluice: 'demo' has no option '--config' (expected: one of --engine, --port, --upstream-port-base)
      upstreams --port 1                     | sluice: 'upstreams' has no option '--port' (expected: one of --host, --port-base)
      check                                  | sluice: 'check' needs --config FILE (-c FILE)
      test                                   | sluice: 'test' runs from the ./sluice launcher in a source checkout (./sluice test), not from the jar
      lab paper                              | sluice: 'lab' runs from the ./sluice launcher in a source checkout (./sluice lab), not from the jar
      version --verbose                      | sluice: 'version' has no option '--verbose'
      """)
    void badUsageExitsWith2AndAShortMessage(String args, String message) {
        CliRunner.Result result = CliRunner.run(args.split(" "));
        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err().lines().findFirst()).hasValue(message);
        assertThat(result.err()).contains("usage:").doesNotContain("Exception", "\tat ");
    }

    @Test
    void versionNamesTheVersionJavaAndTheEngines() {
        CliRunner.Result result = CliRunner.run("version");
        assertThat(result.exitCode()).isZero();
        assertThat(result.out())
                .startsWith("sluice 0.1.0-SNAPSHOT (Java " + Runtime.version())
                .contains("engines: virtual, platform");
    }

    @Test
    void configPrintsTheBundledDemoConfiguration() {
        CliRunner.Result result = CliRunner.run("config");
        assertThat(result.exitCode()).isZero();
        assertThat(result.out()).startsWith("# Sluice demo configuration").contains("routes:", "id: compose");
    }

    /** {@code config --upstream-port-base N} moves the six URLs where {@code upstreams --port-base N} serves. */
    @Test
    void configOnAnotherPortBasePointsEveryUpstreamThere() throws Exception {
        CliRunner.Result result = CliRunner.run("config", "--upstream-port-base", "29081");
        assertThat(result.exitCode()).as(result.err()).isZero();
        dev.sluice.config.GatewayConfig moved = dev.sluice.config.ConfigLoader.parse(result.out(), "moved.yaml");
        dev.sluice.config.GatewayConfig bundled = dev.sluice.demo.DemoConfig.load();
        assertThat(moved.upstreams().keySet()).isEqualTo(bundled.upstreams().keySet());
        for (String name : bundled.upstreams().keySet()) {
            assertThat(moved.upstream(name).url().getPort())
                    .as(name)
                    .isEqualTo(bundled.upstream(name).url().getPort() - 19081 + 29081);
        }
        assertThat(result.out()).doesNotContain(":1908").contains("--port-base 29081");
    }

    @Test
    void aCommandFollowedByHelpPrintsTheUsage() {
        CliRunner.Result result = CliRunner.run("demo", "--help");
        assertThat(result.exitCode()).isZero();
        assertThat(result.out()).startsWith("usage:");
    }
}
