package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * TLS on the gateway's listener ({@code server.tls}). The files are PEM: a certificate chain (leaf
 * first) and its PKCS#8 private key. A change of the files' contents is a certificate rotation, taken
 * without a restart; a change of these settings needs a restart.
 *
 * @param certificate the default certificate: served when the client names no server, or a name no
 *     {@code sni} certificate has
 * @param sni more certificates, each served to clients that name (SNI) a server its subjectAltName
 *     DNS entries cover; the first that fits wins
 * @param clientAuth whether clients must present a certificate signed by {@code clientCa}
 * @param clientCa the CA bundle client certificates are checked against (required unless {@code
 *     clientAuth} is {@link ClientAuth#NONE})
 * @param protocols the TLS versions offered, a subset of {@link #DEFAULT_PROTOCOLS}
 */
public record TlsConfig(
        CertificateFiles certificate,
        List<CertificateFiles> sni,
        ClientAuth clientAuth,
        Optional<Path> clientCa,
        List<String> protocols) {

    /** TLS 1.3 and 1.2 only: everything older is broken or deprecated (RFC 8996). */
    public static final List<String> DEFAULT_PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

    public TlsConfig {
        requireNonNull(certificate, "certificate");
        requireNonNull(clientAuth, "clientAuth");
        requireNonNull(clientCa, "clientCa");
        sni = List.copyOf(sni);
        protocols = List.copyOf(protocols);
        if (clientAuth != ClientAuth.NONE && clientCa.isEmpty()) {
            throw new IllegalArgumentException(
                    "clientCa: none (expected: a CA bundle when clientAuth is " + clientAuth + ")");
        }
    }

    /** One certificate without SNI or client authentication, on the default protocols. */
    public static TlsConfig of(CertificateFiles certificate) {
        return new TlsConfig(certificate, List.of(), ClientAuth.NONE, Optional.empty(), DEFAULT_PROTOCOLS);
    }

    /** A PEM certificate chain and its PKCS#8 private key. */
    public record CertificateFiles(Path certificate, Path key) {
        public CertificateFiles {
            requireNonNull(certificate, "certificate");
            requireNonNull(key, "key");
        }
    }

    /** {@code client-auth}: whether the gateway asks clients for a certificate (mTLS). */
    public enum ClientAuth {
        /** Clients are not asked. */
        NONE,
        /** Clients are asked; one without a certificate is let in, one with a bad one is refused. */
        OPTIONAL,
        /** Clients without a certificate the CA signed are refused in the handshake. */
        REQUIRE;

        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
