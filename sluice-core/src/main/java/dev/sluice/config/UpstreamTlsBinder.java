package dev.sluice.config;

import dev.sluice.tls.UpstreamTls;
import java.net.URI;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Binds an upstream's {@code tls} mapping, every problem by path, and checks its files as the engines
 * will read them (a CA bundle that is no PEM, a key that is not the certificate's).
 */
final class UpstreamTlsBinder {

    private UpstreamTlsBinder() {}

    /**
     * {@code tls}: empty when absent (the defaults for an https upstream) or when it has problems.
     *
     * @param endpoints the upstream's endpoints, when they are valid: {@code tls} needs them https
     */
    static Optional<UpstreamTlsConfig> bind(Mapping upstream, Optional<List<URI>> endpoints, Path base) {
        if (!upstream.has("tls")) {
            return Optional.empty();
        }
        Optional<Mapping> section = upstream.mapping(
                "tls", "a mapping with ca, certificate, key, server-name, insecure-skip-verify, protocols");
        if (section.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = section.get();
        m.allowOnly("ca", "certificate", "key", "server-name", "insecure-skip-verify", "protocols");
        int before = m.problems().size();
        if (endpoints.isPresent() && !UpstreamConfig.isHttps(endpoints.get().getFirst())) {
            upstream.problem(
                    "tls", "set for '" + endpoints.get().getFirst() + "' (expected: https:// endpoints, or no tls)");
        }
        Optional<Path> ca =
                m.string("ca", "a PEM file of the CA certificates to trust").map(base::resolve);
        Optional<TlsConfig.CertificateFiles> client = Optional.empty();
        if (m.has("certificate") || m.has("key")) {
            client = ServerTlsBinder.certificateFiles(m, base);
        }
        Optional<String> serverName = m.string("server-name", "a DNS name such as api.example.com");
        serverName.ifPresent(name -> {
            if (!isDnsName(name)) {
                m.problem("server-name", "'" + name + "' (expected: a DNS name such as api.example.com)");
            }
        });
        boolean insecure = m.bool("insecure-skip-verify", false);
        if (insecure && (ca.isPresent() || serverName.isPresent())) {
            m.problem(
                    "insecure-skip-verify",
                    "true beside " + (ca.isPresent() ? "ca" : "server-name")
                            + ", which nothing would check (expected: one or the other)");
        }
        List<String> protocols = ServerTlsBinder.protocols(m);
        if (m.problems().size() != before) {
            return Optional.empty();
        }
        UpstreamTlsConfig tls = new UpstreamTlsConfig(ca, client, serverName, insecure, protocols);
        List<Problem> problems = UpstreamTls.load(tls, m.path(), Instant.now()).problems();
        m.problems().addAll(problems);
        return problems.isEmpty() ? Optional.of(tls) : Optional.empty();
    }

    /** Letters, digits and hyphens in dot-separated labels (an IP address is not a server name: RFC 6066). */
    private static boolean isDnsName(String name) {
        if (name.isEmpty() || name.length() > 253 || name.chars().allMatch(c -> c == '.' || Character.isDigit(c))) {
            return false;
        }
        for (String label : name.split("\\.", -1)) {
            if (label.isEmpty() || label.length() > 63 || label.startsWith("-") || label.endsWith("-")) {
                return false;
            }
            for (int i = 0; i < label.length(); i++) {
                char c = label.charAt(i);
                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-')) {
                    return false;
                }
            }
        }
        return true;
    }
}
