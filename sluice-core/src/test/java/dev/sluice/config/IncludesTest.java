package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code include:}: fragments merged into the main file, problems named by the file that wrote them. */
class IncludesTest {

    @TempDir
    Path dir;

    private Path main(String yaml) throws Exception {
        return Files.writeString(dir.resolve("sluice.yaml"), yaml);
    }

    private void fragment(String name, String yaml) throws Exception {
        Files.createDirectories(dir.resolve(name).getParent());
        Files.writeString(dir.resolve(name), yaml);
    }

    private static final String MAIN = """
            include: conf.d/*.yaml
            server: { port: 0 }
            upstreams:
              alpha: { url: "http://127.0.0.1:9001" }
            routes:
              - { id: a, match: { path: "/a" }, proxy: { upstream: alpha } }
            """;

    @Test
    void fragmentsMergeInFileNameOrderListsAppendAndMappingsMergeByKey() throws Exception {
        Path file = main(MAIN);
        fragment("conf.d/20-c.yaml", """
                routes:
                  - { id: c, match: { path: "/c" }, proxy: { upstream: beta } }
                """);
        fragment("conf.d/10-b.yaml", """
                upstreams:
                  beta: { url: "http://127.0.0.1:9002" }
                routes:
                  - { id: b, match: { path: "/b" }, proxy: { upstream: beta } }
                """);
        fragment("conf.d/notes.txt", "not yaml: [");

        GatewayConfig config = ConfigLoader.load(file);

        assertThat(config.routes()).extracting(RouteConfig::id).containsExactly("a", "b", "c");
        assertThat(config.upstreams()).containsOnlyKeys("alpha", "beta");
        assertThat(ConfigFiles.read(file).fragments())
                .extracting(ConfigFiles.Fragment::name)
                .containsExactly("conf.d/10-b.yaml", "conf.d/20-c.yaml");
    }

    @Test
    void aKeyDefinedInTwoFilesIsRefusedNamingBoth() throws Exception {
        Path file = main(MAIN);
        fragment("conf.d/10-b.yaml", """
                upstreams:
                  alpha: { url: "http://127.0.0.1:9003" }
                server: { port: 8080 }
                """);

        List<Problem> problems = ConfigLoader.check(file);

        assertThat(problems).hasSize(2);
        assertThat(problems.get(0).path()).isEqualTo("upstreams.alpha");
        assertThat(problems.get(0).message()).contains(file.toString()).contains("conf.d/10-b.yaml");
        assertThat(problems.get(1).path()).isEqualTo("server.port");
    }

    @Test
    void aProblemInAFragmentIsNamedByItsFileAndItsOwnPath() throws Exception {
        Path file = main(MAIN);
        fragment("conf.d/10-b.yaml", """
                routes:
                  - { id: b, match: { path: "/b" }, proxy: { upstream: alpha } }
                  - { id: c, match: { path: "/c" }, proxy: { upstream: gamma } }
                upstreams:
                  beta: { url: "ftp://nowhere" }
                """);
        fragment("conf.d/20-c.yaml", "routes: [ { id: d ");

        List<Problem> problems = ConfigLoader.check(file);

        assertThat(problems)
                .extracting(Problem::path)
                .contains("conf.d/20-c.yaml: (yaml)", "conf.d/10-b.yaml: routes[1].proxy.upstream")
                .anyMatch(p -> p.startsWith("conf.d/10-b.yaml: upstreams.beta"));
    }

    @Test
    void badPatternsAndNestedIncludesAreRefusedByPath() throws Exception {
        Path file =
                main("include: [ \"*/x.yaml\", missing/*.yaml, conf.d/one.yaml, 7, \"conf.d/[a\", \"a\\0b\", \"/\" ]\n"
                        + MAIN.substring(MAIN.indexOf('\n') + 1));
        fragment("conf.d/two.yaml", "include: other.yaml\n");

        List<Problem> problems = ConfigLoader.check(file);

        assertThat(problems)
                .extracting(Problem::path)
                .containsExactly(
                        "include[0]",
                        "include[1]",
                        "include[2]",
                        "include[3]",
                        "include[4]",
                        "include[5]",
                        "include[6]");
        assertThat(problems.get(0).message()).contains("glob in a directory name");
        assertThat(problems.get(1).message()).contains("does not exist");

        Path nested = main(MAIN);
        assertThat(ConfigLoader.check(nested)).extracting(Problem::path).containsExactly("conf.d/two.yaml: include");
    }

    @Test
    void aFragmentAddedOrChangedIsANewSnapshot() throws Exception {
        Path file = main(MAIN);
        Files.createDirectories(dir.resolve("conf.d"));
        ConfigFiles before = ConfigFiles.read(file);
        assertThat(before.directories()).containsExactly(dir.resolve("conf.d"));
        assertThat(ConfigFiles.read(file).digest()).isEqualTo(before.digest());

        fragment("conf.d/10-b.yaml", "routes: []\n");
        ConfigFiles added = ConfigFiles.read(file);
        assertThat(added.digest()).isNotEqualTo(before.digest());

        fragment("conf.d/10-b.yaml", "routes: [ ]\n");
        assertThat(ConfigFiles.read(file).digest()).isNotEqualTo(added.digest());
        assertThat(ConfigFiles.read(file).tree())
                .containsKeys("server", "upstreams", "routes")
                .doesNotContainKey("include");
    }

    @Test
    void aWarningIsNamedByTheFragmentThatWroteIt() throws Exception {
        Path file = main(MAIN);
        fragment("conf.d/10-b.yaml", "upstreams:\n  spare: { url: \"http://127.0.0.1:9009\" }\n");
        ConfigFiles files = ConfigFiles.read(file);
        assertThat(ConfigWarnings.of(ConfigLoader.parse(files)))
                .map(files::locate)
                .extracting(Problem::path)
                .containsExactly("conf.d/10-b.yaml: upstreams.spare");
    }
}
