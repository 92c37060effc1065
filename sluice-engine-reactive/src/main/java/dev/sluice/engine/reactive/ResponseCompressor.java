package dev.sluice.engine.reactive;

import dev.sluice.compress.Coding;
import dev.sluice.compress.Compression;
import dev.sluice.compress.ResponseEncoder;
import dev.sluice.http.ResponseHeadCheck;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.ByteBuffer;

/**
 * Carries out a route's {@link Compression} on a client connection, on its event loop. Added to a
 * connection's pipeline the first time one of its requests matches a route with a {@code
 * compression} filter (so connections that never do pay nothing), just after the {@link WriteGate}
 * on the way out, and {@linkplain #arm armed} by the {@link GatewayHandler} for that request's
 * response: its head asks the core whether to compress, then every body buffer is deflated and
 * every flush the engine makes (a proxied chunk relayed, a composition's end of a loop turn, so a
 * part's bytes before a slow part answers) is a {@code SYNC_FLUSH}, and the last content ends the
 * gzip member. The gateway's own answers (whole {@link FullHttpResponse}s: errors, refusals) pass
 * as they are.
 */
final class ResponseCompressor extends ChannelOutboundHandlerAdapter {

    static final String NAME = "sluice.compress";

    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);

    private Compression compression = Compression.NONE; // the next response's, until its head leaves
    private Coding wanted; // null: sent as it is
    private ResponseEncoder encoder; // while a response body is compressed

    /**
     * The next response on {@code channel} is the answer to a request on a route that compresses;
     * on the connection's loop, before the route runs.
     */
    static void arm(Channel channel, Compression compression, Coding wanted) {
        ChannelPipeline pipeline = channel.pipeline();
        ResponseCompressor compressor;
        if (pipeline.get(NAME) instanceof ResponseCompressor present) {
            compressor = present;
        } else {
            if (pipeline.get(WriteGate.NAME) == null) {
                return; // not a client connection of this gateway's making
            }
            compressor = new ResponseCompressor();
            pipeline.addBefore(WriteGate.NAME, NAME, compressor);
        }
        compressor.compression = compression;
        compressor.wanted = wanted;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse head
                && !ResponseHeadCheck.interim(head.status().code())) {
            Compression armed = compression;
            compression = Compression.NONE;
            end();
            if (!(msg instanceof FullHttpResponse)
                    && armed.begin(wanted, head.status().code(), head(head.headers()))) {
                HttpUtil.setTransferEncodingChunked(head, true); // its length is not known any more
                encoder = armed.encoder(wanted);
            }
            ctx.write(msg, promise);
            return;
        }
        if (encoder == null || !(msg instanceof ByteBuf || msg instanceof HttpContent)) {
            ctx.write(msg, promise);
            return;
        }
        ByteBuf content = msg instanceof ByteBuf buf ? buf : ((HttpContent) msg).content();
        try {
            ByteBuffer input = content.isReadable() ? content.nioBuffer() : NOTHING;
            if (msg instanceof LastHttpContent last) {
                ctx.write(copy(ctx, encoder.finish(input)));
                end();
                HttpHeaders trailers = last.trailingHeaders(); // a composition's X-Sluice-Completed
                ctx.write(
                        trailers.isEmpty()
                                ? LastHttpContent.EMPTY_LAST_CONTENT
                                : new io.netty.handler.codec.http.DefaultLastHttpContent(
                                        Unpooled.EMPTY_BUFFER, trailers),
                        promise);
            } else {
                ctx.write(copy(ctx, encoder.encode(input, false)), promise);
            }
        } finally {
            content.release();
        }
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        if (encoder != null) {
            ByteBuffer flushed = encoder.encode(NOTHING, true);
            if (flushed.hasRemaining()) {
                ctx.write(copy(ctx, flushed));
            }
        }
        ctx.flush();
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        end();
        ctx.close(promise);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        end();
    }

    private void end() {
        if (encoder != null) {
            encoder.close();
            encoder = null;
        }
    }

    private static ByteBuf copy(ChannelHandlerContext ctx, ByteBuffer bytes) {
        return bytes.hasRemaining() ? ctx.alloc().buffer(bytes.remaining()).writeBytes(bytes) : Unpooled.EMPTY_BUFFER;
    }

    private static Compression.ResponseHead head(HttpHeaders headers) {
        return Compression.ResponseHead.of(headers::get, headers::set, headers::remove);
    }
}
