package dev.sluice.engine.reactive;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.MonoSink;

/**
 * A WebSocket tunnel's client side, in the client connection's pipeline where the HTTP codec was
 * (after {@link ConnectionGuard}): bytes from the client go to the upstream connection and the
 * upstream's to the client, never parsed, each direction reading only while the other side takes
 * writes (auto-read off on both, a read asked for after each one that was written). Both connections
 * run on the client's loop, so the tunnel has one thread and no locks.
 *
 * <pre>
 *   client ──read──► WebSocketTunnel ──write──► upstream   (reads paused while upstream is unwritable)
 *   client ◄─write── WebSocketTunnel ◄──read─── upstream   (reads paused while client is unwritable)
 * </pre>
 *
 * A client's half close is passed on as one; the upstream's close closes the client once what it sent
 * is flushed; a tunnel silent both ways for {@code server.limits.websocket-idle-timeout} is closed.
 * The route's exchange completes when the client connection closes. Anything Reactor Netty writes
 * after the switch (an HTTP message for a response it thinks unanswered) is dropped here.
 */
final class WebSocketTunnel extends ChannelDuplexHandler {

    static final String NAME = "sluice.websocket";

    private final Channel upstream;
    private final MonoSink<Void> exchange;
    private final long idleNanos;
    private ChannelHandlerContext ctx;
    private long lastActivity = System.nanoTime();
    private ScheduledFuture<?> idleTimer;
    private boolean ended;
    private boolean clientDone; // the client shut its output: no more bytes from it
    private boolean upstreamDone; // likewise the upstream

    WebSocketTunnel(Channel upstream, MonoSink<Void> exchange, Duration idle) {
        this.upstream = upstream;
        this.exchange = exchange;
        this.idleNanos = Math.max(1, idle.toNanos());
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    /** Writes the 101's head to the client, then reads both sides. */
    void start(ByteBuf head) {
        Channel client = ctx.channel();
        if (!client.isActive()) { // the client left during the handshake: its close went by already
            head.release();
            end();
            return;
        }
        client.config().setAutoRead(false);
        upstream.config().setAutoRead(false);
        ctx.writeAndFlush(head);
        idleTimer = ctx.executor().schedule(this::checkIdle, idleNanos, TimeUnit.NANOSECONDS);
        client.read();
        upstream.read();
    }

    // ---- client side ----

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        lastActivity = System.nanoTime();
        if (msg instanceof ByteBuf bytes) {
            upstream.write(bytes, upstream.voidPromise());
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        upstream.flush();
        if (upstream.isWritable()) {
            ctx.read();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            upstream.read();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof ChannelInputShutdownEvent) {
            clientDone = true;
            halfClose(upstream, upstreamDone); // the client is done sending: so is the gateway, upstream
            return;
        }
        if (event instanceof ChannelInputShutdownReadComplete) {
            return;
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        end();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        end();
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        ReferenceCountUtil.release(msg); // Reactor Netty's: the exchange is a tunnel now
        promise.trySuccess();
    }

    // ---- upstream side, told by WebSocketRelay's handler ----

    void fromUpstream(ByteBuf bytes) {
        lastActivity = System.nanoTime();
        ctx.write(bytes, ctx.voidPromise());
    }

    void upstreamReadComplete() {
        ctx.flush();
        if (ctx.channel().isWritable()) {
            upstream.read();
        }
    }

    void upstreamWritabilityChanged() {
        if (upstream.isWritable()) {
            ctx.read();
        }
    }

    /** The upstream is done sending: so is the gateway, to the client. */
    void upstreamInputShutdown() {
        upstreamDone = true;
        halfClose(ctx.channel(), clientDone);
    }

    void upstreamClosed() {
        if (!ended) {
            ctx.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** Shuts the output of {@code channel} once what was written is flushed; both directions done: the end. */
    private void halfClose(Channel channel, boolean otherDone) {
        // the client's bytes are written from this handler's context, below Reactor Netty's handlers
        // (whose writes this one drops): the flush goes the same way, so it follows them
        io.netty.channel.ChannelOutboundInvoker out = channel == upstream ? upstream : ctx;
        if (otherDone || !(channel instanceof DuplexChannel duplex) || !channel.isActive()) {
            out.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER).addListener(done -> end());
            return;
        }
        out.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER).addListener(done -> duplex.shutdownOutput());
    }

    private void checkIdle() {
        idleTimer = null;
        if (ended) {
            return;
        }
        long quiet = System.nanoTime() - lastActivity;
        if (quiet >= idleNanos) {
            end();
            return;
        }
        idleTimer = ctx.executor().schedule(this::checkIdle, idleNanos - quiet, TimeUnit.NANOSECONDS);
    }

    /** Closes both connections, once; the route's exchange completes. */
    private void end() {
        if (ended) {
            return;
        }
        ended = true;
        if (idleTimer != null) {
            idleTimer.cancel(false);
        }
        upstream.close();
        ctx.close();
        exchange.success();
    }
}
