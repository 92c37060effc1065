package dev.sluice.tls;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * Chooses the server's certificate in the handshake, the same for every engine (Jetty and Netty both
 * hand the JDK's {@code SSLEngine} this key manager): the first certificate whose DNS names cover the
 * server name the client sent (SNI) and whose key fits the signature the handshake needs, else the
 * default one.
 *
 * <p>A rotation swaps the certificates between handshakes. An alias names its generation ({@code
 * 3.1}: generation 3, certificate 1), and the one generation before the current stays readable, so
 * a handshake that chose an alias just before a swap still gets that certificate's chain and key.
 */
final class SniKeyManager extends X509ExtendedKeyManager {

    private record Generation(long number, ServerCertificates certificates) {}

    private volatile Generation current;
    private volatile Generation previous;

    SniKeyManager(ServerCertificates first) {
        this.current = new Generation(1, first);
        this.previous = current;
    }

    /** New handshakes choose from {@code next} from now on. */
    synchronized void swap(ServerCertificates next) {
        Generation was = current;
        previous = was;
        current = new Generation(was.number() + 1, next);
    }

    ServerCertificates current() {
        return current.certificates();
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        return choose(keyType, engine == null ? null : engine.getHandshakeSession());
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return choose(keyType, socket instanceof SSLSocket ssl ? ssl.getHandshakeSession() : null);
    }

    private String choose(String keyType, SSLSession handshake) {
        Generation g = current;
        List<ServerCertificates.Entry> entries = g.certificates().entries();
        String serverName = serverName(handshake);
        if (serverName != null) {
            for (int i = 0; i < entries.size(); i++) {
                ServerCertificates.Entry entry = entries.get(i);
                if (entry.keyType().equals(keyType) && entry.covers(serverName)) {
                    return alias(g, i);
                }
            }
        }
        return entries.get(0).keyType().equals(keyType) ? alias(g, 0) : null;
    }

    private static String serverName(SSLSession handshake) {
        if (handshake instanceof ExtendedSSLSession extended) {
            for (SNIServerName name : extended.getRequestedServerNames()) {
                if (name instanceof SNIHostName host) {
                    return host.getAsciiName().toLowerCase(Locale.ROOT);
                }
            }
        }
        return null;
    }

    private static String alias(Generation g, int index) {
        return g.number() + "." + index;
    }

    private ServerCertificates.Entry entry(String alias) {
        if (alias == null) {
            return null;
        }
        int dot = alias.indexOf('.');
        if (dot < 0) {
            return null;
        }
        long number;
        int index;
        try {
            number = Long.parseLong(alias.substring(0, dot));
            index = Integer.parseInt(alias.substring(dot + 1));
        } catch (NumberFormatException e) {
            return null;
        }
        for (Generation g : new Generation[] {current, previous}) {
            if (g.number() == number
                    && index >= 0
                    && index < g.certificates().entries().size()) {
                return g.certificates().entries().get(index);
            }
        }
        return null;
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        ServerCertificates.Entry entry = entry(alias);
        return entry == null ? null : entry.chain().toArray(X509Certificate[]::new);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        ServerCertificates.Entry entry = entry(alias);
        return entry == null ? null : entry.key();
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        Generation g = current;
        List<String> aliases = new ArrayList<>();
        List<ServerCertificates.Entry> entries = g.certificates().entries();
        for (int i = 0; i < entries.size(); i++) {
            if (entries.get(i).keyType().equals(keyType)) {
                aliases.add(alias(g, i));
            }
        }
        return aliases.isEmpty() ? null : aliases.toArray(String[]::new);
    }

    /** The gateway is never a TLS client with these keys. */
    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return null;
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
        return null;
    }
}
