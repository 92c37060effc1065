package dev.sluice.engine.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The gate's hold on response heads, on an embedded channel that records every flush. */
@ExtendWith(LeakGuard.class)
class WriteGateTest {

    /** Counts the flushes that reach the transport, and what was written before each. */
    private static final class Flushes extends ChannelOutboundHandlerAdapter {
        final List<Integer> writesPerFlush = new ArrayList<>();
        int pending;

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            pending++;
            ctx.write(msg, promise);
        }

        @Override
        public void flush(ChannelHandlerContext ctx) {
            writesPerFlush.add(pending);
            pending = 0;
            ctx.flush();
        }
    }

    private final Flushes flushes = new Flushes();
    private final WriteGate gate = new WriteGate();
    private final EmbeddedChannel channel = new EmbeddedChannel(flushes, gate);

    private static DefaultHttpResponse head() {
        return new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
    }

    private static DefaultHttpContent body(String text) {
        return new DefaultHttpContent(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
    }

    @Test
    void aHeadHeldForItsBodyIsReportedWrittenAtOnceAndLeavesWithTheFirstBodyBytes() {
        gate.holdHeadForBody();
        ChannelFuture headWritten = channel.writeAndFlush(head());
        assertThat(headWritten.isSuccess()).as("reported written while queued").isTrue();
        assertThat(flushes.writesPerFlush).as("no flush for the head alone").isEmpty();
        assertThat((Object) channel.readOutbound()).isNull();

        channel.writeAndFlush(body("hello"));
        assertThat(flushes.writesPerFlush).as("head and body in one flush").containsExactly(2);
        assertThat((Object) channel.readOutbound()).isInstanceOf(DefaultHttpResponse.class);
        DefaultHttpContent content = channel.readOutbound();
        assertThat(content.content().toString(StandardCharsets.UTF_8)).isEqualTo("hello");
        content.release();
    }

    @Test
    void withoutAHoldTheHeadIsFlushedAloneAndReportedWhenFlushed() {
        ChannelFuture headWritten = channel.writeAndFlush(head());
        assertThat(headWritten.isSuccess()).isTrue();
        channel.writeAndFlush(body("x")).syncUninterruptibly();
        assertThat(flushes.writesPerFlush).containsExactly(1, 1);
        channel.finishAndReleaseAll();
    }

    @Test
    void theHoldIsForOneHeadOnly() {
        gate.holdHeadForBody();
        channel.writeAndFlush(head());
        channel.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        channel.writeAndFlush(head()); // the next response on this connection: not held
        assertThat(flushes.writesPerFlush).containsExactly(2, 1);
        channel.finishAndReleaseAll();
    }

    @Test
    void closingDropsAHeldHead() {
        gate.holdHeadForBody();
        channel.writeAndFlush(head());
        channel.close().syncUninterruptibly();
        assertThat(flushes.writesPerFlush).isEmpty();
        ByteBuf leftover = channel.readOutbound();
        assertThat(leftover).isNull();
    }

    @Test
    void responseEditsGoOnTheNextFinalHeadOnlyAndInterimHeadsPassUntouched() {
        gate.editNextHead(dev.sluice.policy.ResponseEdits.of(
                java.util.Map.of("Access-Control-Allow-Origin", "https://shop.example"), List.of("Origin")));
        DefaultHttpResponse interim = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE);
        DefaultHttpResponse first = head();
        first.headers().add("Access-Control-Allow-Origin", "*").add("Vary", "Accept-Encoding");
        DefaultHttpResponse next = head();
        channel.writeAndFlush(interim);
        channel.writeAndFlush(first);
        channel.writeAndFlush(next);

        assertThat(interim.headers().isEmpty()).isTrue();
        assertThat(first.headers().getAll("Access-Control-Allow-Origin")).containsExactly("https://shop.example");
        assertThat(first.headers().getAll("Vary")).containsExactly("Accept-Encoding, Origin");
        assertThat(next.headers().isEmpty()).as("the next exchange's head").isTrue();
        for (Object written; (written = channel.readOutbound()) != null; ) {
            io.netty.util.ReferenceCountUtil.release(written);
        }
        channel.finishAndReleaseAll();
    }
}
