package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.compose.JsonValidator;
import dev.sluice.config.LoggingConfig;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sluice run} applies the file's {@code logging:}: the log goes to standard error, the command's lines to standard output. */
class RunLoggingTest {

    @TempDir
    Path dir;

    @AfterEach
    void backToTheDefaults() {
        LogBackend.configure(LoggingConfig.defaults(), System.err);
    }

    @Test
    void jsonLoggingWritesOneObjectPerLineToStandardError() throws Exception {
        Path file = Files.writeString(dir.resolve("gateway.yaml"), """
        server: { host: 127.0.0.1, port: 0, engine: virtual }
        upstreams: { app: { url: "http://127.0.0.1:1" } }
        routes: [ { id: all, match: { path: "/**" }, proxy: { upstream: app } } ]
        logging: { format: json, level: info, loggers: { org.eclipse.jetty.server: info } }
        """);
        CliRunner.Result result = CliRunner.run(
                session -> {
                    HttpResponse<String> refused = Http.get(session.gatewayUrl().orElseThrow(), "/x");
                    assertThat(refused.statusCode()).isEqualTo(502);
                },
                "run",
                "-c",
                file.toString());

        assertThat(result.exitCode()).isZero();
        assertThat(result.out().lines().toList().getFirst()).startsWith("sluice started in ");
        List<String> logged = result.err().lines().toList();
        assertThat(logged).as("Jetty's info lines, named in loggers:").isNotEmpty();
        for (String line : logged) {
            JsonValidator validator = new JsonValidator();
            byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
            validator.feed(bytes, 0, bytes.length);
            assertThat(validator.finish()).as("%s: %s", validator.error(), line).isTrue();
        }
        assertThat(logged)
                .map(Http::json)
                .anySatisfy(event -> assertThat(event)
                        .containsEntry("level", "INFO")
                        .extractingByKey("loggerName")
                        .asString()
                        .startsWith("org.eclipse.jetty.server"));
    }

    @Test
    void theDefaultLogIsQuietWhenNothingGoesWrong() throws Exception {
        Path file = Files.writeString(dir.resolve("gateway.yaml"), """
        server: { host: 127.0.0.1, port: 0, engine: reactive }
        upstreams: { app: { url: "http://127.0.0.1:1" } }
        routes: [ { id: all, match: { path: "/**" }, proxy: { upstream: app } } ]
        """);
        CliRunner.Result result = CliRunner.run(
                session -> {
                    for (int i = 0; i < 3; i++) {
                        Map<String, Object> error =
                                Http.json(Http.get(session.gatewayUrl().orElseThrow(), "/x")
                                        .body());
                        assertThat(error).containsEntry("error", "refused");
                    }
                },
                "run",
                "-c",
                file.toString());

        assertThat(result.exitCode()).isZero();
        // the refusing upstream is the one thing that went wrong: one line, however many requests
        assertThat(result.err().lines().toList())
                .singleElement()
                .satisfies(line -> assertThat(line)
                        .contains(" WARN ")
                        .contains("upstream app endpoint 127.0.0.1:1: connections fail (refused"));
    }
}
