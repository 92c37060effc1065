package dev.sluice.tls;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.Problem;
import dev.sluice.config.UpstreamTlsConfig;
import java.io.IOException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * The client side of TLS to an {@code https://} upstream, made once per endpoint pool from {@link
 * UpstreamTlsConfig}: the JDK's {@link SSLContext} (trusting {@code ca} or the JDK's default trust
 * store, presenting the client certificate for mTLS) and the {@link SSLParameters} of each connection
 * (SNI, hostname verification by the JDK's {@code HTTPS} endpoint identification, the protocols). Both
 * engines layer their connections with it: the blocking one an {@link SSLSocket}, the reactive one an
 * {@link SSLEngine} in Netty's {@code SslHandler}.
 */
public final class UpstreamTls {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(UpstreamTls.class);

    private final UpstreamTlsConfig config;
    private final SSLContext context;
    private final SSLContext probeContext;

    private UpstreamTls(UpstreamTlsConfig config, SSLContext context, SSLContext probeContext) {
        this.config = config;
        this.context = context;
        this.probeContext = probeContext;
    }

    /** What reading {@code tls}'s files found: problems (by path) and warnings such as an expiry soon. */
    public record Checked(Optional<UpstreamTls> tls, List<Problem> problems, List<Problem> warnings) {
        public Checked {
            problems = List.copyOf(problems);
            warnings = List.copyOf(warnings);
        }
    }

    /**
     * Reads every file of {@code config} and builds the context.
     *
     * @param path where {@code config} is in the configuration ({@code upstreams.NAME.tls}), for problems
     */
    public static Checked load(UpstreamTlsConfig config, String path, Instant now) {
        requireNonNull(config, "config");
        List<Problem> problems = new ArrayList<>();
        List<Problem> warnings = new ArrayList<>();
        if (config.insecureSkipVerify()) {
            warnings.add(new Problem(
                    path + ".insecure-skip-verify",
                    "true: the upstream's certificate and name are not checked, so anyone on the path can read"
                            + " and change its traffic (expected: ca or server-name instead, outside tests)"));
        }
        TrustManager[] trust = null; // the JDK's default trust store
        if (config.insecureSkipVerify()) {
            trust = new TrustManager[] {new TrustingAnyServer()};
        } else if (config.ca().isPresent()) {
            try {
                byte[] pem = PemFiles.read(config.ca().get());
                trust = trustManagers(PemFiles.certificates(config.ca().get(), pem));
            } catch (PemFiles.Unusable e) {
                problems.add(new Problem(path + ".ca", e.getMessage()));
            }
        }
        KeyManager[] keys = null;
        if (config.clientCertificate().isPresent()) {
            List<Problem> found = new ArrayList<>();
            MessageDigest unused = sha256();
            Optional<ServerCertificates.Entry> entry =
                    ServerCertificates.entry(config.clientCertificate().get(), path, now, unused, found, warnings);
            problems.addAll(found);
            if (entry.isPresent()) {
                keys = keyManagers(entry.get());
            }
        }
        if (!problems.isEmpty()) {
            return new Checked(Optional.empty(), problems, warnings);
        }
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys, trust, null);
            SSLContext probeContext = context;
            if (config.serverName().isPresent() && !config.insecureSkipVerify()) {
                probeContext = SSLContext.getInstance("TLS");
                probeContext.init(
                        keys,
                        new TrustManager[] {
                            new NamedServerTrust(
                                    pkix(trust), config.serverName().get())
                        },
                        null);
            }
            return new Checked(Optional.of(new UpstreamTls(config, context, probeContext)), problems, warnings);
        } catch (GeneralSecurityException e) {
            problems.add(new Problem(path, "the JDK could not make a TLS context: " + e.getMessage()));
            return new Checked(Optional.empty(), problems, warnings);
        }
    }

    /**
     * The context of {@code config}, for an engine starting its pools; its warnings logged.
     *
     * @throws IllegalStateException naming every problem, when a file changed since the configuration
     *     was checked
     */
    public static UpstreamTls create(UpstreamTlsConfig config, String path) {
        Checked checked = load(config, path, Instant.now());
        if (checked.tls().isEmpty()) {
            throw new IllegalStateException(checked.problems().toString());
        }
        for (Problem warning : checked.warnings()) {
            LOG.warn("{}", warning);
        }
        return checked.tls().get();
    }

    public SSLContext context() {
        return context;
    }

    /**
     * The context for the health checks' HTTP client (the JDK's), which names and verifies each
     * endpoint's host itself: with {@code server-name}, one whose trust manager checks the chain and
     * that name instead, so that a probe trusts what a call trusts.
     */
    public SSLContext probeContext() {
        return probeContext;
    }

    /** The protocols alone: for the health checks' HTTP client, which sets SNI and verification itself. */
    public SSLParameters probeParameters() {
        SSLParameters parameters = new SSLParameters();
        parameters.setProtocols(config.protocols().toArray(String[]::new));
        return parameters;
    }

    /** The name sent in SNI and verified: {@code server-name}, else {@code host} (an IPv6 one without brackets). */
    public String serverName(String host) {
        if (config.serverName().isPresent()) {
            return config.serverName().get();
        }
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    /**
     * The parameters of a connection to {@code host}: its SNI name (none for an IP address, as RFC 6066
     * asks), the {@code HTTPS} endpoint identification unless {@code insecure-skip-verify}, the protocols.
     */
    public SSLParameters parameters(String host) {
        String name = serverName(host);
        SSLParameters parameters = context.getDefaultSSLParameters();
        if (!isAddress(name)) {
            parameters.setServerNames(List.of(new SNIHostName(name)));
        }
        parameters.setEndpointIdentificationAlgorithm(config.insecureSkipVerify() ? null : "HTTPS");
        parameters.setProtocols(config.protocols().toArray(String[]::new));
        return parameters;
    }

    /** A client engine for a connection to {@code host:port} (the reactive engine's {@code SslHandler}). */
    public SSLEngine engine(String host, int port) {
        SSLEngine engine = context.createSSLEngine(serverName(host), port);
        engine.setUseClientMode(true);
        engine.setSSLParameters(parameters(host));
        return engine;
    }

    /**
     * TLS over {@code connected}, a socket connected to {@code host:port}; closing it closes {@code
     * connected}. The handshake is the caller's to start.
     */
    public SSLSocket layer(Socket connected, String host, int port) throws IOException {
        SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(connected, serverName(host), port, true);
        socket.setUseClientMode(true);
        socket.setSSLParameters(parameters(host));
        return socket;
    }

    private static boolean isAddress(String name) {
        return name.indexOf(':') >= 0 || name.chars().allMatch(c -> c == '.' || (c >= '0' && c <= '9'));
    }

    private static TrustManager[] trustManagers(List<X509Certificate> authorities) throws PemFiles.Unusable {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            for (int i = 0; i < authorities.size(); i++) {
                store.setCertificateEntry("ca-" + i, authorities.get(i));
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
            factory.init(store);
            return factory.getTrustManagers();
        } catch (GeneralSecurityException | IOException e) {
            throw new PemFiles.Unusable("the JDK could not trust these certificates: " + e);
        }
    }

    /** The PKIX trust manager of {@code trust}, or of the JDK's default trust store when null. */
    private static javax.net.ssl.X509ExtendedTrustManager pkix(TrustManager[] trust) throws GeneralSecurityException {
        if (trust == null) {
            TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
            factory.init((KeyStore) null);
            trust = factory.getTrustManagers();
        }
        for (TrustManager manager : trust) {
            if (manager instanceof javax.net.ssl.X509ExtendedTrustManager x509) {
                return x509;
            }
        }
        throw new GeneralSecurityException("the JDK's PKIX TrustManagerFactory made no X509ExtendedTrustManager");
    }

    private static KeyManager[] keyManagers(ServerCertificates.Entry entry) {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            char[] password = new char[0];
            store.setKeyEntry("client", entry.key(), password, entry.chain().toArray(X509Certificate[]::new));
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(store, password);
            return factory.getKeyManagers();
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("the JDK could not hold the client certificate: " + e, e);
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The chain checked by PKIX (without the JDK's own name check) and its leaf's DNS names checked
     * against one configured name (one wildcard label, as RFC 6125 section 6.4.3 allows).
     */
    private static final class NamedServerTrust extends javax.net.ssl.X509ExtendedTrustManager {
        private final javax.net.ssl.X509ExtendedTrustManager chains;
        private final String name;

        NamedServerTrust(javax.net.ssl.X509ExtendedTrustManager chains, String name) {
            this.chains = chains;
            this.name = name.toLowerCase(java.util.Locale.ROOT);
        }

        private void checkName(X509Certificate[] chain) throws java.security.cert.CertificateException {
            List<String> names = ServerCertificates.dnsNames(chain[0]);
            if (!ServerCertificates.covers(names, name)) {
                throw new java.security.cert.CertificateException("the certificate names " + names + ", not " + name);
            }
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws java.security.cert.CertificateException {
            chains.checkServerTrusted(chain, authType);
            checkName(chain);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws java.security.cert.CertificateException {
            chains.checkServerTrusted(chain, authType);
            checkName(chain);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType)
                throws java.security.cert.CertificateException {
            chains.checkServerTrusted(chain, authType);
            checkName(chain);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
            throw new UnsupportedOperationException("an upstream client trusts no clients");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
            throw new UnsupportedOperationException("an upstream client trusts no clients");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
            throw new UnsupportedOperationException("an upstream client trusts no clients");
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return chains.getAcceptedIssuers();
        }
    }

    /** {@code insecure-skip-verify: true}: every server certificate is taken, unchecked. */
    private static final class TrustingAnyServer extends javax.net.ssl.X509ExtendedTrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
            throw new UnsupportedOperationException("an upstream client trusts no clients");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
            throw new UnsupportedOperationException("an upstream client trusts no clients");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
            throw new UnsupportedOperationException("an upstream client trusts no clients");
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {}

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
