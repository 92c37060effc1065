package dev.sluice.tck;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import dev.sluice.config.ConfigChange;
import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigLoader;
import dev.sluice.config.GatewayConfig;
import dev.sluice.engine.Engine;
import dev.sluice.engine.RunningGateway;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A team's own policy, in a jar of its own on the class path (the worked example {@code
 * sluice-example-policy}'s {@code tenant}, and {@link FailingPolicyFactory}), named in a
 * configuration file's {@code custom} filter, found by ServiceLoader and run by the engine like the
 * built-in policies: its refusals answered with the JSON error body, its upstream edits seen by a real
 * upstream, its new settings in force after a reload, and its failures a {@code 500} the gateway
 * survives. The gateway is started from YAML, as {@code sluice run} starts it.
 */
public abstract class PolicySpiContract extends ContractFixture {

    private static final String SOURCE = "policy-spi.yaml";

    private RunningGateway gateway;
    private GatewayConfig running;
    private HttpClient client;

    @AfterEach
    void stop() {
        if (client != null) {
            client.shutdownNow();
        }
        if (gateway != null) {
            gateway.close();
        }
    }

    /** The file: the test's upstream, and {@code /inspect/**} proxied to it through {@code filters}. */
    private String yaml(String filters) {
        return """
                server: { host: 127.0.0.1, port: 0, engine: %s, transport: %s, shutdown-grace: 1s }
                upstreams:
                  app: { url: "%s" }
                routes:
                  - id: tenants
                    match: { path: "/inspect/**" }
                    proxy: { upstream: app }
                    filters:
                %s
                  - id: open
                    match: { path: "/open/**" }
                    proxy: { upstream: app, strip-prefix: /open }
                """.formatted(mode().key(), transport().key(), upstream.url(), filters.indent(6));
    }

    private void start(String filters) throws Exception {
        running = ConfigLoader.parse(yaml(filters), SOURCE);
        gateway = Engine.forMode(running.server().engine()).start(running);
        client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    /** Reloads the gateway with {@code filters} on the {@code tenants} route, as {@code sluice run} does. */
    private void reload(String filters) throws ConfigException {
        GatewayConfig next = ConfigLoader.parse(yaml(filters), SOURCE);
        gateway.reload(next, ConfigChange.between(running, next, SOURCE));
        running = next;
    }

    /** {@code GET target} with header pairs {@code name, value, ...}. */
    private HttpResponse<byte[]> get(String target, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + target))
                .timeout(Duration.ofSeconds(30));
        if (headers.length > 0) {
            request.headers(headers);
        }
        try {
            return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException("client: GET " + target + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("client: interrupted", e);
        }
    }

    private static final String TENANTS = """
            - custom:
                policy: tenant
                settings: { allowed: [acme, globex], plans: { acme: gold } }
            """;

    @Test
    void aRequestWithoutAnAllowedTenantIsRefused403WithTheJsonErrorBodyAndTheUpstreamSeesNothing() throws Exception {
        start(TENANTS);
        int before = upstream.exchanges();

        assertError(get("/inspect/orders"), 403, "forbidden");
        assertError(get("/inspect/orders", "X-Tenant", "initech"), 403, "forbidden");
        assertError(get("/inspect/orders", "X-Tenant", "ACME"), 403, "forbidden");

        assertThat(upstream.exchanges() - before)
                .as("requests the upstream saw")
                .isZero();
    }

    @Test
    void anAllowedTenantIsProxiedAndItsUpstreamGetsThePlanTheSettingsGiveItNeverTheClients() throws Exception {
        start(TENANTS);

        var acme = inspected(get("/inspect/orders", "X-Tenant", "acme", "X-Tenant-Plan", "platinum"));
        assertThat(acme.get("path")).isEqualTo("/inspect/orders");
        assertThat(headerValues(acme, "x-tenant")).containsExactly("acme");
        assertThat(headerValues(acme, "x-tenant-plan"))
                .as("the plan from the settings replaces the client's own")
                .containsExactly("gold");

        assertThat(headerValues(inspected(get("/inspect/orders", "X-Tenant", "globex")), "x-tenant-plan"))
                .as("a tenant without a plan in the settings gets the default")
                .containsExactly("standard");
        assertThat(headerValues(inspected(get("/open/inspect/x")), "x-tenant-plan"))
                .as("a route without the policy")
                .isEmpty();
    }

    @Test
    void aReloadWithChangedSettingsChangesWhatThePolicyDecides() throws Exception {
        start("""
                - custom: { policy: tenant, settings: { allowed: [acme], plans: { acme: gold } } }
                """);
        assertError(get("/inspect/a", "X-Tenant", "globex"), 403, "forbidden");
        assertThat(headerValues(inspected(get("/inspect/a", "X-Tenant", "acme")), "x-tenant-plan"))
                .containsExactly("gold");

        reload("""
                - custom: { policy: tenant, settings: { allowed: [acme, globex], plans: { acme: silver }, default-plan: trial } }
                """);

        assertThat(headerValues(inspected(get("/inspect/a", "X-Tenant", "globex")), "x-tenant-plan"))
                .as("a tenant the new settings allow")
                .containsExactly("trial");
        assertThat(headerValues(inspected(get("/inspect/a", "X-Tenant", "acme")), "x-tenant-plan"))
                .as("the new plan")
                .containsExactly("silver");

        reload("- custom: { policy: tenant, settings: { allowed: [globex] } }");
        assertError(get("/inspect/a", "X-Tenant", "acme"), 403, "forbidden");
    }

    @Test
    void aPolicyThatThrowsIsA500WithTheJsonErrorBodyLoggedOnceWithoutTheRequestAndTheGatewayServesOn()
            throws Exception {
        try (LogCapture log = LogCapture.start()) {
            start("- custom: { policy: tck-fails }");
            String secret = "s3cr3t-" + mode().key();
            int before = upstream.exchanges();

            for (int i = 0; i < 3; i++) {
                var json = assertError(get("/inspect/a", "X-Secret", secret), 500, "policy_failed");
                assertThat(json.get("message")).asString().contains("tck-fails").doesNotContain(secret);
            }
            assertThat(upstream.exchanges() - before)
                    .as("requests the upstream saw")
                    .isZero();
            assertThat(inspected(get("/open/inspect/b")).get("path"))
                    .as("the gateway serves on")
                    .isEqualTo("/inspect/b");

            List<ILoggingEvent> errors = log.events().stream()
                    .filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR))
                    .toList();
            assertThat(errors).as("ERROR events").hasSize(1);
            ILoggingEvent logged = errors.getFirst();
            assertThat(logged.getFormattedMessage())
                    .contains("tck-fails", "tenants", IllegalStateException.class.getName());
            IThrowableProxy thrown = logged.getThrowableProxy();
            assertThat(thrown).as("the stack trace is logged").isNotNull();
            assertThat(thrown.getStackTraceElementProxyArray()).isNotEmpty();
            for (ILoggingEvent event : log.events()) {
                assertThat(event.getFormattedMessage()).doesNotContain(secret);
                for (IThrowableProxy t = event.getThrowableProxy(); t != null; t = t.getCause()) {
                    assertThat(String.valueOf(t.getMessage())).doesNotContain(secret);
                }
            }
        }
    }
}
