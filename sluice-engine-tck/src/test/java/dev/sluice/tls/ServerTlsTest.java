package dev.sluice.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigException;
import dev.sluice.config.TlsConfig;
import dev.sluice.tck.TestCertificates;
import dev.sluice.tck.TestCertificates.Issued;
import dev.sluice.tck.TestCertificates.KeyType;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ServerTls#reload()}, the rotation decision, driven by hand (the watcher only calls it): new
 * files that are all usable are swapped in; files that are not leave the running certificates as they
 * were; unchanged files swap nothing. (Engines serving what it chose: {@code TlsContract}.)
 */
class ServerTlsTest {

    @TempDir
    Path dir;

    private final TestCertificates ca = TestCertificates.authority("rotation CA");

    private TlsConfig.CertificateFiles paths() {
        return new TlsConfig.CertificateFiles(dir.resolve("cert.pem"), dir.resolve("key.pem"));
    }

    private static String serial(ServerCertificates certificates) {
        return certificates.defaultCertificate().getSerialNumber().toString(16);
    }

    @Test
    void usableNewFilesAreSwappedInAndUnusableOnesLeaveTheRunningCertificate() throws Exception {
        Issued first = ca.server(KeyType.EC, "gateway.test");
        first.writeCertificate(paths().certificate());
        first.writeKey(paths().key());
        try (ServerTls tls = ServerTls.open(TlsConfig.of(paths()))) {
            assertThat(serial(tls.current())).isEqualTo(first.serial());
            assertThat(tls.reload()).as("the same files: nothing to swap").isFalse();

            Issued second = ca.server(KeyType.EC, "gateway.test");
            second.writeCertificate(paths().certificate()); // the key is still the first's
            assertThat(tls.reload())
                    .as("a certificate without its key is not used")
                    .isFalse();
            assertThat(serial(tls.current())).isEqualTo(first.serial());

            second.writeKey(paths().key());
            assertThat(tls.reload()).isTrue();
            assertThat(serial(tls.current())).isEqualTo(second.serial());

            ca.issue(KeyType.EC, Duration.ofDays(-1), true, "gateway.test").writeCertificate(paths().certificate());
            assertThat(tls.reload())
                    .as("an expired certificate is not rotated in")
                    .isFalse();
            assertThat(serial(tls.current())).isEqualTo(second.serial());
        }
    }

    @Test
    void expiryIsMeasuredOnTheClockItIsGiven() throws Exception {
        Issued issued = ca.server(KeyType.RSA, "gateway.test"); // valid for a day
        issued.writeCertificate(paths().certificate());
        issued.writeKey(paths().key());
        Clock later = Clock.fixed(Instant.now().plus(Duration.ofDays(2)), ZoneOffset.UTC);
        assertThatThrownBy(() -> ServerTls.open(TlsConfig.of(paths()), later))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("server.tls.certificate: '" + paths().certificate())
                .hasMessageContaining("expired at");
        ServerCertificates.Checked checked =
                ServerCertificates.load(TlsConfig.of(paths()), "server.tls", Instant.now());
        assertThat(checked.problems()).isEmpty();
        assertThat(checked.warnings())
                .singleElement()
                .satisfies(w -> assertThat(w.toString()).contains("in less than 14 days"));
    }
}
