package dev.sluice.engine.blocking;

import dev.sluice.observe.ClientProtocolError;
import dev.sluice.observe.ClientProtocolErrors;
import java.nio.ByteBuffer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ssl.SslConnection;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * Jetty's TLS factory whose connections refuse a client-initiated renegotiation (TLS 1.2) by closing
 * the connection at once, as the reactive engine's {@code TlsGuard} does. Jetty alone, with
 * renegotiation disallowed, ends such a connection with a close_notify: a graceful close that a
 * scanner cannot tell from a renegotiation that went through and a session the client then ended
 * (testssl.sh reported it HIGH one run in two). Here a handshake record that arrives once the first
 * handshake is done (TLS 1.2; TLS 1.3 has no renegotiation and hides its records' types) is never
 * given to the engine: the network connection is closed under it, so no answer of any kind goes
 * back, and the refusal is counted as a client protocol error.
 */
final class RenegotiationRefusal extends SslConnectionFactory {

    private static final byte HANDSHAKE = 22; // TLS record content type

    private final ClientProtocolErrors errors;

    RenegotiationRefusal(SslContextFactory.Server context, String next, ClientProtocolErrors errors) {
        super(context, next);
        this.errors = errors;
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
                        && in.get(in.position()) == HANDSHAKE
                        && sslEngine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING
                        && "TLSv1.2".equals(sslEngine.getSession().getProtocol())) {
                    SSLHandshakeException refused = new SSLHandshakeException("client-initiated renegotiation refused");
                    errors.report(ClientProtocolError.TLS_RENEGOTIATION, refused);
                    getEndPoint().close(refused); // the network's end point: nothing more is written
                    throw refused;
                }
                return super.unwrap(sslEngine, in, out);
            }
        };
    }
}
