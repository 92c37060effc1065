package dev.sluice.engine.reactive;

import dev.sluice.http.ResponseHeadCheck;
import dev.sluice.policy.ResponseEdits;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;

/**
 * Sits in every client connection's pipeline for the {@link Composition}s that write to it
 * directly, on the connection's event loop:
 *
 * <ul>
 *   <li>it tells the composition, or the proxied exchange, when the connection can take more bytes
 *       again (their backpressure: they write, or read from the upstream, only while the channel is
 *       writable);
 *   <li>when asked ({@link #holdHead()}), it holds back the flush of a response head until body
 *       bytes follow it, so that the status line and the first bytes leave in one write;
 *   <li>for a proxied response of known length ({@link #holdHeadForBody()}), the same, and it
 *       reports the head written as soon as it is queued: Reactor Netty subscribes to the body only
 *       once the head's write completes, so the head could otherwise never wait for the body.
 * </ul>
 *
 * and it applies an admitted exchange's {@link ResponseEdits} to its head ({@link #editNextHead}).
 * Other responses (streamed proxied ones, the gateway's errors) pass through otherwise untouched.
 */
final class WriteGate extends ChannelDuplexHandler {

    static final String NAME = "sluice.writeGate";

    private ChannelHandlerContext ctx;
    private Runnable onWritable; // the composition writing to this connection, if any
    private boolean holdHead; // the next response head waits for body bytes before it is flushed
    private boolean headOnly; // a held head is written, no body bytes yet
    private boolean reportQueued; // the held head's write completes when queued, not when flushed
    private boolean closeDelimited; // the next head: no chunked coding, the close ends its body
    private ResponseEdits edits; // the next final head's policy edits, or null

    /** The next streamed response head is flushed together with the first body bytes after it. */
    void holdHead() {
        holdHead = true;
    }

    /**
     * The next response head (a proxied one whose body bytes follow at once) is flushed with the first
     * body bytes, and its write reported complete as soon as it is queued. On the connection's loop.
     */
    void holdHeadForBody() {
        holdHead = true;
        reportQueued = true;
    }

    /**
     * The next streamed response head goes out without chunked coding, its body ended by the close:
     * for an HTTP/1.0 client (RFC 9112 section 6.1), where Reactor Netty would chunk it all the same.
     */
    void endBodyWithClose() {
        closeDelimited = true;
    }

    /**
     * The next final response head on this connection (the admitted exchange's: proxied, composed,
     * or the gateway's own error) gets the exchange's policy edits, after whatever its route set:
     * every head an engine writes passes here, so they are applied in this one place. On the
     * connection's loop, before the route runs.
     */
    void editNextHead(ResponseEdits edits) {
        this.edits = edits;
    }

    /** {@code task} runs whenever the connection becomes writable again; null to stop. */
    void onWritable(Runnable task) {
        onWritable = task;
    }

    /** {@code task} no longer waits for writability (if it still is the one that waits). */
    void stopOnWritable(Runnable task) {
        if (onWritable == task) {
            onWritable = null;
        }
    }

    /** The composition is over: nothing is held back any more, and nobody waits for writability. */
    void release() {
        onWritable = null;
        holdHead = false;
        reportQueued = false;
        if (headOnly) {
            headOnly = false;
            ctx.flush();
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (edits != null
                && msg instanceof HttpResponse edited
                && !ResponseHeadCheck.interim(edited.status().code())) {
            edits.applyTo(edited.headers()::getAll, edited.headers()::set);
            edits = null;
        }
        if (msg instanceof HttpResponse && !(msg instanceof FullHttpResponse)) {
            if (closeDelimited) {
                closeDelimited = false;
                HttpResponse head = (HttpResponse) msg;
                HttpUtil.setTransferEncodingChunked(head, false);
                head.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            }
            headOnly = holdHead;
            holdHead = false;
            if (headOnly && reportQueued) {
                reportQueued = false;
                ctx.write(msg); // a failure shows at the flush, on the body's writes
                promise.trySuccess();
                return;
            }
        } else if (msg instanceof ByteBuf || msg instanceof HttpContent) {
            headOnly = false;
        }
        ctx.write(msg, promise);
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        if (!headOnly) {
            ctx.flush();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        Runnable task = onWritable;
        if (task != null && ctx.channel().isWritable()) {
            task.run();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        headOnly = false;
        holdHead = false;
        reportQueued = false;
        onWritable = null;
        edits = null;
        ctx.close(promise);
    }
}
