package dev.sluice.engine.reactive;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.Http2StreamChannel;
import java.io.IOException;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Watches one h2 call's stream channel (first in its pipeline, so it sees the raw frames) for the end of
 * the upstream's answer. An upstream may answer whole and then reset the request half it no longer
 * needs with RST_STREAM(NO_ERROR) (RFC 9113 8.1): Netty tells of the reset at once, ahead of the frames
 * its stream channel still holds for a reader that has not asked for them, and the channel's close that
 * follows drops those. So on a reset after the answer's END_STREAM came (the stream half-closed by the
 * upstream), this handler reads the held frames through at once (the relay buffers them, as it would
 * have on a read). An answer whose body ends without the END_STREAM seen (cut short by a reset, any code)
 * fails: {@link #whole}.
 */
final class H2AnswerEnd extends ChannelInboundHandlerAdapter {

    /** Reads asked for while draining held frames: far more than a stream window's frames need. */
    private static final int MAX_DRAINING_READS = 4096;

    private volatile boolean ended;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Http2DataFrame data && data.isEndStream()
                || msg instanceof Http2HeadersFrame headers && headers.isEndStream()) {
            ended = true;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof Http2ResetFrame
                && !ended
                && ctx.channel() instanceof Http2StreamChannel stream
                && stream.stream().state() == Http2Stream.State.HALF_CLOSED_REMOTE) {
            // the answer's end is among the frames held: hand them over before the stream closes
            for (int i = 0; !ended && i < MAX_DRAINING_READS && stream.isActive(); i++) {
                stream.read();
            }
        }
        ctx.fireUserEventTriggered(evt);
    }

    /** The answer's body, failing at its end unless the upstream's END_STREAM (or trailers) came. */
    Flux<ByteBuf> whole(Publisher<ByteBuf> body) {
        return Flux.from(body)
                .concatWith(Mono.defer(() -> ended
                        ? Mono.empty()
                        : Mono.error(new IOException("the upstream's stream ended before its answer"))));
    }
}
