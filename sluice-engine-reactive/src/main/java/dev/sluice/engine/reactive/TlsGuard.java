package dev.sluice.engine.reactive;

import dev.sluice.observe.ClientProtocolError;
import dev.sluice.observe.ClientProtocolErrors;
import dev.sluice.tls.ClientRenegotiation;
import dev.sluice.tls.PlainHttpOnTls;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.nio.channels.ClosedChannelException;
import javax.net.ssl.SSLException;
import reactor.netty.NettyPipeline;

/**
 * The TLS listener's guards, around Netty's {@link SslHandler}:
 *
 * <ul>
 *   <li>before it, on the raw bytes: plain HTTP as a connection's first bytes gets {@code 400
 *       plain_http_on_tls_port} and a close (Netty's handler would hex-dump the bytes, headers and
 *       tokens included, into a WARN with a stack trace); and a client-initiated renegotiation, as
 *       core {@link ClientRenegotiation} decides it (the JDK's {@code SSLEngine} accepts one, and its
 *       switch {@code jdk.tls.rejectClientInitiatedRenegotiation} is JVM-wide and read once), closes
 *       the connection. Records are followed by their headers only; on TLS 1.3, which has no
 *       renegotiation, the guard leaves after the handshake;
 *   <li>after it: a failed handshake or a TLS error is counted and logged as a client protocol error
 *       ({@link ClientProtocolErrors}: a line per kind a minute, no stack trace) and the connection
 *       closed, instead of reaching ALPN's handler, which logs each with a stack trace.
 * </ul>
 */
final class TlsGuard extends ChannelInboundHandlerAdapter {

    static final String NAME = "sluice.tlsGuard";
    static final String ERRORS_NAME = "sluice.tlsErrors";

    private static final int HEADER = ClientRenegotiation.RECORD_HEADER_BYTES;

    private final ClientProtocolErrors errors;
    private boolean first = true;
    private boolean done; // the first handshake ended
    private String protocol; // the protocol it chose
    /** Bytes of the current record still to come before the next record's header. */
    private long skip;
    /** A record header split across reads: its bytes so far. */
    private final byte[] header = new byte[HEADER];

    private int headerBytes;

    private TlsGuard(ClientProtocolErrors errors) {
        this.errors = errors;
    }

    /** Puts the guards around the TLS handler, when the pipeline has one. */
    static void install(ChannelPipeline pipeline, ClientProtocolErrors errors) {
        if (!(pipeline.get(NettyPipeline.SslHandler) instanceof SslHandler ssl)) {
            return;
        }
        TlsGuard guard = new TlsGuard(errors);
        pipeline.addBefore(NettyPipeline.SslHandler, NAME, guard);
        pipeline.addAfter(NettyPipeline.SslHandler, ERRORS_NAME, new Errors(errors));
        ssl.handshakeFuture().addListener(handshake -> {
            if (!handshake.isSuccess()) {
                return;
            }
            String protocol = ssl.engine().getSession().getProtocol();
            if (ClientRenegotiation.possible(protocol)) {
                guard.protocol = protocol;
                guard.done = true;
            } else if (pipeline.get(NAME) == guard) { // TLS 1.3: nothing to renegotiate
                pipeline.remove(guard);
            }
        });
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf bytes) || !bytes.isReadable()) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (first) {
            first = false;
            if (PlainHttpOnTls.plainHttp(bytes.getUnsignedByte(bytes.readerIndex()))) {
                bytes.release();
                errors.report(ClientProtocolError.PLAIN_HTTP_ON_TLS, null);
                ctx.channel().config().setAutoRead(false);
                ctx.writeAndFlush(Unpooled.wrappedBuffer(PlainHttpOnTls.REJECTION.wire()))
                        .addListener(ChannelFutureListener.CLOSE);
                return;
            }
        }
        if (renegotiates(bytes)) {
            bytes.release();
            errors.report(ClientProtocolError.TLS_RENEGOTIATION, null);
            ctx.close();
            return;
        }
        ctx.fireChannelRead(msg);
    }

    /** Follows the record headers in {@code bytes}: whether one is a renegotiation ({@link ClientRenegotiation}). */
    private boolean renegotiates(ByteBuf bytes) {
        int at = bytes.readerIndex();
        int end = bytes.writerIndex();
        while (at < end) {
            if (skip > 0) {
                long step = Math.min(skip, end - at);
                skip -= step;
                at += (int) step;
                continue;
            }
            header[headerBytes++] = bytes.getByte(at++);
            if (headerBytes < HEADER) {
                continue;
            }
            headerBytes = 0;
            if (ClientRenegotiation.refused(header[0] & 0xff, done, protocol)) {
                return true;
            }
            skip = ((header[3] & 0xff) << 8) | (header[4] & 0xff);
        }
        return false;
    }

    /** After the TLS handler: its failures become counted client protocol errors. */
    private static final class Errors extends ChannelInboundHandlerAdapter {
        private final ClientProtocolErrors errors;
        private boolean reported; // a failed handshake comes as an exception and as an event: one error

        Errors(ClientProtocolErrors errors) {
            this.errors = errors;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            if (event instanceof SslHandshakeCompletionEvent completion && !completion.isSuccess()) {
                if (!(completion.cause() instanceof ClosedChannelException)) { // closed first: no error
                    report(completion.cause());
                }
                ctx.close();
                return;
            }
            ctx.fireUserEventTriggered(event);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            Throwable tls = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
            if (tls instanceof SSLException) {
                report(tls);
                ctx.close();
                return;
            }
            ctx.fireExceptionCaught(cause);
        }

        private void report(Throwable cause) {
            if (!reported) {
                reported = true;
                errors.report(ClientProtocolError.TLS_HANDSHAKE, cause);
            }
        }
    }
}
