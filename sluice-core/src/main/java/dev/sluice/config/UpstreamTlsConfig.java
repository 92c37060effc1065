package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * TLS to an {@code https://} upstream ({@code upstreams.NAME.tls}). The server's certificate is
 * verified against {@code ca} (else the JDK's default trust store) and its name against {@code
 * serverName} (else the endpoint's host), unless {@code insecureSkipVerify} was written.
 *
 * @param ca a PEM bundle of the CAs trusted instead of the JDK's default trust store
 * @param clientCertificate the certificate chain (leaf first) and PKCS#8 key presented when the
 *     upstream asks for one (mTLS)
 * @param serverName the name sent in SNI and verified in the upstream's certificate (default: each
 *     endpoint's host)
 * @param insecureSkipVerify no check of the upstream's certificate or name at all ({@code sluice
 *     check} warns)
 * @param protocols the TLS versions offered, a subset of {@link TlsConfig#DEFAULT_PROTOCOLS}
 */
public record UpstreamTlsConfig(
        Optional<Path> ca,
        Optional<TlsConfig.CertificateFiles> clientCertificate,
        Optional<String> serverName,
        boolean insecureSkipVerify,
        List<String> protocols) {

    /** The JDK's trust store, hostname verification, no client certificate, TLS 1.3 and 1.2. */
    public static final UpstreamTlsConfig DEFAULTS = new UpstreamTlsConfig(
            Optional.empty(), Optional.empty(), Optional.empty(), false, TlsConfig.DEFAULT_PROTOCOLS);

    public UpstreamTlsConfig {
        requireNonNull(ca, "ca");
        requireNonNull(clientCertificate, "clientCertificate");
        requireNonNull(serverName, "serverName");
        protocols = List.copyOf(protocols);
        if (protocols.isEmpty() || !TlsConfig.DEFAULT_PROTOCOLS.containsAll(protocols)) {
            throw new IllegalArgumentException("protocols: " + protocols + " (expected: some of TLSv1.3, TLSv1.2)");
        }
    }

    /** Trusting the CAs of {@code ca} only; everything else by default. */
    public static UpstreamTlsConfig trusting(Path ca) {
        return new UpstreamTlsConfig(
                Optional.of(ca), Optional.empty(), Optional.empty(), false, TlsConfig.DEFAULT_PROTOCOLS);
    }

    public UpstreamTlsConfig withClientCertificate(TlsConfig.CertificateFiles files) {
        return new UpstreamTlsConfig(ca, Optional.of(files), serverName, insecureSkipVerify, protocols);
    }

    public UpstreamTlsConfig withServerName(String name) {
        return new UpstreamTlsConfig(ca, clientCertificate, Optional.of(name), insecureSkipVerify, protocols);
    }

    public UpstreamTlsConfig withInsecureSkipVerify() {
        return new UpstreamTlsConfig(ca, clientCertificate, serverName, true, protocols);
    }
}
