package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ComposeTarget.Order;
import dev.sluice.config.TlsConfig.CertificateFiles;
import dev.sluice.config.UpstreamTlsConfig;
import dev.sluice.http.UpstreamFailure;
import dev.sluice.tck.TestCertificates.Issued;
import dev.sluice.tck.TestCertificates.KeyType;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * https upstreams in every engine: a CA and certificates made in the test, the JDK's {@code
 * HttpsServer} as the upstream. Proxied and composed over TLS; the upstream's name verified (refused
 * unless {@code server-name} names it or {@code insecure-skip-verify} is written); an unknown CA
 * refused; mTLS accepted with the configured client certificate and refused without one; {@code
 * max-lifetime} closing a connection that got old (a new one seen at the upstream).
 */
public abstract class UpstreamTlsContract extends ContractFixture {

    @TempDir
    Path dir;

    private final TestCertificates ca = TestCertificates.authority("sluice upstream CA");

    private Path caFile(TestCertificates authority, String name) {
        return authority.writeCertificate(dir.resolve(name + ".pem"));
    }

    private TestGateway.Builder tlsGateway(TestUpstream secure, UpstreamTlsConfig tls) {
        return gateway()
                .upstream(Routes.upstream("secure", secure.url()).tls(tls))
                .route("secure", on("/secure/**"), proxy("secure").stripPrefix("/secure"));
    }

    private static TestUpstream serving(Issued certificate) {
        return TestUpstream.startTls(TestCertificates.serverContext(certificate, Optional.empty()), false);
    }

    @Test
    void anHttpsUpstreamIsProxiedAndComposed() throws Exception {
        try (TestUpstream secure = serving(ca.server(KeyType.EC, "upstream.test"));
                TestGateway gw = tlsGateway(secure, UpstreamTlsConfig.trusting(caFile(ca, "ca")))
                        .route(
                                "page",
                                on("/page"),
                                compose()
                                        .order(Order.DECLARED)
                                        .part("a", "secure", "/json/100")
                                        .part("b", APP, "/json/20")
                                        .part("c", "secure", "/json/50000?chunked=1"))
                        .start()) {
            assertThat(secure.url().getScheme()).isEqualTo("https");
            HttpResponse<byte[]> inspect = get(gw, "/secure/inspect/x");
            assertThat(inspect.statusCode()).as(text(inspect)).isEqualTo(200);
            assertThat(headerValues(inspected(inspect), "host")).containsExactly(secure.authority());
            HttpResponse<byte[]> large = get(gw, "/secure/json/300000");
            assertThat(large.statusCode()).isEqualTo(200);
            assertThat(large.body()).isEqualTo(GeneratedBody.json(300000).bytes());
            Composed.of(gw.wire().get("/page"))
                    .assertSpliced(
                            List.of(
                                    Map.entry("a", GeneratedBody.json(100).bytes()),
                                    Map.entry("b", GeneratedBody.json(20).bytes()),
                                    Map.entry("c", GeneratedBody.json(50000).bytes())),
                            List.of("a", "b", "c"));
        }
    }

    @Test
    void aCertificateForAnotherNameIsRefusedUnlessServerNameNamesItOrVerificationIsSkipped() throws Exception {
        try (TestUpstream secure = serving(ca.serverNamedOnly("elsewhere.test"))) {
            UpstreamTlsConfig trusting = UpstreamTlsConfig.trusting(caFile(ca, "ca"));
            try (TestGateway gw = tlsGateway(secure, trusting).start()) {
                assertError(get(gw, "/secure/json/2"), 502, UpstreamFailure.TLS_HANDSHAKE.code());
            }
            try (TestGateway gw = tlsGateway(secure, trusting.withServerName("elsewhere.test"))
                    .start()) {
                assertThat(get(gw, "/secure/json/2").statusCode()).isEqualTo(200);
            }
            try (TestGateway gw = tlsGateway(secure, UpstreamTlsConfig.DEFAULTS.withInsecureSkipVerify())
                    .start()) {
                assertThat(get(gw, "/secure/json/2").statusCode()).isEqualTo(200);
            }
        }
    }

    @Test
    void healthChecksTrustWhatCallsTrustServerNameIncluded() throws Exception {
        try (TestUpstream secure = serving(ca.serverNamedOnly("elsewhere.test"))) {
            UpstreamTlsConfig tls = UpstreamTlsConfig.trusting(caFile(ca, "ca")).withServerName("elsewhere.test");
            dev.sluice.config.UpstreamResilience.HealthCheck check =
                    new dev.sluice.config.UpstreamResilience.HealthCheck(
                            "/json/2?tag=probe", Duration.ofMillis(100), Duration.ofMillis(1000), 1, 1);
            try (TestGateway gw = gateway()
                    .upstream(Routes.upstream("secure", secure.url())
                            .tls(tls)
                            .resilience(new dev.sluice.config.UpstreamResilience(
                                    List.of(secure.url()),
                                    dev.sluice.config.UpstreamResilience.Balance.ROUND_ROBIN,
                                    Optional.of(check),
                                    Optional.empty(),
                                    Optional.empty(),
                                    Optional.empty())))
                    .route("secure", on("/secure/**"), proxy("secure").stripPrefix("/secure"))
                    .start()) {
                long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (secure.count("probe") < 2 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertThat(secure.count("probe"))
                        .as("probes got through the TLS handshake, verified against server-name")
                        .isGreaterThanOrEqualTo(2);
                assertThat(get(gw, "/secure/json/2").statusCode()).isEqualTo(200);
            }
        }
    }

    @Test
    void aCertificateOfAnUnknownCaIsRefused() throws Exception {
        TestCertificates other = TestCertificates.authority("another CA");
        try (TestUpstream secure = serving(ca.server(KeyType.EC, "upstream.test"))) {
            try (TestGateway gw = tlsGateway(secure, UpstreamTlsConfig.trusting(caFile(other, "other")))
                    .start()) {
                assertError(get(gw, "/secure/json/2"), 502, UpstreamFailure.TLS_HANDSHAKE.code());
            }
            try (TestGateway gw = tlsGateway(secure, UpstreamTlsConfig.DEFAULTS).start()) {
                assertError(get(gw, "/secure/json/2"), 502, UpstreamFailure.TLS_HANDSHAKE.code());
            }
        }
    }

    @Test
    void anUpstreamRequiringAClientCertificateAcceptsTheConfiguredOneAndRefusesNone() throws Exception {
        TestCertificates clients = TestCertificates.authority("client CA");
        Issued gatewayIdentity = clients.client("sluice-gateway");
        CertificateFiles identity = new CertificateFiles(
                gatewayIdentity.writeCertificate(dir.resolve("client.pem")),
                gatewayIdentity.writeKey(dir.resolve("client-key.pem")));
        UpstreamTlsConfig trusting = UpstreamTlsConfig.trusting(caFile(ca, "ca"));
        try (TestUpstream secure = TestUpstream.startTls(
                TestCertificates.serverContext(ca.server(KeyType.EC, "upstream.test"), Optional.of(clients)), true)) {
            try (TestGateway gw =
                    tlsGateway(secure, trusting.withClientCertificate(identity)).start()) {
                HttpResponse<byte[]> response = get(gw, "/secure/inspect/mtls");
                assertThat(response.statusCode()).as(text(response)).isEqualTo(200);
                assertThat(inspected(response).get("client-certificate")).isEqualTo("CN=sluice-gateway");
            }
            try (TestGateway gw = tlsGateway(secure, trusting).start()) {
                // In TLS 1.3 the server refuses the missing certificate after the client's handshake is
                // done: its alert usually arrives first (tls_handshake), but its close may beat it (reset).
                HttpResponse<byte[]> refused = get(gw, "/secure/json/2");
                assertThat(refused.statusCode()).as(text(refused)).isEqualTo(502);
                assertThat(text(refused))
                        .containsAnyOf(
                                "\"error\":\"" + UpstreamFailure.TLS_HANDSHAKE.code() + "\"",
                                "\"error\":\"" + UpstreamFailure.RESET.code() + "\"");
            }
        }
    }

    @Test
    void maxLifetimeClosesAnOldConnectionInsteadOfReusingIt() throws Exception {
        try (TestUpstream secure = serving(ca.server(KeyType.EC, "upstream.test"))) {
            UpstreamTlsConfig trusting = UpstreamTlsConfig.trusting(caFile(ca, "ca"));
            for (URI url : List.of(upstream.url(), secure.url())) {
                Duration lifetime = Duration.ofMillis(400);
                List<Integer> kept = peerPorts(url, trusting, Optional.empty(), lifetime.multipliedBy(2));
                assertThat(kept.get(1))
                        .as("without max-lifetime, %s: one connection, reused", url)
                        .isEqualTo(kept.get(0));
                List<Integer> ports = peerPorts(url, trusting, Optional.of(lifetime), lifetime.multipliedBy(2));
                assertThat(ports.get(1))
                        .as("with max-lifetime, %s: the connection older than it was closed, a new one made", url)
                        .isNotEqualTo(ports.get(0));
            }
        }
    }

    /**
     * The upstream's view of two calls through a gateway with one connection to {@code url}, {@code
     * between} apart: the client port of each (a new connection, a new port).
     */
    private List<Integer> peerPorts(URI url, UpstreamTlsConfig tls, Optional<Duration> maxLifetime, Duration between)
            throws Exception {
        Routes.UpstreamSpec spec = Routes.upstream("one", url).pool(1, Duration.ofSeconds(5), 10);
        if (url.getScheme().equals("https")) {
            spec.tls(tls);
        }
        maxLifetime.ifPresent(spec::maxLifetime);
        try (TestGateway gw = gateway()
                .shutdownGrace(Duration.ofMillis(100))
                .upstream(spec)
                .route("one", on("/one/**"), proxy("one").stripPrefix("/one"))
                .start()) {
            int first = peerPort(get(gw, "/one/inspect/first"));
            long until = System.nanoTime() + between.toNanos();
            while (System.nanoTime() < until) { // the connection must get older than max-lifetime: time must pass
                Thread.sleep(Math.max(1, (until - System.nanoTime()) / 1_000_000));
            }
            int second = peerPort(get(gw, "/one/inspect/second"));
            return List.of(first, second);
        }
    }

    private static int peerPort(HttpResponse<byte[]> response) {
        assertThat(response.statusCode())
                .as(new String(response.body(), StandardCharsets.UTF_8))
                .isEqualTo(200);
        return ((Number) inspected(response).get("peer-port")).intValue();
    }
}
