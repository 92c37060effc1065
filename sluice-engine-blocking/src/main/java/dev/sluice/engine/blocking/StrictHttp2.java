package dev.sluice.engine.blocking;

import org.eclipse.jetty.http2.ErrorCode;
import org.eclipse.jetty.http2.api.Stream;
import org.eclipse.jetty.http2.api.server.ServerSessionListener;
import org.eclipse.jetty.http2.frames.ResetFrame;
import org.eclipse.jetty.http2.server.AbstractHTTP2ServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's HTTP/2 server where it strays from RFC 9113 (h2spec's cases), by subclassing its connection
 * factories rather than forking them:
 *
 * <pre>
 *   the client sends          Jetty alone                        here
 *   a malformed head (§8.1.1) a 400 response (its HTTP/1.1 wording) RST_STREAM PROTOCOL_ERROR
 * </pre>
 *
 * Jetty's decoder finds every malformed head (upper-case names, unknown, response, repeated or missing
 * pseudo-header fields, an empty :path, connection-specific fields, TE other than trailers) and hands
 * it to the session listener as a stream failure instead of a request; the listener here resets the
 * stream, so no request is made of it: the handler never runs and nothing reaches an upstream. The
 * reset counts towards the connection's reset rate like any other.
 */
final class StrictHttp2 {

    private StrictHttp2() {}

    /** {@code h2} over TLS (chosen by ALPN). */
    static AbstractHTTP2ServerConnectionFactory overTls(HttpConfiguration http) {
        return new Tls(http);
    }

    /** {@code h2c}: prior knowledge, or an HTTP/1.1 connection's upgrade. */
    static AbstractHTTP2ServerConnectionFactory cleartext(HttpConfiguration http) {
        return new Cleartext(http);
    }

    /** A head Jetty's decoder refused: a stream error of type PROTOCOL_ERROR (RFC 9113 §8.1.1). */
    private static void malformed(Stream stream, Callback callback) {
        stream.reset(new ResetFrame(stream.getId(), ErrorCode.PROTOCOL_ERROR.code), callback);
    }

    private static final class Tls extends HTTP2ServerConnectionFactory {

        Tls(HttpConfiguration http) {
            super(http);
        }

        @Override
        protected ServerSessionListener newSessionListener(Connector connector, EndPoint endPoint) {
            return new Listener(endPoint);
        }

        private final class Listener extends HTTPServerSessionListener {

            Listener(EndPoint endPoint) {
                super(endPoint);
            }

            /** Called for a head that failed to decode only (Jetty answers it 400 otherwise). */
            @Override
            public void onStreamFailure(Stream stream, Throwable failure, Callback callback) {
                malformed(stream, callback);
            }
        }
    }

    private static final class Cleartext extends HTTP2CServerConnectionFactory {

        Cleartext(HttpConfiguration http) {
            super(http);
        }

        @Override
        protected ServerSessionListener newSessionListener(Connector connector, EndPoint endPoint) {
            return new Listener(endPoint);
        }

        private final class Listener extends HTTPServerSessionListener {

            Listener(EndPoint endPoint) {
                super(endPoint);
            }

            /** Called for a head that failed to decode only (Jetty answers it 400 otherwise). */
            @Override
            public void onStreamFailure(Stream stream, Throwable failure, Callback callback) {
                malformed(stream, callback);
            }
        }
    }
}
