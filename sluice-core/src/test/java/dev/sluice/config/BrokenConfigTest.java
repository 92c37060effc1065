package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each file under {@code broken/} lists the problems it must produce in {@code # expect: <path> |
 * <message substring>} comments: exactly those paths, each message containing its text.
 */
class BrokenConfigTest {

    static Stream<Path> brokenFiles() throws Exception {
        Path dir = ConfigLoaderTest.resource("broken");
        List<Path> files = new ArrayList<>();
        try (Stream<Path> list = Files.list(dir)) {
            list.filter(p -> p.toString().endsWith(".yaml")).sorted().forEach(files::add);
        }
        assertThat(files).hasSizeGreaterThan(10);
        return files.stream();
    }

    record Expected(String path, String message) {}

    static List<Expected> expectations(Path file) throws Exception {
        List<Expected> expected = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            if (line.startsWith("# expect: ")) {
                String rest = line.substring("# expect: ".length());
                int bar = rest.indexOf(" | ");
                expected.add(new Expected(rest.substring(0, bar), rest.substring(bar + 3)));
            }
        }
        return expected;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenFiles")
    void everyProblemIsListedWithItsPath(Path file) throws Exception {
        List<Expected> expected = expectations(file);
        assertThat(expected).as("expectations in " + file.getFileName()).isNotEmpty();

        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.load(file));

        assertThat(e).as("refused").isNotNull();
        assertThat(e.problems())
                .extracting(Problem::path)
                .containsExactlyInAnyOrderElementsOf(
                        expected.stream().map(Expected::path).toList());
        for (Expected x : expected) {
            assertThat(e.problems())
                    .filteredOn(p -> p.path().equals(x.path()))
                    .as(x.path())
                    .anySatisfy(p -> assertThat(p.message()).contains(x.message()));
        }
        assertThat(ConfigLoader.check(file)).isEqualTo(e.problems());
        assertThat(e.getMessage()).contains(e.problems().getFirst().toString());
    }
}
