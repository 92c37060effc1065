package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckCommandTest {

    @TempDir
    Path dir;

    private Path write(String name, String yaml) throws Exception {
        return Files.writeString(dir.resolve(name), yaml);
    }

    @Test
    void aValidConfigurationIsOkWithItsCounts() throws Exception {
        Path file = write("ok.yaml", """
        upstreams:
          catalog: { url: "http://127.0.0.1:9001" }
        routes:
          - id: products
            match: { path: "/products/**" }
            proxy: { upstream: catalog }
          - id: page
            match: { path: "/page/{id}" }
            compose:
              parts:
                product: { upstream: catalog, path: "/products/{id}" }
        """);
        CliRunner.Result result = CliRunner.run("check", "-c", file.toString());
        assertThat(result.exitCode()).isZero();
        assertThat(result.out()).isEqualTo("ok: 2 routes, 1 upstreams\n");
    }

    @Test
    void theBundledDemoConfigurationChecksOk() throws Exception {
        Path file = write("demo.yaml", CliRunner.run("config").out());
        CliRunner.Result result = CliRunner.run("check", "--config=" + file);
        assertThat(result.exitCode()).isZero();
        assertThat(result.out()).isEqualTo("ok: 11 routes, 6 upstreams\n");
    }

    @Test
    void aBrokenConfigurationListsEveryProblemOnePerLine() throws Exception {
        Path file = write("broken.yaml", """
        server: { port: 99999, engine: fibers }
        upstreams:
          catalog: { url: "ftp://files.example" }
        routes:
          - id: products
            match: { path: "/products/**" }
            proxy: { upstream: nope }
        """);
        CliRunner.Result result = CliRunner.run("check", "-c", file.toString());
        assertThat(result.exitCode()).isEqualTo(1);
        List<String> lines = result.out().lines().toList();
        assertThat(lines.getFirst()).isEqualTo("4 problems in " + file + ":");
        assertThat(lines.subList(1, lines.size()))
                .hasSize(4)
                .allSatisfy(l -> assertThat(l).matches("  [^ ].*: .*"));
        assertThat(lines)
                .anySatisfy(l -> assertThat(l).startsWith("  server.port: "))
                .anySatisfy(l -> assertThat(l).startsWith("  server.engine: "))
                .anySatisfy(l -> assertThat(l).startsWith("  upstreams.catalog.url: "))
                .anySatisfy(l -> assertThat(l).startsWith("  routes[0].proxy.upstream: 'nope'"));
        assertThat(result.out() + result.err()).doesNotContain("Exception", "\tat ");
    }

    @Test
    void aMissingFileIsOneProblem() {
        Path missing = dir.resolve("missing.yaml");
        CliRunner.Result result = CliRunner.run("check", "-c", missing.toString());
        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.out())
                .isEqualTo("1 problem in " + missing + ":\n  (file): '" + missing
                        + "' does not exist (expected: a readable YAML file)\n");
    }

    @Test
    void yamlSyntaxErrorsNameTheLine() throws Exception {
        Path file = write("syntax.yaml", "routes: [\n  - id: x\n");
        CliRunner.Result result = CliRunner.run("check", "-c", file.toString());
        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.out()).contains("  (yaml): line ");
    }

    @Test
    void runRefusesABrokenConfigurationWithoutStartingAnything() throws Exception {
        Path file = write("broken.yaml", """
        upstreams: {}
        routes:
          - id: products
            match: { path: "/products/**" }
            proxy: { upstream: nope }
        """);
        CliRunner.Result result = CliRunner.run("run", "-c", file.toString());
        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.err()).startsWith("sluice: 1 problem in " + file + ":\n  routes[0].proxy.upstream: 'nope'");
        assertThat(result.err()).doesNotContain("Exception", "\tat ");
    }
}
