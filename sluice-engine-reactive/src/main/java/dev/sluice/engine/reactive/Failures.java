package dev.sluice.engine.reactive;

import dev.sluice.http.UpstreamFailure;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.netty.handler.timeout.ReadTimeoutException;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.channels.ClosedChannelException;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;

/** Which {@link UpstreamFailure} an exception from the upstream client ({@link Lane}, {@link UpstreamConnection}) stands for. */
final class Failures {

    private Failures() {}

    /** The route's (or a part's) own timeout passed: raised by the engine, never by the client. */
    static final class Deadline extends RuntimeException {
        static final Deadline INSTANCE = new Deadline();

        private Deadline() {
            super("the route's timeout passed", null, false, false);
        }
    }

    /** Every endpoint's breaker refused the call: it was not made. */
    static final class CircuitOpen extends RuntimeException {
        static final CircuitOpen INSTANCE = new CircuitOpen();

        private CircuitOpen() {
            super("circuit breaker open", null, false, false);
        }
    }

    /**
     * Whether an {@link UpstreamFailure} stands for {@code error}: something in its cause chain is one
     * of the upstream client's failures. Anything else is a failure of the gateway itself, which
     * {@link #classify} would mislabel as a bad upstream response.
     */
    static boolean isUpstreams(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (direct(t) != null) {
                return true;
            }
        }
        return false;
    }

    static UpstreamFailure classify(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            UpstreamFailure failure = direct(t);
            if (failure != null) {
                return failure;
            }
        }
        return UpstreamFailure.BAD_RESPONSE;
    }

    private static UpstreamFailure direct(Throwable t) {
        if (t instanceof SslHandshakeTimeoutException) {
            return UpstreamFailure.CONNECT_TIMEOUT;
        }
        if (t instanceof Lane.TlsHandshakeFailed || t instanceof SSLHandshakeException) {
            // the second: a TLS 1.3 server refuses a client certificate after the client's handshake is done
            return UpstreamFailure.TLS_HANDSHAKE;
        }
        if (t instanceof DecoderException && t.getCause() instanceof SSLException) {
            return null; // SslHandler's: its cause says what failed
        }
        if (t instanceof Deadline) {
            return UpstreamFailure.TIMEOUT;
        }
        if (t instanceof CircuitOpen) {
            return UpstreamFailure.CIRCUIT_OPEN;
        }
        if (t instanceof Lane.Exhausted) {
            return UpstreamFailure.POOL_EXHAUSTED;
        }
        if (t instanceof ConnectTimeoutException) {
            return UpstreamFailure.CONNECT_TIMEOUT;
        }
        if (t instanceof java.net.UnknownHostException) { // Netty's resolver: no address for the name
            return UpstreamFailure.UNRESOLVED;
        }
        if (t instanceof ConnectException) {
            return UpstreamFailure.REFUSED;
        }
        if (t instanceof ReadTimeoutException) {
            return UpstreamFailure.READ_TIMEOUT;
        }
        if (t instanceof ClosedChannelException) {
            return UpstreamFailure.RESET;
        }
        if (t instanceof DecoderException || t instanceof IllegalArgumentException) {
            return UpstreamFailure.BAD_RESPONSE;
        }
        if (t instanceof IOException) {
            return UpstreamFailure.RESET;
        }
        return null;
    }
}
