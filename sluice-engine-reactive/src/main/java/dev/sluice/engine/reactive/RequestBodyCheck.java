package dev.sluice.engine.reactive;

import dev.sluice.http.BrokenRequestBody;
import dev.sluice.http.ErrorBody;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;

/**
 * Sits right after the HTTP codec of every client connection and takes over when a request body's
 * framing breaks (an invalid chunk size, chunk data without its CRLF, an overlong chunk extension):
 * the decoder then emits a content with a failed result, and Reactor Netty would end the request's
 * body stream as if the client had ended it, so that a proxy streaming it upstream would end the
 * upstream's request too: a cut-short body taken for a whole one. Instead, the failed content goes no
 * further, the client gets the contract's JSON {@code 400} when no response to it has begun (else
 * nothing more), and the connection closes: the body stream fails, and the proxy aborts the upstream
 * exchange without ending its body.
 */
final class RequestBodyCheck extends ChannelDuplexHandler {

    static final String NAME = "sluice.requestBodyCheck";

    private boolean responding; // a response head to the current request was written, its end not yet

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpContent content
                && !(msg instanceof HttpRequest)
                && content.decoderResult().isFailure()) {
            ReferenceCountUtil.release(msg);
            if (responding) {
                ctx.close();
                return;
            }
            FullHttpResponse answer = new DefaultFullHttpResponse(
                    HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(BrokenRequestBody.STATUS),
                    Unpooled.wrappedBuffer(
                            new BrokenRequestBody(content.decoderResult().cause()).errorBody()));
            answer.headers()
                    .set(HttpHeaderNames.CONTENT_TYPE, ErrorBody.CONTENT_TYPE)
                    .setInt(HttpHeaderNames.CONTENT_LENGTH, answer.content().readableBytes())
                    .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            responding = true;
            ctx.writeAndFlush(answer).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse) {
            responding = true;
        }
        if (msg instanceof LastHttpContent) {
            responding = false;
        }
        ctx.write(msg, promise);
    }
}
