package dev.sluice.engine.reactive;

import dev.sluice.config.ServerLimits;
import dev.sluice.http.BodyLimit;
import dev.sluice.http.BrokenRequestBody;
import dev.sluice.http.ErrorBody;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
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
    private final ConnectionGuard guard;
    private ChannelHandlerContext ctx;
    private long received; // body bytes of the current request
    private long sent; // body bytes of the current response
    private long limit = ServerLimits.UNLIMITED; // the current request's route's (BodyLimit)
    private boolean refused; // the current request's body was refused: the connection is closing

    RequestBodyCheck(ConnectionGuard guard) {
        this.guard = guard;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    /**
     * The current request's body limit, set once its route is known (which may be after some of its
     * body went by): a body already past it is refused at once.
     */
    void limit(long bytes) {
        limit = bytes;
        if (!refused && BodyLimit.exceeds(received, limit)) {
            refuse(
                    BodyLimit.rejection(limit).status(),
                    BodyLimit.rejection(limit).errorBody());
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest) {
            received = 0;
            limit = ServerLimits.UNLIMITED;
            refused = false;
        }
        if (refused && msg instanceof HttpContent) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpContent content && !(msg instanceof HttpRequest)) {
            if (content.decoderResult().isFailure()) {
                Throwable cause = content.decoderResult().cause();
                ReferenceCountUtil.release(msg);
                refuse(BrokenRequestBody.STATUS, new BrokenRequestBody(cause).errorBody());
                return;
            }
            received += content.content().readableBytes();
            if (BodyLimit.exceeds(received, limit)) {
                ReferenceCountUtil.release(msg);
                refuse(BodyLimit.STATUS, BodyLimit.rejection(limit).errorBody());
                return;
            }
            if (msg instanceof LastHttpContent) {
                guard.bodyEnded();
            }
        }
        ctx.fireChannelRead(msg);
    }

    /**
     * Ends the request's body unended: the answer when no response to it has begun, and the
     * connection closes, so its body stream fails and the upstream exchange is aborted.
     */
    private void refuse(int status, byte[] body) {
        refused = true;
        if (responding) {
            ctx.close();
            return;
        }
        FullHttpResponse answer = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status), Unpooled.wrappedBuffer(body));
        answer.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, ErrorBody.CONTENT_TYPE)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, answer.content().readableBytes())
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        responding = true;
        ctx.writeAndFlush(answer).addListener(ChannelFutureListener.CLOSE);
    }

    /** Body bytes of the current request read from the client so far. */
    long received() {
        return received;
    }

    /** Body bytes of the current response handed to the connection so far. */
    long sent() {
        return sent;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse) {
            responding = true;
            sent = 0;
        }
        // HttpContent, or on an h2 stream the Http2DataFrame Reactor Netty's stream bridge made of a buffer
        if (msg instanceof ByteBufHolder content) {
            sent += content.content().readableBytes();
        } else if (msg instanceof ByteBuf buffer) {
            sent += buffer.readableBytes();
        }
        if (msg instanceof LastHttpContent) {
            responding = false;
        }
        ctx.write(msg, promise);
    }
}
