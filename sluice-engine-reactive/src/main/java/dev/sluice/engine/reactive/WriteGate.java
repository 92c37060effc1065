package dev.sluice.engine.reactive;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;

/**
 * Sits in every client connection's pipeline for the {@link Composition}s that write to it
 * directly, on the connection's event loop:
 *
 * <ul>
 *   <li>it tells the composition when the connection can take more bytes again (its own
 *       backpressure: the composition writes only while the channel is writable);
 *   <li>when asked ({@link #holdHead()}), it holds back the flush of a response head until body
 *       bytes follow it, so that the status line and the first bytes leave in one write.
 * </ul>
 *
 * Other responses (proxied ones, the gateway's errors) pass through untouched.
 */
final class WriteGate extends ChannelDuplexHandler {

  static final String NAME = "sluice.writeGate";

  private ChannelHandlerContext ctx;
  private Runnable onWritable; // the composition writing to this connection, if any
  private boolean holdHead; // the next response head waits for body bytes before it is flushed
  private boolean headOnly; // a held head is written, no body bytes yet

  /** The next streamed response head is flushed together with the first body bytes after it. */
  void holdHead() {
    holdHead = true;
  }

  /** {@code task} runs whenever the connection becomes writable again; null to stop. */
  void onWritable(Runnable task) {
    onWritable = task;
  }

  /** The composition is over: nothing is held back any more, and nobody waits for writability. */
  void release() {
    onWritable = null;
    holdHead = false;
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
    if (msg instanceof HttpResponse && !(msg instanceof FullHttpResponse)) {
      headOnly = holdHead;
      holdHead = false;
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
    onWritable = null;
    ctx.close(promise);
  }
}
