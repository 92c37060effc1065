package dev.sluice.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Binds {@code server.tls}, and the certificate files and protocols an upstream's {@code tls} names too. */
final class ServerTlsBinder {

    private ServerTlsBinder() {}

    /** {@code server.tls}: its keys, then every file it names, checked as the listener will read them. */
    static Optional<TlsConfig> tls(Mapping m, Path base) {
        m.allowOnly("certificate", "key", "sni", "client-auth", "client-ca", "protocols");
        int before = m.problems().size();
        Optional<TlsConfig.CertificateFiles> certificate = certificateFiles(m, base);
        List<TlsConfig.CertificateFiles> sni = new ArrayList<>();
        m.list("sni", "a list of {certificate, key} mappings").ifPresent(items -> {
            for (int i = 0; i < items.size(); i++) {
                Mapping.of(
                                items.get(i),
                                m.child("sni") + "[" + i + "]",
                                "a mapping with certificate and key",
                                m.problems())
                        .flatMap(item -> {
                            item.allowOnly("certificate", "key");
                            return certificateFiles(item, base);
                        })
                        .ifPresent(sni::add);
            }
        });
        String clientAuthKey = m.choice("client-auth", "none", "none", "optional", "require");
        TlsConfig.ClientAuth clientAuth =
                TlsConfig.ClientAuth.valueOf(clientAuthKey.toUpperCase(java.util.Locale.ROOT));
        Optional<Path> clientCa =
                m.string("client-ca", "a PEM file of CA certificates").map(base::resolve);
        if (clientAuth != TlsConfig.ClientAuth.NONE && clientCa.isEmpty()) {
            m.problem(
                    "client-ca",
                    "missing (expected: the PEM bundle of the CAs that sign client certificates, with client-auth "
                            + clientAuth.key() + ")");
        } else if (clientAuth == TlsConfig.ClientAuth.NONE && clientCa.isPresent()) {
            m.problem(
                    "client-ca",
                    "set, but client-auth is none, so no client is asked for a certificate (expected: client-auth"
                            + " optional or require, or no client-ca)");
        }
        List<String> protocols = protocols(m);
        if (certificate.isEmpty() || m.problems().size() != before) {
            return Optional.empty();
        }
        TlsConfig tls = new TlsConfig(certificate.get(), sni, clientAuth, clientCa, protocols);
        dev.sluice.tls.ServerCertificates.Checked checked =
                dev.sluice.tls.ServerCertificates.load(tls, m.path(), java.time.Instant.now());
        m.problems().addAll(checked.problems());
        return checked.problems().isEmpty() ? Optional.of(tls) : Optional.empty();
    }

    /** {@code protocols}: a subset of TLS 1.3 and 1.2 ({@code server.tls}, {@code upstreams.NAME.tls}). */
    static List<String> protocols(Mapping m) {
        List<String> protocols = TlsConfig.DEFAULT_PROTOCOLS;
        String protocolsExpected = "a list of TLSv1.3 and TLSv1.2";
        Optional<List<?>> listed = m.list("protocols", protocolsExpected);
        if (listed.isPresent()) {
            List<String> chosen = new ArrayList<>();
            for (Object item : listed.get()) {
                if (item instanceof String p && TlsConfig.DEFAULT_PROTOCOLS.contains(p)) {
                    if (!chosen.contains(p)) {
                        chosen.add(p);
                    }
                } else {
                    m.problem(
                            "protocols",
                            Mapping.describe(item) + " is not offered: older versions are broken or deprecated"
                                    + " (RFC 8996) (expected: " + protocolsExpected + ")");
                }
            }
            if (listed.get().isEmpty()) {
                m.problem("protocols", "an empty list (expected: " + protocolsExpected + ")");
            }
            protocols = chosen;
        }
        return protocols;
    }

    static Optional<TlsConfig.CertificateFiles> certificateFiles(Mapping m, Path base) {
        Optional<String> certificate = m.requiredString("certificate", "a PEM file: the certificate chain, leaf first");
        Optional<String> key = m.requiredString("key", "a PEM file: the certificate's PKCS#8 private key");
        if (certificate.isEmpty() || key.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new TlsConfig.CertificateFiles(base.resolve(certificate.get()), base.resolve(key.get())));
    }
}
