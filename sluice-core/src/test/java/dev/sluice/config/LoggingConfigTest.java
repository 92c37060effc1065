package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code logging:} section; its bad values are in {@code broken/logging.yaml}. */
class LoggingConfigTest {

    private static final String ROUTES = """
            upstreams:
              catalog: { url: "http://127.0.0.1:19081" }
            routes:
              - id: all
                match: { path: "/**" }
                proxy: { upstream: catalog }
            """;

    @Test
    void absentSectionIsHumanReadableTextAtInfo() throws ConfigException {
        GatewayConfig config = ConfigLoader.parse(ROUTES, "test.yaml");

        assertThat(config.logging()).isEqualTo(LoggingConfig.defaults());
        assertThat(config.logging().format()).isEqualTo(LoggingConfig.Format.TEXT);
        assertThat(config.logging().level()).isEqualTo(LoggingConfig.Level.INFO);
        assertThat(config.logging().loggers()).isEmpty();
    }

    @Test
    void aRelativeAccessLogFileIsResolvedFromTheConfigurationFileNotTheWorkingDirectory(@TempDir Path dir)
            throws Exception {
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Path file = Files.writeString(conf.resolve("gateway.yaml"), ROUTES + """
                logging: { access: { to: logs/access.log } }
                """);
        assertThat(ConfigLoader.load(file).logging().access().orElseThrow().to())
                .isEqualTo(conf.resolve("logs/access.log").toString());

        Path elsewhere = dir.resolve("elsewhere.log").toAbsolutePath();
        Files.writeString(file, ROUTES + "logging: { access: { to: \"" + elsewhere + "\" } }\n");
        assertThat(ConfigLoader.load(file).logging().access().orElseThrow().to())
                .as("an absolute path as it is")
                .isEqualTo(elsewhere.toString());

        for (String stream : new String[] {"stdout", "stderr"}) {
            Files.writeString(file, ROUTES + "logging: { access: { to: " + stream + " } }\n");
            assertThat(ConfigLoader.load(file).logging().access().orElseThrow().to())
                    .isEqualTo(stream);
        }
    }

    @Test
    void everySettingBinds() throws ConfigException {
        GatewayConfig config = ConfigLoader.parse(ROUTES + """
                logging:
                  format: json
                  level: warn
                  loggers:
                    org.eclipse.jetty: error
                    dev.sluice: debug
                """, "test.yaml");

        assertThat(config.logging())
                .isEqualTo(new LoggingConfig(
                        LoggingConfig.Format.JSON,
                        LoggingConfig.Level.WARN,
                        Map.of(
                                "org.eclipse.jetty",
                                LoggingConfig.Level.ERROR,
                                "dev.sluice",
                                LoggingConfig.Level.DEBUG)));
        assertThat(config.logging().loggers().keySet()).containsExactly("org.eclipse.jetty", "dev.sluice");
    }

    @Test
    void everyLevelIsSpelledInLowerCase() throws ConfigException {
        for (LoggingConfig.Level level : LoggingConfig.Level.values()) {
            GatewayConfig config = ConfigLoader.parse(ROUTES + "logging: { level: " + level.key() + " }\n", "t.yaml");
            assertThat(config.logging().level()).isEqualTo(level);
        }
    }

    @Test
    void aSectionThatIsNotAMappingIsAProblemAtItsPath() {
        assertThat(ConfigLoader.check(ROUTES + "logging: loud\n", "test.yaml"))
                .containsExactly(new Problem("logging", "'loud' (expected: a mapping with format, level and loggers)"));
    }

    @Test
    void overridingEngineAndPortKeepsTheLogging() throws ConfigException {
        GatewayConfig config = ConfigLoader.parse(ROUTES + "logging: { format: json }\n", "test.yaml");

        assertThat(config.with(EngineMode.REACTIVE, 0).logging()).isEqualTo(config.logging());
    }

    @Test
    void theAccessLogFormatIsJsonCombinedOrATemplateOfItsFields() throws Exception {
        for (String format : new String[] {"json", "combined", "\"{time} {status} {path}\""}) {
            GatewayConfig config =
                    ConfigLoader.parse(ROUTES + "logging: { access: { format: " + format + " } }\n", "test.yaml");
            assertThat(config.logging().access().orElseThrow().format()).isEqualTo(format.replace("\"", ""));
        }
        assertThat(ConfigLoader.check(ROUTES + "logging: { access: { format: \"{time} {status_code}\" } }\n", "t.yaml"))
                .singleElement()
                .satisfies(p -> {
                    assertThat(p.path()).isEqualTo("logging.access.format");
                    assertThat(p.message())
                            .contains("'{status_code}' is not a field")
                            .contains("duration_ms");
                });
        assertThat(ConfigLoader.check(ROUTES + "logging: { access: { format: \"{time\" } }\n", "t.yaml"))
                .extracting(Problem::path)
                .containsExactly("logging.access.format");
        assertThat(ConfigLoader.check(ROUTES + "logging: { access: { format: plain } }\n", "t.yaml"))
                .extracting(Problem::message)
                .singleElement()
                .asString()
                .contains("at least one field");
    }
}
