package dev.sluice.tls;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Checks client certificates against {@code server.tls.client-ca} with the JDK's PKIX trust manager;
 * a rotation that changes the bundle swaps the delegate, so the next handshake checks against the new
 * one. The gateway trusts no server with it.
 */
final class ClientCaTrust extends X509ExtendedTrustManager {

    private volatile X509ExtendedTrustManager delegate;

    ClientCaTrust(List<X509Certificate> authorities) {
        this.delegate = pkix(authorities);
    }

    void swap(List<X509Certificate> authorities) {
        delegate = pkix(authorities);
    }

    private static X509ExtendedTrustManager pkix(List<X509Certificate> authorities) {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            for (int i = 0; i < authorities.size(); i++) {
                store.setCertificateEntry("ca-" + i, authorities.get(i));
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
            factory.init(store);
            for (TrustManager manager : factory.getTrustManagers()) {
                if (manager instanceof X509ExtendedTrustManager x509) {
                    return x509;
                }
            }
            throw new IllegalStateException("the JDK's PKIX TrustManagerFactory made no X509ExtendedTrustManager");
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalStateException("client-ca: the JDK could not build a trust manager: " + e, e);
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        delegate.checkClientTrusted(chain, authType, socket);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        delegate.checkClientTrusted(chain, authType, engine);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        delegate.checkClientTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        throw new CertificateException("the gateway's listener trusts no server");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        throw new CertificateException("the gateway's listener trusts no server");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("the gateway's listener trusts no server");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return delegate.getAcceptedIssuers();
    }
}
