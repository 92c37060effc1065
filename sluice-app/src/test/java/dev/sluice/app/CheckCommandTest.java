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
    void anUnusedUpstreamAndACorsMethodTheRouteRefusesAreWarningsNotProblems() throws Exception {
        Path file = write("warn.yaml", """
        upstreams:
          catalog: { url: "http://127.0.0.1:9001" }
          spare: { url: "http://127.0.0.1:9002" }
        routes:
          - id: products
            match: { path: "/products/**", methods: [GET] }
            proxy: { upstream: catalog }
            filters:
              - cors: { allowed-origins: ["*"], allowed-methods: [GET, DELETE] }
        """);
        CliRunner.Result result = CliRunner.run("check", "-c", file.toString());
        assertThat(result.exitCode()).isZero();
        assertThat(result.out())
                .startsWith("warning: upstreams.spare: no route uses this upstream\n"
                        + "warning: routes[0].filters[0].cors.allowed-methods: DELETE is allowed")
                .endsWith("ok: 1 routes, 2 upstreams\n");
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

    /**
     * A problem names the value it refuses, but never a secret it was given: the password of a URL's
     * user info (an upstream's, a JWKS's, Redis's, the OTLP endpoint's) or an API key given where
     * its hash belongs.
     */
    @Test
    void noProblemPrintsBackASecretItWasGiven() throws Exception {
        Files.writeString(dir.resolve("api-keys.txt"), "s3cret-api-key-7\n");
        Path file = write("secrets.yaml", """
        upstreams:
          catalog: { url: "http://user:s3cret-upstream-1@127.0.0.1:9001" }
          broken: { url: "http://user:s3cret-upstream-2@127.0.0.1:9001/?q" }
          endpoints: { endpoints: ["http://127.0.0.1:9001", "http://user:s3cret-upstream-3@127.0.0.1:9002"] }
        redis: { url: "redis://:s3cret-redis-4@127.0.0.1:99999" }
        tracing: { otlp: { endpoint: "ftp://user:s3cret-otlp-5@collector:4318/v1/traces" } }
        routes:
          - id: products
            match: { path: "/products/**" }
            proxy: { upstream: catalog }
            filters:
              - jwt: { jwks: "ftp://user:s3cret-jwks-6@idp.example/jwks.json", issuer: "https://idp.example/" }
              - api-key: { header: X-Api-Key, keys-file: api-keys.txt }
        """);
        CliRunner.Result result = CliRunner.run("check", "-c", file.toString());
        assertThat(result.exitCode()).isEqualTo(1);
        String printed = result.out() + result.err();
        assertThat(printed)
                .contains("upstreams.catalog.url: 'http://user:***@127.0.0.1:9001' (expected: a URL without user info)")
                .contains("upstreams.broken.url")
                .contains("redis.url")
                .contains("tracing.otlp.endpoint")
                .contains("jwt.jwks")
                .contains("api-key.keys-file")
                .doesNotContain("s3cret");
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
