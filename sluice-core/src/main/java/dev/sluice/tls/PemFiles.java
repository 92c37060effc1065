package dev.sluice.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads PEM files with the JDK alone: certificate chains ({@code CertificateFactory}) and PKCS#8
 * private keys ({@code KeyFactory}, RSA or EC). A PKCS#1 ({@code BEGIN RSA PRIVATE KEY}), SEC1 ({@code
 * BEGIN EC PRIVATE KEY}) or encrypted key is refused with the {@code openssl} line that converts it:
 * one format, read one way, rather than a parser per legacy format.
 */
final class PemFiles {

    /** A file that cannot be used; the message names the value and what was expected. */
    static final class Unusable extends Exception {
        Unusable(String message) {
            super(message);
        }
    }

    private static final Pattern BEGIN = Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----");
    private static final Pattern PKCS8 =
            Pattern.compile("-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]*)-----END PRIVATE KEY-----");

    private PemFiles() {}

    static byte[] read(Path file) throws Unusable {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new Unusable("'" + file + "' does not exist (expected: a readable PEM file)");
        } catch (IOException e) {
            throw new Unusable("'" + file + "' cannot be read: " + e + " (expected: a readable PEM file)");
        }
    }

    /** Every certificate of a PEM file, in file order (a chain: leaf first). */
    static List<X509Certificate> certificates(Path file, byte[] pem) throws Unusable {
        String text = new String(pem, StandardCharsets.US_ASCII);
        if (!text.contains("-----BEGIN CERTIFICATE-----")) {
            throw new Unusable("'" + file + "' holds no PEM certificate"
                    + found(text)
                    + " (expected: '-----BEGIN CERTIFICATE-----' blocks, the server's certificate first)");
        }
        try {
            List<X509Certificate> chain = new ArrayList<>();
            for (Certificate c :
                    CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem))) {
                chain.add((X509Certificate) c);
            }
            if (chain.isEmpty()) {
                throw new CertificateException("no certificate decoded");
            }
            return List.copyOf(chain);
        } catch (CertificateException e) {
            throw new Unusable("'" + file + "' is not a valid PEM certificate chain: " + e.getMessage());
        }
    }

    /**
     * The PKCS#8 private key of a PEM file, for a certificate whose public key is {@code algorithm}
     * ({@code RSA}, {@code EC}).
     */
    static PrivateKey privateKey(Path file, byte[] pem, String algorithm) throws Unusable {
        String text = new String(pem, StandardCharsets.US_ASCII);
        Matcher m = PKCS8.matcher(text);
        if (!m.find()) {
            String convert = "openssl pkcs8 -topk8 -nocrypt -in " + file + " -out key.pkcs8.pem";
            if (text.contains("-----BEGIN RSA PRIVATE KEY-----")) {
                throw new Unusable("'" + file + "' is a PKCS#1 RSA key ('BEGIN RSA PRIVATE KEY') (expected: PKCS#8,"
                        + " 'BEGIN PRIVATE KEY'; convert it with: " + convert + ")");
            }
            if (text.contains("-----BEGIN EC PRIVATE KEY-----")) {
                throw new Unusable("'" + file + "' is a SEC1 EC key ('BEGIN EC PRIVATE KEY') (expected: PKCS#8,"
                        + " 'BEGIN PRIVATE KEY'; convert it with: " + convert + ")");
            }
            if (text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----")) {
                throw new Unusable("'" + file + "' is an encrypted key (expected: an unencrypted PKCS#8 key,"
                        + " 'BEGIN PRIVATE KEY', readable by the gateway only; decrypt it with: openssl pkcs8 -in "
                        + file + " -out key.pkcs8.pem)");
            }
            throw new Unusable("'" + file + "' holds no PEM private key" + found(text)
                    + " (expected: a PKCS#8 key, '-----BEGIN PRIVATE KEY-----')");
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(m.group(1));
        } catch (IllegalArgumentException e) {
            throw new Unusable("'" + file + "' has a private key that is not valid base64: " + e.getMessage());
        }
        try {
            return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException e) {
            for (String other : List.of("RSA", "EC", "Ed25519", "RSASSA-PSS")) {
                if (!other.equals(algorithm) && decodes(other, der)) {
                    throw new Unusable("'" + file + "' is an " + other + " key, but the certificate's key is "
                            + algorithm + " (expected: the private key of the certificate)");
                }
            }
            throw new Unusable("'" + file + "' is not a valid PKCS#8 " + algorithm + " private key: " + e.getMessage());
        }
    }

    private static boolean decodes(String algorithm, byte[] der) {
        try {
            KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            return true;
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    /** {@code (found 'BEGIN X')} for the first PEM block of another kind, else nothing. */
    private static String found(String text) {
        Matcher m = BEGIN.matcher(text);
        return m.find() ? " (found '" + m.group(0) + "')" : "";
    }
}
