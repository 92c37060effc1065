package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigLoader;
import dev.sluice.config.GatewayConfig;
import dev.sluice.config.RouteConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sluice import}: an OpenAPI 3 document (YAML or JSON) → a configuration the loader accepts. */
class ImportCommandTest {

    @TempDir
    Path dir;

    private static Path resource(String name) throws Exception {
        return Path.of(ImportCommandTest.class.getResource("/openapi/" + name).toURI());
    }

    @Test
    void aPetstoreBecomesOneProxyRoutePerPathOnItsFirstServer() throws Exception {
        CliRunner.Result result =
                CliRunner.run("import", resource("petstore.yaml").toString());
        assertThat(result.exitCode()).as(result.err()).isZero();
        Path file = Files.writeString(dir.resolve("sluice.yaml"), result.out());
        GatewayConfig config = ConfigLoader.load(file);

        assertThat(config.upstreams()).containsOnlyKeys("swagger-petstore");
        assertThat(config.upstream("swagger-petstore").url())
                .hasToString("http://petstore.example:8081/v1")
                .as("servers[0], its variables at their defaults");
        List<RouteConfig> routes = config.routes();
        assertThat(routes)
                .extracting(r -> r.match().path().toString())
                .as("a literal segment before a variable one; a path without operations left out")
                .containsExactly("/pets", "/pets/mine", "/pets/{petId}", "/pets/{petId}/photos/{photo_name}");
        assertThat(routes.get(0).match().methods()).isEqualTo(Set.of("GET", "POST"));
        assertThat(routes.get(2).match().methods()).isEqualTo(Set.of("GET", "DELETE"));
        assertThat(routes).extracting(RouteConfig::id).doesNotHaveDuplicates().contains("pets", "pets-mine");
        assertThat(result.err())
                .contains("segment '{photo.name}.jpg' is matched as the variable {photo_name}")
                .contains("servers[0] used; 1 more not")
                .contains("skipped '/stores/{store-id}/orders': no operations");
        assertThat(CliRunner.run("check", "-c", file.toString()).out()).contains("ok: 4 routes, 1 upstreams");
    }

    @Test
    void aJsonDocumentWithARelativeServerIsImportedOnLocalhost() throws Exception {
        CliRunner.Result result =
                CliRunner.run("import", "--openapi", resource("petstore.json").toString());
        assertThat(result.exitCode()).as(result.err()).isZero();
        GatewayConfig config = ConfigLoader.parse(result.out(), "imported.yaml");
        assertThat(config.upstream("petstore-json").url()).hasToString("http://127.0.0.1:8080/api");
        assertThat(config.routes()).extracting(r -> r.match().path().toString()).containsExactly("/pets", "/pets/{id}");
        assertThat(result.err()).contains("is relative");
    }

    @Test
    void whatIsNotAnOpenApi3DocumentIsRefusedWithoutATrace() throws Exception {
        Path swagger = Files.writeString(dir.resolve("swagger.yaml"), "swagger: \"2.0\"\npaths: {}\n");
        CliRunner.Result refused = CliRunner.run("import", swagger.toString());
        assertThat(refused.exitCode()).isEqualTo(1);
        assertThat(refused.err()).contains("not an OpenAPI document").doesNotContain("Exception");
        assertThat(refused.out()).isEmpty();

        CliRunner.Result missing =
                CliRunner.run("import", dir.resolve("none.yaml").toString());
        assertThat(missing.exitCode()).isEqualTo(1);
        assertThat(missing.err()).contains("cannot be read");
    }

    /**
     * SnakeYAML's composer recurses once per level: a document nested a few thousand levels deep
     * crashed the command with a StackOverflowError; it is refused, with where it goes too deep.
     */
    @Test
    void aDocumentNestedThousandsOfLevelsDeepIsRefusedNotAStackOverflow() throws Exception {
        Path deep = Files.writeString(
                dir.resolve("deep.yaml"), "openapi: 3.0.0\nx-deep: " + "[".repeat(5_000) + "]".repeat(5_000) + "\n");
        CliRunner.Result refused = CliRunner.run("import", deep.toString());
        assertThat(refused.exitCode()).isEqualTo(1);
        assertThat(refused.err())
                .contains("nested deeper than 256 levels")
                .contains("line 2")
                .doesNotContain("StackOverflowError")
                .doesNotContain("Exception");
        assertThat(refused.out()).isEmpty();

        Path nested = Files.writeString(
                dir.resolve("nested.yaml"),
                "openapi: 3.0.0\nservers: [{url: 'http://127.0.0.1:8080'}]\npaths:\n  /a:\n    get: {}\nx-nested: "
                        + "[".repeat(200) + "]".repeat(200) + "\n");
        CliRunner.Result imported = CliRunner.run("import", nested.toString());
        assertThat(imported.exitCode())
                .as("nested as deep as a real document may be: %s", imported.err())
                .isZero();
    }
}
