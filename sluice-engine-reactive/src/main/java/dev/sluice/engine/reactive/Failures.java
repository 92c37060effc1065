package dev.sluice.engine.reactive;

import dev.sluice.http.UpstreamFailure;
import dev.sluice.upstream.UpstreamCall;
import dev.sluice.upstream.UpstreamCall.Action;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.netty.handler.timeout.ReadTimeoutException;
import java.io.IOException;
import javax.net.ssl.SSLException;

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

    /**
     * The core's failure of a call, as the error a Reactor signal carries: the one place this engine
     * turns an {@link UpstreamCall} answer that is not a try (its {@link Action.Fail}) into an error;
     * {@link #classify} gives the failure back, and the core's {@link UpstreamFailure#status} renders it.
     */
    static final class Failed extends RuntimeException {
        private final UpstreamFailure failure;

        Failed(UpstreamFailure failure) {
            super(failure.reason(), null, false, false);
            this.failure = failure;
        }
    }

    /**
     * The error for the core's answer to a try it did not send: its {@link Action.Fail}'s failure (every
     * breaker open, the try's timer); any other answer, never a first try's, is an endpoint refused.
     */
    static Failed notSent(Action action) {
        return new Failed(action instanceof Action.Fail fail ? fail.failure() : UpstreamFailure.REFUSED);
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
        if (t instanceof SslHandshakeTimeoutException || t instanceof ConnectTimeoutException) {
            return UpstreamFailure.CONNECT_TIMEOUT; // Netty's, before the JDK's types they extend
        }
        if (t instanceof Lane.TlsHandshakeFailed) {
            return UpstreamFailure.TLS_HANDSHAKE;
        }
        if (t instanceof DecoderException && t.getCause() instanceof SSLException) {
            return null; // SslHandler's: its cause says what failed
        }
        if (t instanceof Deadline) {
            return UpstreamFailure.TIMEOUT;
        }
        if (t instanceof Failed failed) {
            return failed.failure;
        }
        if (t instanceof Lane.Exhausted) {
            return UpstreamFailure.POOL_EXHAUSTED;
        }
        if (t instanceof ReadTimeoutException) {
            return UpstreamFailure.READ_TIMEOUT;
        }
        UpstreamFailure jdk = UpstreamFailure.ofJdk(t); // the core's reading of the JDK's types
        if (jdk != null) {
            return jdk;
        }
        if (t instanceof DecoderException
                || t instanceof IllegalArgumentException
                || t instanceof io.netty.handler.codec.http2.Http2Exception) {
            // an upstream that breaks HTTP/2 (an h2c upstream speaking HTTP/1.1, a connection error)
            return UpstreamFailure.BAD_RESPONSE;
        }
        if (t instanceof IOException) {
            return UpstreamFailure.RESET;
        }
        return null;
    }
}
