package dev.sluice.engine.reactive;

import dev.sluice.observe.ClientProtocolError;
import dev.sluice.observe.ClientProtocolErrors;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http2.Http2Exception;
import java.io.IOException;

/**
 * The last handler of a client connection (and, on h2, before a stream's bridge): a client's
 * protocol error that reaches it (an h2 connection or stream error Netty's codec has already
 * answered with GOAWAY or RST_STREAM, a connection reset by the client) is counted and logged as one
 * ({@link ClientProtocolErrors}: a line per kind a minute, no stack trace) instead of reaching
 * Netty's pipeline tail or Reactor Netty's, which log each with a stack trace. Anything else passes
 * on: a fault of the gateway's still logs whole.
 */
@ChannelHandler.Sharable
final class ClientErrors extends ChannelInboundHandlerAdapter {

    static final String NAME = "sluice.clientErrors";

    private final ClientProtocolErrors errors;

    ClientErrors(ClientProtocolErrors errors) {
        this.errors = errors;
    }

    ClientProtocolErrors errors() {
        return errors;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable error = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (error instanceof Http2Exception) {
            errors.report(ClientProtocolError.HTTP2, error);
        } else if (error instanceof IOException) {
            errors.report(ClientProtocolError.CONNECTION, error);
            ctx.close();
        } else {
            ctx.fireExceptionCaught(cause);
        }
    }
}
