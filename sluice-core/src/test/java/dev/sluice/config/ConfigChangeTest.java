package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What a reload may change: routes and upstreams live; the rest refused whole, by path. */
class ConfigChangeTest {

    private static GatewayConfig parse(String yaml) throws ConfigException {
        return ConfigLoader.parse(yaml, "inline");
    }

    private static final String ROUTES = """
            routes:
              - { id: a, match: { path: "/a/**" }, proxy: { upstream: a } }
            """;

    @Test
    void unchangedUpstreamsAreKeptChangedOnesStartedAndRetiredRemovedOnesRetired() throws Exception {
        GatewayConfig running = parse("""
                upstreams:
                  a: { url: "http://127.0.0.1:1" }
                  b: { url: "http://127.0.0.1:2" }
                  c: { url: "http://127.0.0.1:3" }
                """ + ROUTES);
        GatewayConfig next = parse("""
                upstreams:
                  a: { url: "http://127.0.0.1:1" }
                  b: { url: "http://127.0.0.1:2", max-connections: 7 }
                  d: { url: "http://127.0.0.1:4" }
                """ + ROUTES);
        ConfigChange change = ConfigChange.between(running, next, "inline");
        assertThat(change.kept()).containsExactly("a");
        assertThat(change.started()).containsExactlyInAnyOrder("b", "d");
        assertThat(change.retired()).containsExactlyInAnyOrder("b", "c");
        ConfigChange none = ConfigChange.between(running, running, "inline");
        assertThat(none.started()).isEmpty();
        assertThat(none.retired()).isEmpty();
    }

    @Test
    void whatOnlyARestartChangesIsRefusedWholeWithEveryKeyNamed() throws Exception {
        GatewayConfig running = parse("""
                server: { port: 8080 }
                upstreams: { a: { url: "http://127.0.0.1:1" } }
                """ + ROUTES);
        GatewayConfig next = parse("""
                server: { port: 8081, shutdown-grace: 9s, limits: { max-body: 1KiB } }
                admin: { port: 9091 }
                logging: { format: json }
                redis: { url: "redis://127.0.0.1:6379" }
                upstreams: { a: { url: "http://127.0.0.1:1" }, b: { url: "http://127.0.0.1:2" } }
                """ + ROUTES);
        ConfigException e =
                catchThrowableOfType(ConfigException.class, () -> ConfigChange.between(running, next, "gateway.yaml"));
        assertThat(e.source()).isEqualTo("gateway.yaml");
        assertThat(e.problems())
                .extracting(Problem::path)
                .containsExactly(
                        "server.port",
                        "server.shutdown-grace",
                        "server.limits.max-body",
                        "admin",
                        "logging.format",
                        "redis");
        assertThat(e.problems().get(0).message())
                .isEqualTo("changed (running: 8080, file: 8081); it takes effect only on a restart, so nothing of"
                        + " this file was applied");
        assertThat(e.problems())
                .extracting(Problem::message)
                .containsSubsequence(
                        "changed (running: " + running.server().shutdownGrace().toSeconds()
                                + "s, file: 9s); it takes effect only on a restart, so nothing of this file was applied",
                        "changed (running: none, file: 1024); it takes effect only on a restart, so nothing of this"
                                + " file was applied",
                        "added (running: none, file: set); it takes effect only on a restart, so nothing of this file"
                                + " was applied",
                        "changed (running: text, file: json); it takes effect only on a restart, so nothing of this"
                                + " file was applied");
        assertThat(e.problems())
                .extracting(Problem::message)
                .noneMatch(m -> m.contains("Config[") || m.contains("Optional[") || m.contains("PT"));
    }

    @Test
    void aRestartOnlyChangeWithinASectionIsNamedByItsKeyAndNoSecretIsEchoed() throws Exception {
        GatewayConfig running = parse("""
                admin: { port: 9090 }
                logging: { loggers: { org.eclipse.jetty: warn }, access: { to: a.log } }
                redis: { url: "redis://:hunter2@127.0.0.1:6379", timeout: 250ms }
                tracing: { otlp: { endpoint: "http://collector:4318/v1/traces" } }
                upstreams: { a: { url: "http://127.0.0.1:1" } }
                """ + ROUTES);
        GatewayConfig next = parse("""
                admin: { port: 9090, drain-delay: 2s }
                logging: { loggers: { org.eclipse.jetty: info, io.netty: debug }, access: { to: b.log } }
                redis: { url: "redis://:swordfish@127.0.0.1:6380", timeout: 250ms }
                tracing: { otlp: { endpoint: "http://collector:4318/v1/traces" } }
                upstreams: { a: { url: "http://127.0.0.1:1" } }
                """ + ROUTES);
        List<Problem> problems = ConfigChange.restartOnly(running, next);
        assertThat(problems)
                .extracting(Problem::path)
                .containsExactly(
                        "admin.drain-delay",
                        "logging.loggers.io.netty",
                        "logging.loggers.org.eclipse.jetty",
                        "logging.access.to",
                        "redis.url");
        assertThat(problems.get(0).message()).startsWith("changed (running: 0s, file: 2s); ");
        assertThat(problems.get(1).message()).startsWith("changed (running: none, file: debug); ");
        assertThat(problems.get(2).message()).startsWith("changed (running: warn, file: info); ");
        assertThat(problems.get(4).message())
                .doesNotContain("hunter2")
                .doesNotContain("swordfish")
                .contains("127.0.0.1:6379")
                .contains("127.0.0.1:6380");
    }

    @Test
    void tlsSettingsChangeOnlyOnARestartWhileTheirFilesRotateByThemselves() throws Exception {
        GatewayConfig plain = parse("""
                server: { port: 8080 }
                upstreams: { a: { url: "http://127.0.0.1:1" } }
                """ + ROUTES);
        GatewayConfig tls = new GatewayConfig(
                plain.server()
                        .with(TlsConfig.of(new TlsConfig.CertificateFiles(
                                java.nio.file.Path.of("chain.pem"), java.nio.file.Path.of("key.pem")))),
                plain.admin(),
                plain.upstreams(),
                plain.routes(),
                plain.logging(),
                plain.redis());
        assertThat(ConfigChange.restartOnly(plain, tls))
                .extracting(Problem::path)
                .containsExactly("server.tls");
        assertThat(ConfigChange.restartOnly(tls, tls)).isEmpty();
    }

    @Test
    void http2ChangesOnlyOnARestart() throws Exception {
        GatewayConfig on = parse("""
                server: { port: 8080 }
                upstreams: { a: { url: "http://127.0.0.1:1" } }
                """ + ROUTES);
        GatewayConfig off = parse("""
                server: { port: 8080, http2: false }
                upstreams: { a: { url: "http://127.0.0.1:1" } }
                """ + ROUTES);
        assertThat(on.server().http2().enabled()).as("on by default").isTrue();
        assertThat(ConfigChange.restartOnly(on, off)).extracting(Problem::path).containsExactly("server.http2");
    }
}
