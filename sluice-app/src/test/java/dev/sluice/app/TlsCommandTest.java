package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.demo.DemoUpstreams;
import dev.sluice.tck.TestCertificates;
import dev.sluice.tck.TestCertificates.Issued;
import dev.sluice.tck.TestCertificates.KeyType;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code server.tls} through the command: {@code sluice check} names every unusable certificate
 * file by its path (and warns of one expiring soon); {@code sluice run} says which listeners are TLS
 * in its started line and on the admin's {@code /health}. The TLS behaviour itself is {@code
 * TlsContract}'s, in every engine mode.
 */
class TlsCommandTest {

    @TempDir
    Path dir;

    private final TestCertificates ca = TestCertificates.authority("sluice check CA");

    private Path write(String name, String yaml) throws Exception {
        return Files.writeString(dir.resolve(name), yaml);
    }

    private static final String ROUTES = """
        upstreams:
          app: { url: "http://127.0.0.1:9001" }
        routes:
          - id: all
            match: { path: "/**" }
            proxy: { upstream: app }
        """;

    @Test
    void checkNamesEveryUnusableCertificateFileByItsPath() throws Exception {
        Issued good = ca.server(KeyType.EC, "gateway.test");
        good.writeCertificate(dir.resolve("good.pem"));
        good.writeKey(dir.resolve("good-key.pem"));
        Issued rsa = ca.server(KeyType.RSA, "legacy.test");
        rsa.writeCertificate(dir.resolve("legacy.pem"));
        rsa.writeLegacyKey(dir.resolve("legacy-key.pem"));
        Issued old = ca.issue(KeyType.EC, Duration.ofDays(-2), true, "old.test");
        old.writeCertificate(dir.resolve("old.pem"));
        old.writeKey(dir.resolve("old-key.pem"));
        ca.server(KeyType.EC, "other.test").writeKey(dir.resolve("other-key.pem"));
        Files.writeString(dir.resolve("garbage.pem"), "not a certificate\n");
        Path file = write("tls.yaml", """
        server:
          tls:
            certificate: good.pem
            key: other-key.pem
            client-auth: require
            protocols: [TLSv1.3, TLSv1.1]
            sni:
              - { certificate: legacy.pem, key: legacy-key.pem }
              - { certificate: old.pem, key: good-key.pem }
              - { certificate: missing.pem, key: good-key.pem }
              - { certificate: garbage.pem }
        """ + ROUTES);
        CliRunner.Result result = CliRunner.run("check", "-c", file.toString());
        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.out().lines().filter(l -> l.startsWith("  ")).map(String::strip))
                .satisfiesExactlyInAnyOrder(
                        l -> assertThat(l).startsWith("server.tls.sni[3].key: missing"),
                        l -> assertThat(l)
                                .startsWith("server.tls.client-ca: missing")
                                .contains("client-auth require"),
                        l -> assertThat(l)
                                .startsWith("server.tls.protocols: 'TLSv1.1' is not offered")
                                .contains("RFC 8996"));
        // the keys are right: the files are read, and every unusable one named by its path
        Path files = write("files.yaml", """
        server:
          tls:
            certificate: good.pem
            key: other-key.pem
            client-auth: optional
            client-ca: nowhere.pem
            sni:
              - { certificate: legacy.pem, key: legacy-key.pem }
              - { certificate: old.pem, key: old-key.pem }
              - { certificate: missing.pem, key: good-key.pem }
              - { certificate: garbage.pem, key: good-key.pem }
        """ + ROUTES);
        CliRunner.Result checked = CliRunner.run("check", "-c", files.toString());
        assertThat(checked.exitCode()).isEqualTo(1);
        List<String> problems = checked.out()
                .lines()
                .filter(l -> l.startsWith("  "))
                .map(String::strip)
                .toList();
        assertThat(problems)
                .satisfiesExactlyInAnyOrder(
                        l -> assertThat(l)
                                .startsWith("server.tls.key: '" + dir.resolve("other-key.pem"))
                                .contains("is not the private key of"),
                        l -> assertThat(l)
                                .startsWith("server.tls.sni[0].key: ")
                                .contains("PKCS#1")
                                .contains("openssl pkcs8 -topk8 -nocrypt -in " + dir.resolve("legacy-key.pem")),
                        l -> assertThat(l)
                                .startsWith("server.tls.sni[1].certificate: '" + dir.resolve("old.pem"))
                                .contains("expired at"),
                        l -> assertThat(l)
                                .startsWith("server.tls.sni[2].certificate: '" + dir.resolve("missing.pem")
                                        + "' does not exist"),
                        l -> assertThat(l)
                                .startsWith("server.tls.sni[3].certificate: '" + dir.resolve("garbage.pem")
                                        + "' holds no PEM certificate"),
                        l -> assertThat(l)
                                .startsWith(
                                        "server.tls.client-ca: '" + dir.resolve("nowhere.pem") + "' does not exist"));
    }

    @Test
    void aCertificateExpiringWithinTwoWeeksIsAWarningNotAProblem() throws Exception {
        Issued soon = ca.issue(KeyType.EC, Duration.ofDays(5), true, "soon.test");
        soon.writeCertificate(dir.resolve("soon.pem"));
        soon.writeKey(dir.resolve("soon-key.pem"));
        Path file = write("soon.yaml", """
        server:
          tls: { certificate: soon.pem, key: soon-key.pem }
        """ + ROUTES);
        CliRunner.Result result = CliRunner.run("check", "-c", file.toString());
        assertThat(result.exitCode()).isZero();
        List<String> lines = result.out().lines().toList();
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0))
                .startsWith("warning: server.tls.certificate: '" + dir.resolve("soon.pem"))
                .contains("in less than 14 days: renew it");
        assertThat(lines.get(1)).isEqualTo("ok: 1 routes, 1 upstreams");
    }

    @Test
    void anUpstreamsInsecureSkipVerifyIsAWarning() throws Exception {
        Path file = write("insecure.yaml", """
        upstreams:
          secure:
            url: https://127.0.0.1:8443
            tls: { insecure-skip-verify: true }
        routes:
          - id: s
            match: { path: "/s/**" }
            proxy: { upstream: secure }
        """);
        CliRunner.Result result = CliRunner.run("check", "-c", file.toString());
        assertThat(result.exitCode()).isZero();
        List<String> lines = result.out().lines().toList();
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0))
                .startsWith("warning: upstreams.secure.tls.insecure-skip-verify: true: the upstream's certificate");
        assertThat(lines.get(1)).isEqualTo("ok: 1 routes, 1 upstreams");
    }

    /**
     * The file watcher sees changes in the directories the configuration names; certificates replaced
     * where it cannot see them (behind a symlink into another directory, as here; on a network file
     * system) come in on a reload: {@code POST /reload} (and SIGHUP, the same path) reads them again.
     */
    @ParameterizedTest
    @ValueSource(strings = {"virtual", "platform", "reactive"})
    void aReloadReadsCertificatesTheWatcherCannotSee(String engine) throws Exception {
        Issued first = ca.server(KeyType.EC, "gateway.test");
        Issued second = ca.server(KeyType.EC, "gateway.test");
        Path data = Files.createDirectories(dir.resolve("data"));
        Path live = Files.createDirectories(dir.resolve("live"));
        first.writeCertificate(data.resolve("cert.pem"));
        first.writeKey(data.resolve("key.pem"));
        Files.createSymbolicLink(live.resolve("server.pem"), data.resolve("cert.pem"));
        Files.createSymbolicLink(live.resolve("server-key.pem"), data.resolve("key.pem"));
        try (DemoUpstreams upstreams = DemoUpstreams.start("127.0.0.1", 0)) {
            Path file = write("run.yaml", """
            server:
              host: 127.0.0.1
              port: 0
              tls: { certificate: live/server.pem, key: live/server-key.pem }
            admin: { host: 127.0.0.1, port: 0 }
            upstreams:
              catalog: { url: "%s" }
            routes:
              - id: catalog
                match: { path: "/products/**" }
                proxy: { upstream: catalog }
            """.formatted(upstreams.urls().get("products")));
            CliRunner.Result result = CliRunner.run(
                    session -> {
                        URI gateway = session.gatewayUrl().orElseThrow();
                        URI admin = session.adminUrl().orElseThrow();
                        assertThat(served(gateway)).isEqualTo(first.serial());
                        second.writeCertificate(data.resolve("cert.pem")); // in place, behind the links
                        second.writeKey(data.resolve("key.pem"));
                        Thread.sleep(1_000); // five times the watcher's settle time: it saw nothing
                        assertThat(served(gateway))
                                .as("the watcher of live/ cannot see data/")
                                .isEqualTo(first.serial());
                        HttpResponse<String> reload = HttpClient.newHttpClient()
                                .send(
                                        HttpRequest.newBuilder(URI.create(admin + "/reload"))
                                                .POST(HttpRequest.BodyPublishers.noBody())
                                                .timeout(Duration.ofSeconds(20))
                                                .build(),
                                        HttpResponse.BodyHandlers.ofString());
                        assertThat(reload.statusCode()).as(reload.body()).isEqualTo(200);
                        assertThat(served(gateway))
                                .as("a new handshake after the reload gets the new certificate")
                                .isEqualTo(second.serial());
                    },
                    "run",
                    "-c",
                    file.toString(),
                    "--engine",
                    engine);
            assertThat(result.exitCode()).as(result.err()).isZero();
            assertThat(result.err()).contains("TLS certificates reloaded");
        }
    }

    /** The serial of the certificate a new handshake with {@code gateway} gets, in hex. */
    private String served(URI gateway) throws Exception {
        javax.net.ssl.SSLContext context = ca.clientContext(Optional.empty());
        try (javax.net.ssl.SSLSocket socket =
                (javax.net.ssl.SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", gateway.getPort())) {
            socket.setSoTimeout(10_000);
            javax.net.ssl.SSLParameters parameters = socket.getSSLParameters();
            parameters.setServerNames(List.of(new javax.net.ssl.SNIHostName("gateway.test")));
            socket.setSSLParameters(parameters);
            socket.startHandshake();
            java.security.cert.X509Certificate leaf =
                    (java.security.cert.X509Certificate) socket.getSession().getPeerCertificates()[0];
            return leaf.getSerialNumber().toString(16);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"virtual", "platform", "reactive"})
    void theStartedLineAndHealthSayWhichListenersAreTls(String engine) throws Exception {
        Issued server = ca.server(KeyType.EC, "gateway.test");
        server.writeCertificate(dir.resolve("server.pem"));
        server.writeKey(dir.resolve("server-key.pem"));
        try (DemoUpstreams upstreams = DemoUpstreams.start("127.0.0.1", 0)) {
            Path file = write("run.yaml", """
            server:
              host: 127.0.0.1
              port: 0
              tls: { certificate: server.pem, key: server-key.pem }
            admin: { host: 127.0.0.1, port: 0 }
            upstreams:
              catalog: { url: "%s" }
            routes:
              - id: catalog
                match: { path: "/products/**" }
                proxy: { upstream: catalog }
            """.formatted(upstreams.urls().get("products")));
            AtomicReference<URI> gateway = new AtomicReference<>();
            CliRunner.Result result = CliRunner.run(
                    session -> {
                        gateway.set(session.gatewayUrl().orElseThrow());
                        URI admin = session.adminUrl().orElseThrow();
                        assertThat(gateway.get().getScheme()).isEqualTo("https");
                        try (HttpClient client = HttpClient.newBuilder()
                                .sslContext(ca.clientContext(Optional.empty()))
                                .connectTimeout(Duration.ofSeconds(5))
                                .build()) {
                            HttpResponse<String> product = client.send(
                                    HttpRequest.newBuilder(URI.create(gateway.get() + "/products/1001"))
                                            .timeout(Duration.ofSeconds(20))
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString());
                            assertThat(product.statusCode()).isEqualTo(200);
                        }
                        HttpResponse<String> health = Http.get(admin, "/health");
                        assertThat(health.statusCode()).isEqualTo(200);
                        assertThat(health.body())
                                .isEqualTo("{\"status\":\"up\",\"listeners\":[{\"name\":\"gateway\",\"port\":"
                                        + gateway.get().getPort()
                                        + ",\"tls\":true,\"protocols\":[\"h2\",\"http/1.1\"]},{\"name\":\"admin\",\"port\":"
                                        + admin.getPort() + ",\"tls\":false,\"protocols\":[\"http/1.1\"]}]}");
                    },
                    "run",
                    "-c",
                    file.toString(),
                    "--engine",
                    engine);
            assertThat(result.exitCode()).as(result.err()).isZero();
            assertThat(result.out().lines().findFirst().orElseThrow())
                    .matches("sluice started in \\d+ ms: listening on 127\\.0\\.0\\.1:"
                            + gateway.get().getPort()
                            + " with TLS \\(https://127\\.0\\.0\\.1:"
                            + gateway.get().getPort() + "\\); h2, http/1.1; engine "
                            + engine + " on .*");
        }
    }
}
