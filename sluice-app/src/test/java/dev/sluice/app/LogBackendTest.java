package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.compose.JsonValidator;
import dev.sluice.config.LoggingConfig;
import dev.sluice.config.LoggingConfig.Format;
import dev.sluice.config.LoggingConfig.Level;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the log looks like for each {@code logging:} setting, read back from the stream it writes to. */
class LogBackendTest {

    private final ByteArrayOutputStream target = new ByteArrayOutputStream();
    private final Logger gateway = LoggerFactory.getLogger("dev.sluice.engine.blocking.GatewayHandler");

    @AfterEach
    void backToTheDefaults() {
        LogBackend.configure(LoggingConfig.defaults(), System.err);
    }

    private List<String> lines() {
        return target.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void textIsOneReadableLinePerEventWithTheStackTraceAfterIt() {
        LogBackend.configure(LoggingConfig.defaults(), target);

        gateway.info("gateway started on port {}", 8080);
        gateway.error("request abc-1: GET /x failed inside the gateway", new IllegalStateException("boom"));

        List<String> lines = lines();
        assertThat(lines.getFirst())
                .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) INFO  \\[[^]]+\\] "
                        + "d\\.s\\.engine\\.blocking\\.GatewayHandler - gateway started on port 8080");
        assertThat(lines.get(1)).contains(" ERROR ").endsWith("- request abc-1: GET /x failed inside the gateway");
        assertThat(lines.get(2)).isEqualTo("java.lang.IllegalStateException: boom");
        assertThat(lines.get(3)).startsWith("\tat dev.sluice.app.LogBackendTest.");
    }

    @Test
    void jsonIsOneObjectPerLine() {
        LogBackend.configure(new LoggingConfig(Format.JSON, Level.INFO, Map.of()), target);

        gateway.info("gateway started on port {}", 8080);
        gateway.atError()
                .setCause(new IllegalStateException("boom\nsecond line"))
                .addKeyValue("request_id", "abc-1")
                .log("request {}: GET /x failed inside the gateway", "abc-1");

        List<String> lines = lines();
        assertThat(lines).hasSize(2);
        for (String line : lines) {
            JsonValidator validator = new JsonValidator();
            byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
            validator.feed(bytes, 0, bytes.length);
            assertThat(validator.finish()).as("%s: %s", validator.error(), line).isTrue();
            assertThat(line).startsWith("{").endsWith("}");
        }
        Map<String, Object> started = Http.json(lines.getFirst());
        assertThat(started)
                .containsEntry("level", "INFO")
                .containsEntry("loggerName", "dev.sluice.engine.blocking.GatewayHandler")
                .containsEntry("formattedMessage", "gateway started on port 8080")
                .containsKey("timestamp");
        Map<String, Object> failed = Http.json(lines.get(1));
        assertThat(failed).containsEntry("level", "ERROR");
        assertThat(failed.get("formattedMessage")).isEqualTo("request abc-1: GET /x failed inside the gateway");
        assertThat(failed.get("kvpList")).asString().contains("request_id").contains("abc-1");
        assertThat(failed.get("throwable"))
                .asString()
                .contains("IllegalStateException")
                .contains("boom");
    }

    @Test
    void theLevelDropsWhatIsBelowIt() {
        LogBackend.configure(new LoggingConfig(Format.TEXT, Level.WARN, Map.of()), target);

        gateway.info("not written");
        gateway.warn("written");

        assertThat(lines()).singleElement().asString().endsWith(" - written");
    }

    @Test
    void librariesWarnsAreWrittenAndTheirChatterIsNotUnlessTheirLoggerIsNamed() {
        LogBackend.configure(LoggingConfig.defaults(), target);
        Logger netty = LoggerFactory.getLogger("io.netty.util.ResourceLeakDetector");
        Logger jetty = LoggerFactory.getLogger("org.eclipse.jetty.server.Server");

        netty.error("LEAK: ByteBuf.release() was not called before it was garbage-collected.");
        jetty.warn("a warning");
        jetty.info("Started oejs.Server");

        assertThat(lines())
                .hasSize(2)
                .anySatisfy(line -> assertThat(line).contains(" ERROR ").contains("LEAK: ByteBuf.release()"))
                .anySatisfy(line -> assertThat(line).contains(" WARN ").endsWith("a warning"));

        target.reset();
        LogBackend.configure(
                new LoggingConfig(Format.TEXT, Level.INFO, Map.of("org.eclipse.jetty", Level.INFO)), target);
        jetty.info("Started oejs.Server");
        netty.info("not written");

        assertThat(lines()).singleElement().asString().endsWith("Started oejs.Server");
    }
}
