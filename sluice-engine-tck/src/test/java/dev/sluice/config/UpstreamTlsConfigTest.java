package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.tck.TestCertificates;
import dev.sluice.tck.TestCertificates.Issued;
import dev.sluice.tls.UpstreamTls;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code upstreams.NAME.tls} and {@code max-lifetime}: every key read, every problem listed by path,
 * files resolved beside the configuration file and checked as the engines read them; the SSL
 * parameters {@link UpstreamTls} gives a connection. (In this module for {@link TestCertificates}, as
 * ServerTlsTest is; the handshakes themselves are UpstreamTlsContract's.)
 */
class UpstreamTlsConfigTest {

    private static final String ROUTES = """
            routes:
              - id: r
                match: { path: "/r/**" }
                proxy: { upstream: svc }
            """;

    @TempDir
    Path dir;

    private final TestCertificates ca = TestCertificates.authority("config CA");
    private Issued client;

    @BeforeEach
    void files() {
        ca.writeCertificate(dir.resolve("ca.pem"));
        client = ca.client("gateway");
        client.writeCertificate(dir.resolve("client.pem"));
        client.writeKey(dir.resolve("client-key.pem"));
    }

    private List<Problem> problems(String upstream) throws Exception {
        Path file = dir.resolve("gateway.yaml");
        Files.writeString(file, "upstreams:\n  svc:\n" + upstream.indent(4) + ROUTES);
        return ConfigLoader.check(file);
    }

    private UpstreamConfig svc(String upstream) throws Exception {
        Path file = dir.resolve("gateway.yaml");
        Files.writeString(file, "upstreams:\n  svc:\n" + upstream.indent(4) + ROUTES);
        return ConfigLoader.load(file).upstreams().get("svc");
    }

    @Test
    void everyKeyIsReadWithFilesBesideTheConfiguration() throws Exception {
        UpstreamConfig svc = svc("""
                url: https://api.example.com/v1
                max-lifetime: 5m
                tls:
                  ca: ca.pem
                  certificate: client.pem
                  key: client-key.pem
                  server-name: api.internal.example
                  protocols: [TLSv1.3]
                """);
        assertThat(svc.port()).isEqualTo(443);
        assertThat(svc.authority()).isEqualTo("api.example.com");
        assertThat(svc.maxLifetime()).contains(Duration.ofMinutes(5));
        assertThat(svc.tls())
                .contains(new UpstreamTlsConfig(
                        Optional.of(dir.resolve("ca.pem")),
                        Optional.of(new TlsConfig.CertificateFiles(
                                dir.resolve("client.pem"), dir.resolve("client-key.pem"))),
                        Optional.of("api.internal.example"),
                        false,
                        List.of("TLSv1.3")));
    }

    @Test
    void anHttpsUrlWithoutTlsHasTheDefaultsAndHttpHasNone() throws Exception {
        UpstreamConfig secure = svc("endpoints: [\"https://10.0.0.1:8443\", \"https://10.0.0.2:8443\"]");
        assertThat(secure.tls()).contains(UpstreamTlsConfig.DEFAULTS);
        assertThat(secure.endpoint(1).tls()).contains(UpstreamTlsConfig.DEFAULTS);
        assertThat(secure.maxLifetime()).isEmpty();
        UpstreamConfig plain = svc("url: http://10.0.0.1:8080\nmax-lifetime: 30s");
        assertThat(plain.tls()).isEmpty();
        assertThat(plain.maxLifetime()).contains(Duration.ofSeconds(30));
        assertThat(plain.endpoint(0).maxLifetime()).contains(Duration.ofSeconds(30));
    }

    @Test
    void badValuesAreListedByPath() throws Exception {
        assertThat(problems("""
                        url: https://10.0.0.1
                        max-lifetime: forever
                        tls:
                          ca: missing.pem
                          certificate: client.pem
                          server-name: "bad name"
                          insecure-skip-verify: "yes"
                          protocols: [TLSv1.1]
                          verify: true
                        """))
                .extracting(Problem::path)
                .containsExactlyInAnyOrder(
                        "upstreams.svc.max-lifetime",
                        "upstreams.svc.tls.verify",
                        "upstreams.svc.tls.key",
                        "upstreams.svc.tls.server-name",
                        "upstreams.svc.tls.insecure-skip-verify",
                        "upstreams.svc.tls.protocols");
    }

    @Test
    void unusableFilesAreListedByPath() throws Exception {
        Files.writeString(dir.resolve("not-pem.pem"), "hello");
        ca.client("other").writeKey(dir.resolve("other-key.pem"));
        List<Problem> problems = problems("""
                url: https://10.0.0.1
                tls:
                  ca: not-pem.pem
                  certificate: client.pem
                  key: other-key.pem
                """);
        assertThat(problems).extracting(Problem::path).containsExactly("upstreams.svc.tls.ca", "upstreams.svc.tls.key");
        assertThat(problems.get(0).message()).contains("holds no PEM certificate");
        assertThat(problems.get(1).message()).contains("is not the private key of");
        assertThat(problems("url: https://10.0.0.1\ntls: { ca: nowhere.pem }"))
                .singleElement()
                .satisfies(p -> {
                    assertThat(p.path()).isEqualTo("upstreams.svc.tls.ca");
                    assertThat(p.message()).contains("does not exist");
                });
    }

    @Test
    void tlsOnAnHttpUpstreamAndMixedSchemesAreRefused() throws Exception {
        assertThat(problems("url: http://10.0.0.1\ntls: { ca: ca.pem }"))
                .singleElement()
                .satisfies(p -> {
                    assertThat(p.path()).isEqualTo("upstreams.svc.tls");
                    assertThat(p.message()).contains("expected: https:// endpoints");
                });
        assertThat(problems("endpoints: [\"https://10.0.0.1\", \"http://10.0.0.2\"]"))
                .extracting(Problem::path)
                .containsExactly("upstreams.svc.endpoints[1]");
        assertThat(problems("url: ftp://10.0.0.1")).extracting(Problem::path).containsExactly("upstreams.svc.url");
        assertThat(problems("url: https://10.0.0.1\ntls: { insecure-skip-verify: true, ca: ca.pem }"))
                .extracting(Problem::path)
                .containsExactly("upstreams.svc.tls.insecure-skip-verify");
    }

    @Test
    void insecureSkipVerifyIsReadOnlyWhenWrittenAndWarned() throws Exception {
        UpstreamConfig svc = svc("url: https://10.0.0.1\ntls: { insecure-skip-verify: true }");
        assertThat(svc.tls().orElseThrow().insecureSkipVerify()).isTrue();
        assertThat(UpstreamTls.load(svc.tls().orElseThrow(), "upstreams.svc.tls", Instant.now())
                        .warnings())
                .extracting(Problem::path)
                .containsExactly("upstreams.svc.tls.insecure-skip-verify");
        assertThat(UpstreamTls.load(UpstreamTlsConfig.DEFAULTS, "upstreams.svc.tls", Instant.now())
                        .warnings())
                .isEmpty();
    }

    @Test
    void aConnectionNamesTheServerAndVerifiesItsName() {
        UpstreamTls tls = UpstreamTls.create(UpstreamTlsConfig.trusting(dir.resolve("ca.pem")), "t");
        SSLParameters byHost = tls.parameters("api.example.com");
        assertThat(byHost.getServerNames()).containsExactly(new SNIHostName("api.example.com"));
        assertThat(byHost.getEndpointIdentificationAlgorithm()).isEqualTo("HTTPS");
        assertThat(byHost.getProtocols()).containsExactly("TLSv1.3", "TLSv1.2");
        assertThat(tls.parameters("10.0.0.1").getServerNames())
                .as("no SNI for an address (RFC 6066)")
                .isNull();
        UpstreamTls named = UpstreamTls.create(
                UpstreamTlsConfig.trusting(dir.resolve("ca.pem")).withServerName("api.internal"), "t");
        assertThat(named.parameters("10.0.0.1").getServerNames()).containsExactly(new SNIHostName("api.internal"));
        assertThat(named.engine("10.0.0.1", 443).getPeerHost()).isEqualTo("api.internal");
        UpstreamTls insecure = UpstreamTls.create(UpstreamTlsConfig.DEFAULTS.withInsecureSkipVerify(), "t");
        assertThat(insecure.parameters("api.example.com").getEndpointIdentificationAlgorithm())
                .isNull();
    }

    @Test
    void theRecordRefusesTlsOnHttpAndAMaxLifetimeOfZero() {
        UpstreamConfig plain = UpstreamConfig.of("svc", URI.create("http://10.0.0.1"));
        assertThatThrownBy(() -> plain.withTls(UpstreamTlsConfig.DEFAULTS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("https");
        assertThatThrownBy(() -> plain.withMaxLifetime(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThat(UpstreamConfig.of("svc", URI.create("https://10.0.0.1")).tls())
                .contains(UpstreamTlsConfig.DEFAULTS);
    }
}
