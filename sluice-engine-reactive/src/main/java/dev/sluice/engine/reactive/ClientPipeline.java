package dev.sluice.engine.reactive;

import dev.sluice.config.ServerLimits;
import dev.sluice.observe.GatewayObserver;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http2.Http2StreamChannel;
import reactor.netty.Connection;
import reactor.netty.NettyPipeline;

/**
 * Where the gateway's handlers go in a client connection's pipeline, for each protocol Reactor Netty
 * may set up on it:
 *
 * <pre>
 *   HTTP/1.1      ConnectionGuard ─ HttpCodec ─ RequestHeadCheck ─ RequestBodyCheck ─ … ─ WriteGate ─ bridge
 *   h2c offered   ConnectionGuard ─ (Netty's prior-knowledge and upgrade handlers) ─ HttpCodec … as above,
 *                 until the client speaks h2: then RequestHeadCheck steps aside, as below
 *   TLS + ALPN    ConnectionGuard ─ ALPN ─ AlpnChosen, which puts RequestHeadCheck in once HTTP/1.1 is chosen
 *   h2 (either)   ConnectionGuard ─ Http2StreamCheck.ClosedStreams ─ Http2FrameCodec ─ Http2StreamCheck ─
 *                 multiplexer (the checks put in before the first frame, Http2StreamCheck.installIfH2), and per stream:
 *                 H2ToHttp11Codec ─ RequestBodyCheck ─ … ─ WriteGate ─ bridge
 * </pre>
 *
 * On TLS, {@link TlsGuard} sits before Netty's TLS handler (plain HTTP refused, renegotiation
 * refused) and its error handler after it; {@link ClientErrors} is the connection's last handler (and
 * a stream's, before its bridge), where a client's protocol errors end as a counted, rate-limited line.
 *
 * <p>On h2, the connection's guard counts streams as it counts HTTP/1.1 requests (open from the head to
 * the answer's end, for the idle timeout); the head checks {@link RequestHeadCheck} makes on HTTP/1.1
 * are made per stream by {@link GatewayHandler}, and the body limit by the stream's own {@link
 * RequestBodyCheck}; a stream's {@link WriteGate} sees the stream's writability, which is its
 * flow-control window, so a composition waits for its own stream's client only.
 */
final class ClientPipeline {

    private ClientPipeline() {}

    /** Once per client connection, when Reactor Netty has set up its pipeline. */
    static void install(
            ChannelPipeline pipeline,
            ServerLimits limits,
            ConnectionGuard.Connections open,
            GatewayObserver observer,
            ClientErrors errors) {
        TlsGuard.install(pipeline, errors.errors());
        pipeline.addLast(ClientErrors.NAME, errors);
        ConnectionGuard guard = new ConnectionGuard(limits, open, observer);
        if (pipeline.get(NettyPipeline.HttpCodec) != null) { // HTTP/1.1 only
            pipeline.addBefore(NettyPipeline.HttpCodec, ConnectionGuard.NAME, guard);
        } else if (pipeline.get(NettyPipeline.H2OrHttp11Codec) != null) { // TLS: ALPN chooses h2 or HTTP/1.1
            pipeline.addBefore(NettyPipeline.H2OrHttp11Codec, ConnectionGuard.NAME, guard);
        } else { // plain with h2c: Netty's cleartext handlers (unnamed) come first, and the guard before them
            pipeline.addFirst(ConnectionGuard.NAME, guard);
        }
        RequestHeadCheck heads = new RequestHeadCheck(limits, guard, observer);
        if (pipeline.get(NettyPipeline.HttpCodec) != null) {
            pipeline.addAfter(NettyPipeline.HttpCodec, RequestHeadCheck.NAME, heads);
        } else if (pipeline.get(NettyPipeline.HttpTrafficHandler) != null) { // after h2c's codec and upgrade handler
            pipeline.addBefore(NettyPipeline.HttpTrafficHandler, RequestHeadCheck.NAME, heads);
        } else {
            pipeline.addBefore(NettyPipeline.ReactiveBridge, AlpnChosen.NAME, new AlpnChosen(heads, errors));
        }
    }

    /**
     * Once per request (Reactor Netty's {@code doOnConnection}): on HTTP/1.1 the first request of a
     * connection installs what stays for its life; on h2 every stream gets its own.
     */
    static void installPerRequest(Connection connection, ClientErrors errors) {
        Channel channel = connection.channel();
        ChannelPipeline pipeline = channel.pipeline();
        if (pipeline.get(WriteGate.NAME) != null) {
            return;
        }
        if (channel instanceof Http2StreamChannel stream) {
            if (stream.parent().pipeline().get(ConnectionGuard.NAME) instanceof ConnectionGuard guard) {
                Http2StreamCheck.installIfH2(stream.parent().pipeline()); // in case no earlier step put it in
                pipeline.addBefore(NettyPipeline.ReactiveBridge, WriteGate.NAME, new WriteGate());
                pipeline.addBefore(NettyPipeline.ReactiveBridge, ClientErrors.NAME, errors);
                pipeline.addAfter(NettyPipeline.H2ToHttp11Codec, RequestBodyCheck.NAME, new RequestBodyCheck(guard));
                guard.streamOpened();
                stream.closeFuture().addListener(closed -> guard.answerEnded());
            }
        } else if (pipeline.get(ConnectionGuard.NAME) instanceof ConnectionGuard guard) {
            pipeline.addBefore(NettyPipeline.ReactiveBridge, WriteGate.NAME, new WriteGate());
            pipeline.addAfter(RequestHeadCheck.NAME, RequestBodyCheck.NAME, new RequestBodyCheck(guard));
        }
    }

    /**
     * Waits, on a TLS connection, for ALPN's choice: the first bytes after the handshake pass here once
     * Reactor Netty has set up the chosen protocol's handlers after this one. HTTP/1.1 gets its {@link
     * RequestHeadCheck}; h2 needs none. Either way this handler then leaves.
     */
    private static final class AlpnChosen extends ChannelInboundHandlerAdapter {
        static final String NAME = "sluice.alpnChosen";
        private final RequestHeadCheck heads;
        private final ClientErrors errors;

        AlpnChosen(RequestHeadCheck heads, ClientErrors errors) {
            this.heads = heads;
            this.errors = errors;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ChannelPipeline pipeline = ctx.pipeline();
            if (pipeline.get(NettyPipeline.HttpTrafficHandler) != null
                    && pipeline.get(NettyPipeline.HttpCodec) != null) {
                pipeline.addAfter(NettyPipeline.HttpCodec, RequestHeadCheck.NAME, heads);
            }
            Http2StreamCheck.installIfH2(pipeline);
            if (pipeline.last() != errors) { // the chosen protocol's handlers went in after it: last again
                pipeline.remove(errors);
                pipeline.addLast(ClientErrors.NAME, errors);
            }
            pipeline.remove(this);
            ctx.fireChannelRead(msg);
        }
    }
}
