package dev.sluice.engine.blocking;

import dev.sluice.observe.ClientProtocolError;
import dev.sluice.observe.ClientProtocolErrors;
import dev.sluice.tls.PlainHttpOnTls;
import java.nio.ByteBuffer;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.DetectorConnectionFactory;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Callback;

/**
 * The TLS listener's first factory: a connection whose first bytes are TLS goes on to Jetty's TLS
 * factory; one whose first bytes are not (plain HTTP sent to the TLS port) gets {@code 400
 * plain_http_on_tls_port} in plain HTTP, then a close, and is counted as a client protocol error,
 * none of its bytes logged (docs/ENGINE-CONTRACT.md, "TLS").
 */
final class PlainHttpRefusal extends DetectorConnectionFactory {

    private final ClientProtocolErrors errors;

    PlainHttpRefusal(SslConnectionFactory tls, ClientProtocolErrors errors) {
        super(tls);
        this.errors = errors;
    }

    @Override
    protected void nextProtocol(Connector connector, EndPoint endPoint, ByteBuffer buffer) {
        boolean plainHttp = buffer.hasRemaining() && PlainHttpOnTls.plainHttp(buffer.get(buffer.position()) & 0xff);
        buffer.position(buffer.limit()); // never read again, never logged
        if (!plainHttp) {
            errors.report(ClientProtocolError.TLS_HANDSHAKE, null);
            endPoint.close();
            return;
        }
        errors.report(ClientProtocolError.PLAIN_HTTP_ON_TLS, null);
        endPoint.write(
                Callback.from(endPoint::close, failed -> endPoint.close()),
                ByteBuffer.wrap(PlainHttpOnTls.REJECTION.wire()));
    }
}
