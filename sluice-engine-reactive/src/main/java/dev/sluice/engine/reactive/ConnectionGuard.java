package dev.sluice.engine.reactive;

import dev.sluice.config.ServerLimits;
import dev.sluice.http.RequestFraming;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.observe.RefusedHead;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.netty.NettyPipeline;

/**
 * The first handler of every client connection, below the HTTP codec (it sees raw bytes): carries
 * out {@code server.limits}' timeouts and connection count.
 *
 * <ul>
 *   <li><b>header-timeout</b>: a request head whose first byte arrived but which is not whole within
 *       the timeout gets {@code 408 request_timeout}, and the connection closes (a slowloris that
 *       sends a byte every few seconds is never idle, so the idle timeout alone would never end it);
 *   <li><b>idle-timeout</b>: a connection on which nothing moved for the timeout while the gateway
 *       waits for the client (its next request, the rest of a request body, room to write a
 *       response) is closed; one waiting for an upstream's answer is not;
 *   <li><b>max-connections</b>: at the limit the server channel stops accepting, and accepts again
 *       when a connection closes (new clients wait in the kernel's accept queue meanwhile).
 * </ul>
 *
 * Every method runs on the connection's event loop. {@link RequestHeadCheck} and {@link
 * RequestBodyCheck}, after the codec, tell it when a head has arrived, a body has ended and an
 * answer has ended.
 */
final class ConnectionGuard extends ChannelDuplexHandler {

    static final String NAME = "sluice.connectionGuard";

    private static final RequestFraming.Rejection TIMED_OUT_REJECTION = RequestFraming.Rejection.forParserStatus(408);
    private static final byte[] TIMED_OUT = TIMED_OUT_REJECTION.wire();

    private final long headerTimeoutNanos;
    private final long idleNanos;
    private final Connections connections;
    private final GatewayObserver observer;

    private ChannelHandlerContext ctx;
    private int inFlight; // requests whose head arrived and whose answer has not ended
    private boolean bodyOpen; // the latest request's body has not ended
    private boolean headBegun; // bytes of a head no handler has seen yet arrived
    private ScheduledFuture<?> headTimer;
    private ScheduledFuture<?> idleTimer;
    private long lastActivity;
    private boolean counted;
    private boolean h2; // a stream opened: the connection speaks h2, and its heads are not timed

    /** {@code server.limits.header-timeout}, in nanoseconds: also an h2 head's wait for its first DATA frame. */
    long headerTimeoutNanos() {
        return headerTimeoutNanos;
    }

    ConnectionGuard(ServerLimits limits, Connections connections, GatewayObserver observer) {
        this.headerTimeoutNanos = limits.headerTimeout().toNanos();
        this.idleNanos = limits.idleTimeout().toNanos();
        this.connections = connections;
        this.observer = observer;
    }

    /** The open client connections of one server, and its accepting switch. */
    static final class Connections {
        private final int max;
        private final AtomicInteger open = new AtomicInteger();

        Connections(int max) {
            this.max = max;
        }

        int open() {
            return open.get();
        }

        void opened(Channel child) {
            if (open.incrementAndGet() >= max) {
                reconcile(child.parent());
            }
        }

        void closed(Channel child) {
            if (open.decrementAndGet() == max - 1) {
                reconcile(child.parent());
            }
        }

        /** Accepts while under the limit: decided on the server channel's loop, from the count then. */
        private void reconcile(Channel server) {
            if (server != null) {
                server.eventLoop().execute(() -> server.config().setAutoRead(open.get() < max));
            }
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        lastActivity = System.nanoTime();
        if (ctx.channel().isActive()) {
            active();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        active();
        ctx.fireChannelActive();
    }

    private void active() {
        if (!counted) {
            counted = true;
            connections.opened(ctx.channel());
            idleTimer = ctx.executor().schedule(this::checkIdle, idleNanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        stop();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        stop();
    }

    private void stop() {
        if (counted) {
            counted = false;
            connections.closed(ctx.channel());
        }
        cancel(headTimer);
        cancel(idleTimer);
        headTimer = null;
        idleTimer = null;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (inFlight == 0 && !headBegun && !h2 && msg instanceof ByteBuf bytes && bytes.isReadable()) {
            headBegun = true; // the first byte of a head
        }
        ctx.fireChannelRead(msg);
    }

    /**
     * After a read's messages went up: a head that began and is still not whole starts its clock
     * now. A head that arrives whole in one read (nearly all of them) costs no timer at all.
     */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        lastActivity = System.nanoTime();
        if (headBegun && headTimer == null && inFlight == 0) {
            headTimer = ctx.executor().schedule(this::headTimedOut, headerTimeoutNanos, TimeUnit.NANOSECONDS);
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        lastActivity = System.nanoTime();
        ctx.flush();
    }

    /**
     * An h2 stream opened (told by {@link ClientPipeline}): from now on this connection's bytes are
     * frames, and no head is timed (the client's first stream came within the header timeout; after
     * it, HTTP/2's own bounds and the idle timeout hold the connection). A stream counts as a request
     * in flight until it closes, however it ends; the idle timeout closes an h2 connection with no
     * stream open, or one whose client takes no bytes.
     */
    void streamOpened() {
        h2 = true;
        inFlight++;
        headBegun = false;
        cancel(headTimer);
        headTimer = null;
    }

    /** A request head arrived whole (told by {@link RequestHeadCheck}). */
    void headArrived() {
        inFlight++;
        bodyOpen = true;
        headBegun = false;
        cancel(headTimer);
        headTimer = null;
    }

    /** The latest request's body ended (told by {@link RequestBodyCheck}). */
    void bodyEnded() {
        bodyOpen = false;
    }

    /** An answer ended (told by {@link RequestHeadCheck}). */
    void answerEnded() {
        inFlight = Math.max(0, inFlight - 1);
        lastActivity = System.nanoTime();
    }

    private void headTimedOut() {
        headTimer = null;
        if (!headBegun || !ctx.channel().isActive()) {
            return;
        }
        headBegun = false;
        if (ctx.pipeline().get(NettyPipeline.H2MultiplexHandler) != null) {
            ctx.close(); // an h2 connection that opened no stream in time: no HTTP/1.1 answer on it
            return;
        }
        inFlight++; // nothing more is read as a request: the 408 is this connection's last answer
        ctx.pipeline().fireUserEventTriggered(HeadTimedOut.INSTANCE); // RequestHeadCheck reads no more
        io.netty.channel.ChannelFuture written = ctx.writeAndFlush(Unpooled.wrappedBuffer(TIMED_OUT));
        if (observer.listens()) { // the 408 is an answer like any other: reported once written
            long start = System.nanoTime();
            String client = RequestHeadCheck.clientAddress(ctx.channel());
            written.addListener(done -> observer.exchange(RefusedHead.event(
                    TIMED_OUT_REJECTION.status(),
                    null,
                    null,
                    client,
                    System.nanoTime() - start,
                    TIMED_OUT_REJECTION.errorBody().length)));
        }
        written.addListener(ChannelFutureListener.CLOSE);
    }

    /** Told to the handlers after this one when a head timed out: nothing more is to be read. */
    enum HeadTimedOut {
        INSTANCE
    }

    private void checkIdle() {
        idleTimer = null;
        Channel channel = ctx.channel();
        if (!channel.isActive()) {
            return;
        }
        long quiet = System.nanoTime() - lastActivity;
        if (quiet >= idleNanos && waitsForClient(channel)) {
            channel.close();
            return;
        }
        long next = quiet >= idleNanos ? idleNanos : idleNanos - quiet;
        idleTimer = ctx.executor().schedule(this::checkIdle, next, TimeUnit.NANOSECONDS);
    }

    /**
     * Whether the gateway waits for the client: for its next request, for more of a body it reads
     * (not one it stopped reading because the upstream is slow to take it), or for room to write.
     */
    private boolean waitsForClient(Channel channel) {
        return inFlight == 0 || (bodyOpen && channel.config().isAutoRead()) || !channel.isWritable();
    }

    private static void cancel(ScheduledFuture<?> timer) {
        if (timer != null) {
            timer.cancel(false);
        }
    }
}
