package dev.sluice.engine.reactive;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * The last handler of an upstream h2/h2c connection ({@link H2Upstream}): where an error of the
 * connection ends. Netty's HTTP/2 codec passes a connection error (an upstream that breaks HTTP/2,
 * one that speaks HTTP/1.1 to an {@code h2c} upstream, a reset socket) down the pipeline after it has
 * sent GOAWAY; Reactor Netty leaves no handler after it on an h2c connection, so without this one it
 * reached the pipeline's tail, which logs a WARN with the stack trace. Each call on the connection
 * fails on its own as the connection closes (its event, its 5xx or cut answer, the upstream's breaker
 * and outlier ejection), so nothing is logged here: the connection is closed, nothing more.
 */
@ChannelHandler.Sharable
final class H2ConnectionErrors extends ChannelInboundHandlerAdapter {

    static final String NAME = "sluice.h2ConnectionErrors";
    static final H2ConnectionErrors INSTANCE = new H2ConnectionErrors();

    private H2ConnectionErrors() {}

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close(); // the codec closes on a connection error already; a socket's error closes it here
    }
}
