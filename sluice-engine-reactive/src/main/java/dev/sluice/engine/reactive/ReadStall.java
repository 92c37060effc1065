package dev.sluice.engine.reactive;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.ReadTimeoutException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * An upstream's {@code read-timeout}, aware of backpressure. Netty's {@code ReadTimeoutHandler}
 * counts time since the last read whatever the reason for the silence; a gateway that has stopped
 * reading because its client is slow (or because a composition part waits for its turn) must not
 * fail the upstream for it. This handler counts only while the gateway is waiting for bytes:
 *
 * <pre>
 *   request sent ──► waiting for the status line (always counts)
 *   status line  ──► counts from each read request until bytes arrive; paused reads do not count
 *   last content ──► idle until the next request on this connection
 * </pre>
 *
 * The connection reads only when its consumer asks ({@link UpstreamConnection}: a proxied body when
 * the client takes it, a composition part while its read-ahead has room), so the reads this handler
 * sees are exactly the waits that count. One instance per pooled connection ({@link Lane}), used on
 * its event loop only.
 */
final class ReadStall extends ChannelDuplexHandler {

    static final String NAME = "sluice.readStall";

    private static final long IDLE = Long.MIN_VALUE;

    private final long timeoutNanos;
    private ChannelHandlerContext ctx;
    private boolean active; // a request was sent and its response has not ended
    private boolean answered; // the status line of the current response arrived
    private boolean complete; // the current response ended
    private long waitingSince = IDLE; // when the gateway began waiting for bytes
    private ScheduledFuture<?> timer;

    ReadStall(long timeoutNanos) {
        this.timeoutNanos = timeoutNanos;
    }

    /** A new request starts on this connection. */
    void requestStarted() {
        active = false;
        answered = false;
        complete = false;
        waitingSince = IDLE;
    }

    /** The request has been sent: from now on a silent upstream times out. */
    void requestSent() {
        if (complete || ctx == null) {
            return;
        }
        active = true;
        if (!answered || ctx.channel().config().isAutoRead()) {
            waitingSince = System.nanoTime();
        }
        if (timer == null) {
            timer = ctx.executor().schedule(this::check, timeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        stop();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        stop();
        ctx.fireChannelInactive();
    }

    @Override
    public void read(ChannelHandlerContext ctx) {
        if (active && answered && waitingSince == IDLE) {
            waitingSince = System.nanoTime();
        }
        ctx.read();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpResponse) {
            answered = true;
        }
        if (msg instanceof LastHttpContent) {
            complete = true;
            active = false;
        }
        if (answered) {
            waitingSince = IDLE;
        }
        ctx.fireChannelRead(msg);
    }

    private void check() {
        timer = null;
        if (!active) {
            return;
        }
        long now = System.nanoTime();
        long since = waitingSince;
        if (since != IDLE && now - since >= timeoutNanos) {
            active = false;
            ctx.fireExceptionCaught(ReadTimeoutException.INSTANCE);
            ctx.close();
            return;
        }
        long delay = since == IDLE ? timeoutNanos : timeoutNanos - (now - since);
        timer = ctx.executor().schedule(this::check, delay, TimeUnit.NANOSECONDS);
    }

    private void stop() {
        active = false;
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }
}
