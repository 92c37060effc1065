package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ${NAME}}, {@code ${NAME:-default}} and {@code {secret-file: PATH}} in a configuration file. */
class SubstitutionTest {

    private static final String ROUTES = """
            routes:
              - id: all
                match: { path: "/**" }
                proxy: { upstream: catalog }
            """;

    @TempDir
    Path dir;

    private GatewayConfig parse(String yaml, Map<String, String> env) throws ConfigException {
        return ConfigLoader.parse(yaml, dir.resolve("gateway.yaml"), env::get);
    }

    @Test
    void variablesAndDefaultsArePutInPlaceAndALoneNumberIsANumber() throws Exception {
        GatewayConfig config = parse(
                """
                server: { port: "${PORT}", host: "${HOST:-127.0.0.1}", shutdown-grace: "${GRACE:-3s}" }
                redis: { url: "redis://:${REDIS_PASSWORD}@${REDIS_HOST}:6379", prefix: "$${literal}" }
                upstreams:
                  catalog: { url: "http://${CATALOG:-localhost}:8081" }
                """ + ROUTES, Map.of("PORT", "8099", "GRACE", "", "REDIS_PASSWORD", "hunter2", "REDIS_HOST", "r1"));
        assertThat(config.server().port()).isEqualTo(8099);
        assertThat(config.server().host()).as("unset: the default").isEqualTo("127.0.0.1");
        assertThat(config.server().shutdownGrace()).as("empty: the default").isEqualTo(Duration.ofSeconds(3));
        assertThat(config.redis().orElseThrow().url().toString()).isEqualTo("redis://:hunter2@r1:6379");
        assertThat(config.redis().orElseThrow().prefix()).isEqualTo("${literal}");
        assertThat(config.upstreams().get("catalog").url().getHost()).isEqualTo("localhost");
    }

    @Test
    void anUnsetVariableWithoutADefaultIsRefusedByItsPathAndOnlyOnce() {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> parse("""
                server: { port: "${PORT}" }
                upstreams:
                  catalog: { url: "http://${CATALOG_HOST}:8081" }
                  other: { url: "http://${bad name}" }
                """ + ROUTES, Map.of()));
        assertThat(e.problems())
                .containsExactly(
                        new Problem(
                                "server.port",
                                "${PORT} is not set (expected: the environment variable PORT, or a default such as"
                                        + " ${PORT:-value})"),
                        new Problem(
                                "upstreams.catalog.url",
                                "${CATALOG_HOST} is not set (expected: the environment variable CATALOG_HOST, or a default"
                                        + " such as ${CATALOG_HOST:-value})"),
                        new Problem(
                                "upstreams.other.url",
                                "'${bad name}' is not a variable reference (expected: ${NAME} or ${NAME:-default}, NAME of"
                                        + " A-Z, a-z, 0-9 and '_'; $${ for a literal ${)"));
    }

    @Test
    void aSecretFileIsReadBesideTheConfigurationFile() throws Exception {
        Files.writeString(dir.resolve("redis-url"), "redis://:s3cret@127.0.0.1:6380\n");
        GatewayConfig config = parse("""
                redis: { url: { secret-file: redis-url } }
                upstreams: { catalog: { url: "http://127.0.0.1:1" } }
                """ + ROUTES, Map.of());
        assertThat(config.redis().orElseThrow().url().toString()).isEqualTo("redis://:s3cret@127.0.0.1:6380");

        ConfigException missing = catchThrowableOfType(ConfigException.class, () -> parse("""
                redis: { url: { secret-file: nowhere } }
                upstreams: { catalog: { url: "http://127.0.0.1:1" } }
                """ + ROUTES, Map.of()));
        assertThat(missing.problems())
                .containsExactly(new Problem(
                        "redis.url",
                        "secret-file '" + dir.resolve("nowhere") + "' does not exist (expected: a readable file)"));
    }

    @Test
    void aValueFromTheEnvironmentOrASecretFileIsNeverEchoedInAProblem() throws Exception {
        Files.writeString(dir.resolve("port"), "swordfish-port");
        ConfigException e = catchThrowableOfType(
                ConfigException.class,
                () -> parse("""
                server: { port: "${PORT}", host: { secret-file: port } }
                admin: { port: "${ADMIN_PORT}" }
                upstreams: { catalog: { url: "http://127.0.0.1:1", max-connections: "${TOKEN}" } }
                """ + ROUTES, Map.of("PORT", "hunter2", "ADMIN_PORT", "x", "TOKEN", "abc:def")));
        assertThat(e.problems())
                .extracting(Problem::path)
                .contains("server.port", "admin.port", "upstreams.catalog.max-connections");
        assertThat(e.problems())
                .extracting(Problem::message)
                .noneMatch(m -> m.contains("hunter2") || m.contains("abc:def") || m.contains("'x'"))
                .anyMatch(m -> m.contains("${PORT}"))
                .anyMatch(m -> m.contains("${ADMIN_PORT}"));
        assertThat(e.getMessage()).doesNotContain("hunter2").doesNotContain("abc:def");
    }

    /** Found by the fuzz test (corpus input c-recursive-alias): resolving walked the cycle until the stack overflowed. */
    @Test
    void anAliasInsideTheValueItNamesIsAProblemAtItsPathNotAStackOverflow() {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> parse("""
                server: { port: 8080 }
                upstreams:
                  catalog: &loop { url: "http://localhost:8081", tags: [a, *loop] }
                """ + ROUTES, Map.of()));
        assertThat(e).isNotNull();
        assertThat(e.problems())
                .anyMatch(p -> p.path().equals("upstreams.catalog.tags[1]")
                        && p.message().contains("contains it"));
    }
}
