package dev.sluice.engine.blocking;

import dev.sluice.observe.ClientProtocolError;
import dev.sluice.observe.ClientProtocolErrors;
import java.util.List;
import org.eclipse.jetty.http2.ErrorCode;
import org.eclipse.jetty.http2.HTTP2Connection;
import org.eclipse.jetty.http2.HTTP2Session;
import org.eclipse.jetty.http2.api.Session;
import org.eclipse.jetty.http2.api.Stream;
import org.eclipse.jetty.http2.api.server.ServerSessionListener;
import org.eclipse.jetty.http2.frames.DataFrame;
import org.eclipse.jetty.http2.frames.Frame;
import org.eclipse.jetty.http2.frames.GoAwayFrame;
import org.eclipse.jetty.http2.frames.HeadersFrame;
import org.eclipse.jetty.http2.frames.ResetFrame;
import org.eclipse.jetty.http2.server.AbstractHTTP2ServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.http2.server.HTTP2ServerConnectionFactory;
import org.eclipse.jetty.io.AbstractConnection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpStream;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's HTTP/2 server where it strays from RFC 9113 (h2spec's cases), by subclassing its connection
 * factories rather than forking them:
 *
 * <pre>
 *   the client sends          Jetty alone                        here
 *   a malformed head (§8.1.1) a 400 response (its HTTP/1.1 wording) RST_STREAM PROTOCOL_ERROR
 *   RST_STREAM (§5.4.2)       RST_STREAM CANCEL back, once the       nothing back
 *                             request it cut short fails
 *   DATA on a stream it reset nothing (ignored)                     RST_STREAM STREAM_CLOSED
 *   or that ended both ways
 *   (§5.1, §6.1)
 * </pre>
 *
 * Jetty's decoder finds every malformed head (upper-case names, unknown, response, repeated or missing
 * pseudo-header fields, an empty :path, connection-specific fields, TE other than trailers) and hands
 * it to the session listener as a stream failure instead of a request; the listener here resets the
 * stream, so no request is made of it: the handler never runs and nothing reaches an upstream. The
 * reset counts towards the connection's reset rate like any other.
 *
 * <p>Every RST_STREAM and GOAWAY the session sends whose code says the client broke the protocol
 * ({@link ClientProtocolError#http2ErrorCode}: these resets, Jetty's own for what its parser refuses)
 * is counted once as a client protocol error, as the reactive engine counts its own ({@link
 * ClientProtocolErrors}: a line per kind a minute, no stack trace).
 */
final class StrictHttp2 {

    private StrictHttp2() {}

    /** {@code h2} over TLS (chosen by ALPN). */
    static AbstractHTTP2ServerConnectionFactory overTls(HttpConfiguration http, ClientProtocolErrors errors) {
        return new Tls(http, errors);
    }

    /** {@code h2c}: prior knowledge, or an HTTP/1.1 connection's upgrade. */
    static AbstractHTTP2ServerConnectionFactory cleartext(HttpConfiguration http, ClientProtocolErrors errors) {
        return new Cleartext(http, errors);
    }

    /**
     * A customizer that keeps the gateway's own failures off streams that are gone: no RST_STREAM on a
     * closed stream (RFC 9113 §5.1: nothing but PRIORITY is sent on one), in particular none in answer
     * to the client's own RST_STREAM (§5.4.2). Jetty closes and forgets a stream the client resets,
     * then fails its request; when the handler's callback fails in turn, Jetty's stream resets the
     * stream again with CANCEL, whatever its state. The wrapper completes such a request as Jetty
     * completes a closed stream's successful one (which sends nothing); a stream that is still open is
     * reset as before (a response cut short must still be told apart from a whole one).
     */
    static HttpConfiguration.Customizer closedStreamsStayClosed() {
        return (request, responseHeaders) -> {
            keepClosed(request);
            return request;
        };
    }

    /**
     * Guards an HTTP/2 request's stream as {@link #closedStreamsStayClosed} says; nothing for HTTP/1.1.
     * Also called by the error handler: a stream the client resets before its request reaches the
     * handler never meets the customizers, and Jetty answers its failure through the error handler.
     */
    static void keepClosed(Request request) {
        if (request.getConnectionMetaData().getConnection() instanceof HTTP2Connection h2) {
            HTTP2Session session = h2.getSession();
            request.addHttpStreamWrapper(stream -> new ClosedStreamGuard(stream, session));
        }
    }

    /** An HTTP/2 request's stream whose failures send nothing once the session has let go of it. */
    private static final class ClosedStreamGuard extends HttpStream.Wrapper {

        private final HTTP2Session session;

        ClosedStreamGuard(HttpStream stream, HTTP2Session session) {
            super(stream);
            this.session = session;
        }

        /** Whether the session has let go of the stream: closed both ways, or reset by either side. */
        private boolean gone() {
            try {
                return session.getStream(Integer.parseInt(getId())) == null;
            } catch (NumberFormatException notAStreamId) {
                return false;
            }
        }

        @Override
        public void failed(Throwable x) {
            if (gone()) {
                // completed as Jetty completes a closed stream's request: no frame; a channel whose stream
                // failed (the client's reset) is not recycled, Jetty's onFailure has seen to that
                super.succeeded();
            } else {
                super.failed(x);
            }
        }

        @Override
        public Runnable cancelSend(Throwable cause, Callback appCallback) {
            return gone() ? () -> appCallback.failed(cause) : super.cancelSend(cause, appCallback);
        }
    }

    private static void watchClosedStreams(AbstractConnection connection, ClientProtocolErrors errors) {
        if (connection instanceof HTTP2Connection h2) {
            h2.getSession().addEventListener(new ClosedStreamData(errors));
        }
    }

    /**
     * DATA on a closed stream, as RFC 9113 has it (§5.1 "closed", §6.1): a stream error of type
     * STREAM_CLOSED when the client closed the stream (its RST_STREAM, or its END_STREAM and the
     * gateway's), ignored when the gateway reset it (the client may have sent the frame before the
     * reset reached it). Jetty forgets a closed stream and ignores its DATA (returning the flow-control
     * credit, counting it in the connection's rate control); this listener, told of every frame in and
     * out of one connection, answers that DATA first. It remembers the streams the gateway reset
     * lately ({@link #REMEMBERED} of them; a frame for one reset long ago is answered, which costs the
     * client nothing); its own STREAM_CLOSED resets are among them, so a stream is answered once
     * however many frames follow. It also counts the session's errors that are the client's.
     */
    static final class ClosedStreamData implements HTTP2Session.FrameListener {

        static final int REMEMBERED = 64;

        private final ClientProtocolErrors errors;

        /**
         * The last client stream a HEADERS frame opened (not stream 1 of an h2c upgrade, whose DATA after
         * its end Jetty alone ignores); written by the one reader of the connection's frames at a time.
         */
        private volatile int lastClientStream;
        /** The streams the gateway reset lately, a ring; guarded by this (outgoing frames come from any thread). */
        private final int[] resetByGateway = new int[REMEMBERED];

        private int nextReset;

        ClosedStreamData(ClientProtocolErrors errors) {
            this.errors = errors;
        }

        @Override
        public void onIncomingFrame(Session session, Frame frame) {
            if (frame instanceof HeadersFrame headers
                    && (headers.getStreamId() & 1) == 1
                    && headers.getStreamId() > lastClientStream) {
                lastClientStream = headers.getStreamId();
            } else if (frame instanceof DataFrame data
                    && (data.getStreamId() & 1) == 1
                    && data.getStreamId() <= lastClientStream // a higher one is idle: Jetty closes the connection
                    && session instanceof HTTP2Session h2
                    && h2.getStream(data.getStreamId()) == null
                    && !resetByGateway(data.getStreamId())) {
                h2.frames(
                        null,
                        List.of(new ResetFrame(data.getStreamId(), ErrorCode.STREAM_CLOSED_ERROR.code)),
                        Callback.NOOP);
            }
        }

        @Override
        public void onOutgoingFrame(Session session, Frame frame) {
            if (frame instanceof ResetFrame reset) {
                synchronized (this) {
                    resetByGateway[nextReset] = reset.getStreamId();
                    nextReset = (nextReset + 1) % REMEMBERED;
                }
                if (ClientProtocolError.http2ErrorCode(reset.getError())) {
                    errors.report(ClientProtocolError.HTTP2, null);
                }
            } else if (frame instanceof GoAwayFrame goAway && ClientProtocolError.http2ErrorCode(goAway.getError())) {
                errors.report(ClientProtocolError.HTTP2, null);
            }
        }

        private synchronized boolean resetByGateway(int stream) {
            for (int reset : resetByGateway) {
                if (reset == stream) {
                    return true;
                }
            }
            return false;
        }
    }

    /** A head Jetty's decoder refused: a stream error of type PROTOCOL_ERROR (RFC 9113 §8.1.1). */
    private static void malformed(Stream stream, Callback callback) {
        stream.reset(new ResetFrame(stream.getId(), ErrorCode.PROTOCOL_ERROR.code), callback);
    }

    private static final class Tls extends HTTP2ServerConnectionFactory {

        private final ClientProtocolErrors errors;

        Tls(HttpConfiguration http, ClientProtocolErrors errors) {
            super(http);
            this.errors = errors;
        }

        @Override
        protected ServerSessionListener newSessionListener(Connector connector, EndPoint endPoint) {
            return new Listener(endPoint);
        }

        @Override
        protected <T extends AbstractConnection> T configure(T connection, Connector connector, EndPoint endPoint) {
            watchClosedStreams(connection, errors);
            return super.configure(connection, connector, endPoint);
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

        private final ClientProtocolErrors errors;

        Cleartext(HttpConfiguration http, ClientProtocolErrors errors) {
            super(http);
            this.errors = errors;
        }

        @Override
        protected ServerSessionListener newSessionListener(Connector connector, EndPoint endPoint) {
            return new Listener(endPoint);
        }

        @Override
        protected <T extends AbstractConnection> T configure(T connection, Connector connector, EndPoint endPoint) {
            watchClosedStreams(connection, errors);
            return super.configure(connection, connector, endPoint);
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
