package dev.sluice.tls;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.Problem;
import dev.sluice.config.TlsConfig;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The certificates of {@code server.tls} as read from their files at one moment: the default one,
 * the {@code sni} ones with the server names each covers, and the client CA bundle. Immutable; a
 * rotation reads a new one ({@link #load}) and {@link ServerTls} swaps it in.
 *
 * <p>Reading checks every file by its configuration path: readable, parsed, the key the certificate's
 * own, no certificate of a chain expired; one expiring within {@link #EXPIRY_WARNING} is a warning.
 */
public final class ServerCertificates {

    /** A certificate that expires sooner than this is a warning ({@code sluice check}, start, rotation). */
    public static final Duration EXPIRY_WARNING = Duration.ofDays(14);

    /** One certificate the listener can serve: its chain (leaf first), key and DNS names. */
    record Entry(List<X509Certificate> chain, PrivateKey key, List<String> names) {
        String keyType() {
            return key.getAlgorithm();
        }

        /** Whether a client asking for {@code serverName} (lower case) is served this one by name. */
        boolean covers(String serverName) {
            return ServerCertificates.covers(names, serverName);
        }
    }

    /** Whether DNS names (lower case) cover {@code serverName}: exactly, or by one wildcard label (RFC 6125 section 6.4.3). */
    static boolean covers(List<String> names, String serverName) {
        for (String name : names) {
            if (name.equals(serverName)) {
                return true;
            }
            if (name.startsWith("*.")) {
                int dot = serverName.indexOf('.');
                if (dot > 0 && serverName.substring(dot).equals(name.substring(1))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** What reading found: the certificates when every file is usable, the problems and the warnings. */
    public record Checked(Optional<ServerCertificates> certificates, List<Problem> problems, List<Problem> warnings) {
        public Checked {
            problems = List.copyOf(problems);
            warnings = List.copyOf(warnings);
        }
    }

    private final List<Entry> entries;
    private final List<X509Certificate> clientCa;
    private final byte[] digest;

    private ServerCertificates(List<Entry> entries, List<X509Certificate> clientCa, byte[] digest) {
        this.entries = List.copyOf(entries);
        this.clientCa = List.copyOf(clientCa);
        this.digest = digest;
    }

    /**
     * Reads and checks every file of {@code tls}.
     *
     * @param path where {@code tls} is in the configuration ({@code server.tls}), for problems
     * @param now what "expired" is measured against
     */
    public static Checked load(TlsConfig tls, String path, Instant now) {
        requireNonNull(tls, "tls");
        requireNonNull(now, "now");
        List<Problem> problems = new ArrayList<>();
        List<Problem> warnings = new ArrayList<>();
        MessageDigest digest = sha256();
        List<Entry> entries = new ArrayList<>();
        entry(tls.certificate(), path, now, digest, problems, warnings).ifPresent(entries::add);
        for (int i = 0; i < tls.sni().size(); i++) {
            String at = path + ".sni[" + i + "]";
            Optional<Entry> entry = entry(tls.sni().get(i), at, now, digest, problems, warnings);
            if (entry.isPresent() && entry.get().names().isEmpty()) {
                problems.add(new Problem(
                        at + ".certificate",
                        "'" + tls.sni().get(i).certificate() + "' names no DNS server in its subjectAltName, so no"
                                + " client's server name can choose it (expected: a certificate with DNS names)"));
            }
            entry.ifPresent(entries::add);
        }
        List<X509Certificate> clientCa = List.of();
        if (tls.clientCa().isPresent()) {
            Path file = tls.clientCa().get();
            try {
                byte[] pem = PemFiles.read(file);
                digest.update(pem);
                clientCa = PemFiles.certificates(file, pem);
            } catch (PemFiles.Unusable e) {
                problems.add(new Problem(path + ".client-ca", e.getMessage()));
            }
        }
        if (!problems.isEmpty()) {
            return new Checked(Optional.empty(), problems, warnings);
        }
        return new Checked(Optional.of(new ServerCertificates(entries, clientCa, digest.digest())), problems, warnings);
    }

    static Optional<Entry> entry(
            TlsConfig.CertificateFiles files,
            String path,
            Instant now,
            MessageDigest digest,
            List<Problem> problems,
            List<Problem> warnings) {
        List<X509Certificate> chain;
        byte[] keyPem;
        try {
            byte[] pem = PemFiles.read(files.certificate());
            digest.update(pem);
            chain = PemFiles.certificates(files.certificate(), pem);
        } catch (PemFiles.Unusable e) {
            problems.add(new Problem(path + ".certificate", e.getMessage()));
            chain = null;
        }
        try {
            keyPem = PemFiles.read(files.key());
            digest.update(keyPem);
        } catch (PemFiles.Unusable e) {
            problems.add(new Problem(path + ".key", e.getMessage()));
            return Optional.empty();
        }
        if (chain == null) {
            return Optional.empty();
        }
        boolean usable = true;
        for (int i = 0; i < chain.size(); i++) {
            X509Certificate c = chain.get(i);
            String which =
                    "'" + files.certificate() + "'" + (i == 0 ? "" : " (certificate " + (i + 1) + " of the chain)")
                            + ", " + c.getSubjectX500Principal().getName();
            Instant notAfter = c.getNotAfter().toInstant();
            if (!notAfter.isAfter(now)) {
                problems.add(new Problem(
                        path + ".certificate",
                        which + ", expired at " + notAfter + " (expected: a certificate valid now)"));
                usable = false;
            } else if (notAfter.isBefore(now.plus(EXPIRY_WARNING))) {
                warnings.add(new Problem(
                        path + ".certificate",
                        which + ", expires at " + notAfter + ", in less than " + EXPIRY_WARNING.toDays()
                                + " days: renew it"));
            }
            if (c.getNotBefore().toInstant().isAfter(now)) {
                warnings.add(new Problem(
                        path + ".certificate",
                        which + ", is not valid before " + c.getNotBefore().toInstant()
                                + ": clients will refuse it until then"));
            }
        }
        X509Certificate leaf = chain.get(0);
        String algorithm = leaf.getPublicKey().getAlgorithm();
        if (!algorithm.equals("RSA") && !algorithm.equals("EC")) {
            problems.add(new Problem(
                    path + ".certificate",
                    "'" + files.certificate() + "' has an " + algorithm + " key (expected: an RSA or EC certificate)"));
            return Optional.empty();
        }
        PrivateKey key;
        try {
            key = PemFiles.privateKey(files.key(), keyPem, algorithm);
        } catch (PemFiles.Unusable e) {
            problems.add(new Problem(path + ".key", e.getMessage()));
            return Optional.empty();
        }
        if (!matches(key, leaf)) {
            problems.add(new Problem(
                    path + ".key",
                    "'" + files.key() + "' is not the private key of '" + files.certificate()
                            + "' (expected: the key the certificate was issued for, in the same order as the pair)"));
            return Optional.empty();
        }
        return usable ? Optional.of(new Entry(chain, key, dnsNames(leaf))) : Optional.empty();
    }

    /** Whether {@code key} signs what the certificate's public key verifies. */
    private static boolean matches(PrivateKey key, X509Certificate certificate) {
        String algorithm = key.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
        try {
            byte[] data = new byte[32];
            new SecureRandom().nextBytes(data);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(data);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(certificate.getPublicKey());
            verifier.update(data);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    static List<String> dnsNames(X509Certificate certificate) {
        List<String> names = new ArrayList<>();
        try {
            var alternatives = certificate.getSubjectAlternativeNames();
            if (alternatives != null) {
                for (List<?> name : alternatives) {
                    if (Integer.valueOf(2).equals(name.get(0)) && name.get(1) instanceof String dns) {
                        names.add(dns.toLowerCase(Locale.ROOT));
                    }
                }
            }
        } catch (CertificateParsingException e) {
            // no usable subjectAltName: no names
        }
        return List.copyOf(names);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** The default certificate first, then the {@code sni} ones in declared order. */
    List<Entry> entries() {
        return entries;
    }

    /** The client CA bundle; empty without {@code client-ca}. */
    List<X509Certificate> clientCa() {
        return clientCa;
    }

    /** Whether the files read then hold the same bytes as those read for {@code other}. */
    boolean sameFilesAs(ServerCertificates other) {
        return MessageDigest.isEqual(digest, other.digest);
    }

    /** The default certificate's leaf, such as for a log line. */
    public X509Certificate defaultCertificate() {
        return entries.get(0).chain().get(0);
    }
}
