package dev.sluice.tck;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A certificate authority made in the test (BouncyCastle's builder, keys from the JDK), the
 * certificates it issues, their PEM files and client {@link SSLContext}s that trust it: real TLS with
 * nothing checked in.
 */
public final class TestCertificates {

    private static final AtomicLong SERIALS = new AtomicLong(System.currentTimeMillis());

    private final KeyPair keys;
    private final X509Certificate certificate;

    private TestCertificates(KeyPair keys, X509Certificate certificate) {
        this.keys = keys;
        this.certificate = certificate;
    }

    /** The key types a certificate can have. */
    public enum KeyType {
        EC,
        RSA
    }

    /** A new self-signed CA named {@code name} (EC P-256), valid for a day. */
    public static TestCertificates authority(String name) {
        KeyPair keys = keyPair(KeyType.EC);
        X500Name subject = new X500Name("CN=" + name);
        Instant now = Instant.now();
        try {
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                            subject,
                            serial(),
                            Date.from(now.minus(Duration.ofHours(1))),
                            Date.from(now.plus(Duration.ofDays(1))),
                            subject,
                            keys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            return new TestCertificates(keys, sign(builder, keys));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The CA's own certificate. */
    public X509Certificate certificate() {
        return certificate;
    }

    /**
     * A certificate this CA signs for a server: its DNS names, and 127.0.0.1 as an IP name (clients
     * connect to the loopback address), valid for a day.
     */
    public Issued server(KeyType type, String... dnsNames) {
        return issue(type, Duration.ofDays(1), true, dnsNames);
    }

    /** A certificate this CA signs for a server with these DNS names only (no IP address): valid for a day. */
    public Issued serverNamedOnly(String... dnsNames) {
        return issue(KeyType.EC, Duration.ofDays(1), true, false, dnsNames);
    }

    /** A server context presenting {@code identity}; with {@code clientCa}, trusting the clients it signs. */
    public static SSLContext serverContext(Issued identity, Optional<TestCertificates> clientCa) {
        try {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry(
                    "server", identity.keys().getPrivate(), new char[0], new X509Certificate[] {identity.certificate()
                    });
            javax.net.ssl.KeyManagerFactory kmf =
                    javax.net.ssl.KeyManagerFactory.getInstance(javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, new char[0]);
            javax.net.ssl.TrustManager[] trust = null;
            if (clientCa.isPresent()) {
                KeyStore store = KeyStore.getInstance("PKCS12");
                store.load(null, null);
                store.setCertificateEntry("ca", clientCa.get().certificate());
                TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
                tmf.init(store);
                trust = tmf.getTrustManagers();
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(kmf.getKeyManagers(), trust, null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("server TLS context: " + e, e);
        }
    }

    /** A certificate for a client (no names), valid for a day. */
    public Issued client(String commonName) {
        return issue(KeyType.EC, Duration.ofDays(1), false, commonName);
    }

    /**
     * A certificate valid from an hour ago for {@code validity} (negative: expired that long ago).
     *
     * @param names the first is the common name; all are DNS names when {@code server}
     */
    public Issued issue(KeyType type, Duration validity, boolean server, String... names) {
        return issue(type, validity, server, true, names);
    }

    private Issued issue(KeyType type, Duration validity, boolean server, boolean loopback, String... names) {
        KeyPair leaf = keyPair(type);
        Instant now = Instant.now();
        Instant notBefore =
                validity.isNegative() ? now.plus(validity).minus(Duration.ofDays(1)) : now.minusSeconds(3600);
        try {
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                    certificate,
                    serial(),
                    Date.from(notBefore),
                    Date.from(now.plus(validity)),
                    new X500Name("CN=" + (names.length > 0 ? names[0] : "sluice test")),
                    leaf.getPublic());
            if (server) {
                List<GeneralName> alternatives = new ArrayList<>();
                for (String name : names) {
                    alternatives.add(new GeneralName(GeneralName.dNSName, name));
                }
                if (loopback) {
                    alternatives.add(new GeneralName(GeneralName.iPAddress, "127.0.0.1"));
                }
                builder.addExtension(
                        Extension.subjectAlternativeName,
                        false,
                        new GeneralNames(alternatives.toArray(GeneralName[]::new)));
            }
            return new Issued(leaf, sign(builder, keys), certificate);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes the CA's certificate as PEM to {@code file}. */
    public Path writeCertificate(Path file) {
        return write(file, pem("CERTIFICATE", encoded(certificate)));
    }

    /** A client context trusting this CA only, presenting {@code identity} when given. */
    public SSLContext clientContext(Optional<Issued> identity) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", certificate);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
            tmf.init(trust);
            javax.net.ssl.KeyManager[] keyManagers = identity.map(
                            i -> new javax.net.ssl.KeyManager[] {new Presenting(i)})
                    .orElse(null);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers, tmf.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("client TLS context: " + e, e);
        }
    }

    /**
     * A client key manager that presents its one certificate whatever CAs the server names (the
     * JDK's own would send none that another CA signed, and so never test the server's refusal).
     */
    private static final class Presenting extends javax.net.ssl.X509ExtendedKeyManager {
        private final Issued identity;

        Presenting(Issued identity) {
            this.identity = identity;
        }

        @Override
        public String chooseEngineClientAlias(
                String[] keyType, java.security.Principal[] issuers, javax.net.ssl.SSLEngine engine) {
            return "me";
        }

        @Override
        public String chooseClientAlias(String[] keyType, java.security.Principal[] issuers, java.net.Socket socket) {
            return "me";
        }

        @Override
        public String[] getClientAliases(String keyType, java.security.Principal[] issuers) {
            return new String[] {"me"};
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return new X509Certificate[] {identity.certificate()};
        }

        @Override
        public java.security.PrivateKey getPrivateKey(String alias) {
            return identity.keys().getPrivate();
        }

        @Override
        public String[] getServerAliases(String keyType, java.security.Principal[] issuers) {
            return null;
        }

        @Override
        public String chooseServerAlias(String keyType, java.security.Principal[] issuers, java.net.Socket socket) {
            return null;
        }
    }

    /** A certificate and its keys. */
    public record Issued(KeyPair keys, X509Certificate certificate, X509Certificate issuer) {
        public Issued {
            requireNonNull(keys, "keys");
            requireNonNull(certificate, "certificate");
        }

        /** The certificate's serial number in hex, as a client sees it. */
        public String serial() {
            return certificate.getSerialNumber().toString(16);
        }

        /** Writes the certificate as PEM to {@code file}, replacing it in one step. */
        public Path writeCertificate(Path file) {
            return write(file, pem("CERTIFICATE", encoded(certificate)));
        }

        /** Writes the private key as PKCS#8 PEM ({@code BEGIN PRIVATE KEY}), replacing it in one step. */
        public Path writeKey(Path file) {
            return write(file, pem("PRIVATE KEY", keys.getPrivate().getEncoded()));
        }

        /** Writes the private key in the legacy format: PKCS#1 for RSA, SEC1 for EC. */
        public Path writeLegacyKey(Path file) {
            try {
                byte[] inner = PrivateKeyInfo.getInstance(keys.getPrivate().getEncoded())
                        .parsePrivateKey()
                        .toASN1Primitive()
                        .getEncoded();
                String type = keys.getPrivate().getAlgorithm().equals("RSA") ? "RSA PRIVATE KEY" : "EC PRIVATE KEY";
                return write(file, pem(type, inner));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair issuer) {
        try {
            String algorithm = issuer.getPrivate().getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
            return new JcaX509CertificateConverter()
                    .getCertificate(builder.build(new JcaContentSignerBuilder(algorithm).build(issuer.getPrivate())));
        } catch (GeneralSecurityException | org.bouncycastle.operator.OperatorCreationException e) {
            throw new IllegalStateException("signing a test certificate: " + e, e);
        }
    }

    private static KeyPair keyPair(KeyType type) {
        try {
            if (type == KeyType.EC) {
                KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
                generator.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
                return generator.generateKeyPair();
            }
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048, new SecureRandom());
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("key pair: " + e, e);
        }
    }

    private static BigInteger serial() {
        return BigInteger.valueOf(SERIALS.incrementAndGet());
    }

    private static byte[] encoded(X509Certificate certificate) {
        try {
            return certificate.getEncoded();
        } catch (java.security.cert.CertificateEncodingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    /** Writes beside the target, then moves it into place atomically, as a rotation tool does. */
    private static Path write(Path file, String text) {
        try {
            Path temporary = Files.createTempFile(file.toAbsolutePath().getParent(), ".write-", ".tmp");
            Files.writeString(temporary, text, StandardCharsets.US_ASCII);
            return Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("writing " + file, e);
        }
    }
}
