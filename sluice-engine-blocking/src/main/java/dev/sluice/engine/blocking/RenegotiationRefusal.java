package dev.sluice.engine.blocking;

import dev.sluice.observe.ClientProtocolError;
import dev.sluice.observe.ClientProtocolErrors;
import dev.sluice.tls.ClientRenegotiation;
import java.nio.ByteBuffer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.io.ssl.SslHandshakeListener;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * Jetty's TLS factory, whose connections refuse a client-initiated renegotiation by closing the
 * connection at once, as the reactive engine's {@code TlsGuard} does, and whose failed handshakes are
 * counted as client protocol errors (Jetty logs them at DEBUG). Jetty alone, with renegotiation
 * disallowed, ends such a connection with a close_notify: a graceful close that a scanner cannot tell
 * from a renegotiation that went through and a session the client then ended (testssl.sh reported it
 * HIGH one run in two). Here a record that core {@link ClientRenegotiation} calls a renegotiation is
 * never given to the engine: the network connection is closed under it, so no answer of any kind goes
 * back, and the refusal is counted once, as {@code tls_renegotiation} (not also as a failed
 * handshake).
 */
final class RenegotiationRefusal extends SslConnectionFactory {

    private final ClientProtocolErrors errors;

    RenegotiationRefusal(SslContextFactory.Server context, String next, ClientProtocolErrors errors) {
        super(context, next);
        this.errors = errors;
        addBean(new SslHandshakeListener() {
            @Override
            public void handshakeFailed(Event event, Throwable failure) {
                if (!(failure instanceof Refused)) { // counted as what it is, where it was refused
                    errors.report(ClientProtocolError.TLS_HANDSHAKE, failure);
                }
            }
        });
    }

    @Override
    protected SslConnection newSslConnection(Connector connector, EndPoint endPoint, SSLEngine engine) {
        return new SslConnection(
                connector.getByteBufferPool(),
                connector.getExecutor(),
                getSslContextFactory(),
                endPoint,
                engine,
                isDirectBuffersForEncryption(),
                isDirectBuffersForDecryption()) {
            @Override
            protected SSLEngineResult unwrap(SSLEngine sslEngine, ByteBuffer in, ByteBuffer out) throws SSLException {
                if (in.hasRemaining()
                        && ClientRenegotiation.refused(
                                in.get(in.position()) & 0xff,
                                sslEngine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING,
                                sslEngine.getSession().getProtocol())) {
                    Refused refused = new Refused();
                    errors.report(ClientProtocolError.TLS_RENEGOTIATION, refused);
                    getEndPoint().close(refused); // the network's end point: nothing more is written
                    throw refused;
                }
                return super.unwrap(sslEngine, in, out);
            }
        };
    }

    /** The refusal, as Jetty's TLS connection sees it: a handshake that failed. */
    private static final class Refused extends SSLHandshakeException {
        Refused() {
            super("client-initiated renegotiation refused");
        }
    }
}
