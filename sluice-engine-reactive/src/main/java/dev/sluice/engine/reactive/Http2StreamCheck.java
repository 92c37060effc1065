package dev.sluice.engine.reactive;

import dev.sluice.http.ErrorBody;
import dev.sluice.http.PseudoHeaders;
import dev.sluice.http.RequestFraming;
import dev.sluice.observe.ClientProtocolError;
import dev.sluice.observe.ClientProtocolErrors;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2FrameStreamException;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.Http2StreamFrame;
import io.netty.util.ReferenceCountUtil;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * On an h2 connection, between Netty's frame codec and its multiplexer: what makes a stream's errors
 * the client's to see (RFC 9113 sections 5.4.2 and 8.1.1).
 *
 * <ul>
 *   <li>A request head without its pseudo-headers ({@code :method}, {@code :scheme}, {@code :path};
 *       {@code :authority} alone for CONNECT), or with a space or control byte in {@code :path}, or with
 *       a {@code host} that contradicts {@code :authority}, is malformed: the stream is reset with
 *       PROTOCOL_ERROR and the head goes no further (Netty would hand the first kind on, to a request
 *       that never completes or to an upstream; its translation to HTTP/1.1 fails on the other two and
 *       resets the stream with CANCEL).
 *   <li>A stream error Netty's decoder finds (a second head without END_STREAM, a pseudo-header in
 *       trailers, a content-length the DATA does not add up to, a WINDOW_UPDATE of 0 or past 2^31-1
 *       on a stream, a frame on a half-closed stream) resets the stream with that error's own code
 *       before the stream's channel hears of it; its channel would reset it with CANCEL.
 *   <li>Once a stream is reset or closed, whatever its channel still writes to it (the answer to a
 *       request it was too late to take back, a RST_STREAM of its own) is dropped: no DATA after the
 *       gateway's RST_STREAM.
 *   <li>A request head that leaves its framing to the first DATA frame ({@link
 *       RequestFraming#AT_FIRST_DATA}) gets {@link RequestFraming#FIRST_DATA_TIMEOUT} ({@code 408})
 *       and a RST_STREAM NO_ERROR when neither a DATA frame with bytes nor the stream's end came, and
 *       no answer began, within {@code server.limits.header-timeout} of the head; the blocking
 *       engine's {@code Http2RequestBody} waits as long. Only a route that reads the body waits
 *       ({@link dev.sluice.engine.FrontDoor.Enter#readsBody}): the timer starts at the head and stops
 *       once the request entered any other route ({@link #bodyUnread}) or an answer began.
 * </ul>
 */
final class Http2StreamCheck extends ChannelDuplexHandler {

    static final String NAME = "sluice.h2StreamCheck";

    private static final io.netty.util.AsciiString HOST = io.netty.util.AsciiString.cached("host");

    private final Http2Connection connection;
    private int lastHead; // the highest stream whose request head passed here

    private final ClosedStreams closed;
    private final long firstDataNanos; // header-timeout; 0: the wait is not bounded here
    /** Streams whose head waits for its first DATA frame, and the timer that ends the wait. */
    private final Map<Integer, ScheduledFuture<?>> awaitingData = new HashMap<>();

    private Http2StreamCheck(Http2Connection connection, ClosedStreams closed, long firstDataNanos) {
        this.connection = connection;
        this.closed = closed;
        this.firstDataNanos = firstDataNanos;
    }

    /**
     * Puts the check in an h2 connection's pipeline, once Reactor Netty has set up its frame codec and
     * multiplexer there (before the first frame reaches them); does nothing on HTTP/1.1 or when present.
     */
    static void installIfH2(ChannelPipeline pipeline) {
        if (pipeline.get(NAME) != null) {
            return;
        }
        Http2FrameCodec codec = pipeline.get(Http2FrameCodec.class);
        io.netty.channel.ChannelHandlerContext multiplexer = pipeline.context(Http2MultiplexHandler.class);
        if (codec != null && multiplexer != null) {
            ClientProtocolErrors errors =
                    pipeline.get(ClientErrors.NAME) instanceof ClientErrors last ? last.errors() : null;
            ClosedStreams closed = new ClosedStreams(codec, errors);
            long firstData = pipeline.get(ConnectionGuard.NAME) instanceof ConnectionGuard guard
                    ? guard.headerTimeoutNanos()
                    : 0;
            pipeline.addBefore(multiplexer.name(), NAME, new Http2StreamCheck(codec.connection(), closed, firstData));
            pipeline.addBefore(pipeline.context(codec).name(), ClosedStreams.NAME, closed);
        }
    }

    /**
     * The client's FIN ends an h2 connection at once, as Jetty's session does (the connection is
     * half-closable for HTTP/1.1's sake, {@link RequestHeadCheck}): an h2 client that sent it can
     * send no more (no WINDOW_UPDATE, no end to a request body), so a stream still waiting for it
     * would never end, and the connection would stay open until the gateway closes. The close starts
     * below the codec, whose own graceful close would wait for those streams.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof io.netty.channel.socket.ChannelInputShutdownEvent) {
            ctx.pipeline().context(ClosedStreams.NAME).close();
        }
        super.userEventTriggered(ctx, event);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Http2ResetFrame frame && frame.stream() != null) {
            closed.resetByClient(frame.stream().id());
        }
        if (msg instanceof Http2HeadersFrame frame && isRequestHead(frame)) {
            if (!wellFormed(frame.headers())) {
                ReferenceCountUtil.release(msg);
                reset(ctx, frame.stream(), Http2Error.PROTOCOL_ERROR);
                return;
            }
            awaitFirstData(ctx, frame);
        } else if (!awaitingData.isEmpty() && msg instanceof Http2StreamFrame frame && frame.stream() != null) {
            boolean tells = msg instanceof Http2DataFrame data
                    ? data.content().isReadable() || data.isEndStream() // an empty DATA frame tells nothing
                    : msg instanceof Http2HeadersFrame || msg instanceof Http2ResetFrame;
            if (tells) {
                stopAwaiting(frame.stream().id());
            }
        }
        ctx.fireChannelRead(msg);
    }

    /** Starts a request head's wait for its first DATA frame, when its framing waits for one. */
    private void awaitFirstData(ChannelHandlerContext ctx, Http2HeadersFrame head) {
        if (firstDataNanos <= 0 || head.isEndStream() || head.stream() == null) {
            return;
        }
        CharSequence length = head.headers().get("content-length");
        if (RequestFraming.upstreamBody(true, length == null ? null : length.toString(), false, false)
                == RequestFraming.AT_FIRST_DATA) {
            Http2FrameStream stream = head.stream();
            awaitingData.put(
                    stream.id(),
                    ctx.executor()
                            .schedule(() -> firstDataTimedOut(ctx, stream), firstDataNanos, TimeUnit.NANOSECONDS));
        }
    }

    /**
     * The request on {@code channel} entered a route that reads no request body ({@link
     * dev.sluice.engine.FrontDoor.Enter#readsBody}): its stream's head waits for no DATA frame. On
     * the stream's loop (its connection's); nothing on HTTP/1.1.
     */
    static void bodyUnread(io.netty.channel.Channel channel) {
        if (channel instanceof io.netty.handler.codec.http2.Http2StreamChannel stream
                && stream.parent() != null
                && stream.parent().pipeline().get(NAME) instanceof Http2StreamCheck check
                && !check.awaitingData.isEmpty()) {
            check.stopAwaiting(stream.stream().id());
        }
    }

    private void stopAwaiting(int stream) {
        ScheduledFuture<?> timer = awaitingData.remove(stream);
        if (timer != null) {
            timer.cancel(false);
        }
    }

    /** No DATA frame in time: {@code 408} on the stream, which the client is asked to stop sending on. */
    private void firstDataTimedOut(ChannelHandlerContext ctx, Http2FrameStream stream) {
        if (awaitingData.remove(stream.id()) == null || ended(stream)) {
            return;
        }
        RequestFraming.Rejection late = RequestFraming.FIRST_DATA_TIMEOUT;
        byte[] body = late.errorBody();
        Http2Headers head = new DefaultHttp2Headers()
                .status(Integer.toString(late.status()))
                .set("content-type", ErrorBody.CONTENT_TYPE)
                .setInt("content-length", body.length);
        ctx.write(new DefaultHttp2HeadersFrame(head, false).stream(stream));
        // RFC 9113 section 8.1: a whole answer, then the rest of the request is declined without error;
        // once the answer is out (Netty's flow control queues DATA, a reset would drop it)
        ctx.writeAndFlush(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(body), true).stream(stream))
                .addListener(written -> {
                    if (!ended(stream)) {
                        ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.NO_ERROR).stream(stream));
                    }
                });
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        awaitingData.values().forEach(timer -> timer.cancel(false));
        awaitingData.clear();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof Http2FrameStreamException e) {
            reset(ctx, e.stream(), code(e));
        }
        ctx.fireExceptionCaught(cause);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!awaitingData.isEmpty() && msg instanceof Http2HeadersFrame answer && answer.stream() != null) {
            stopAwaiting(answer.stream().id()); // an answer began without the body: the gateway's own
        }
        if (msg instanceof Http2StreamFrame frame && frame.stream() != null && ended(frame.stream())) {
            // the stream is gone (reset, or ended both ways): nothing more is sent on it
            ReferenceCountUtil.release(msg);
            if (msg instanceof Http2ResetFrame) {
                promise.trySuccess();
            } else {
                promise.tryFailure(new java.nio.channels.ClosedChannelException());
            }
            return;
        }
        ctx.write(msg, promise);
    }

    /**
     * The error's code, but STREAM_CLOSED for a header block on a stream the client had ended (RFC 9113
     * section 5.1, half-closed (remote)): Netty's decoder calls it "too many headers", PROTOCOL_ERROR.
     */
    private Http2Error code(Http2FrameStreamException e) {
        Http2Stream stream =
                e.stream() == null ? null : connection.stream(e.stream().id());
        if (e.error() == Http2Error.PROTOCOL_ERROR
                && stream != null
                && stream.state() == Http2Stream.State.HALF_CLOSED_REMOTE
                && e.getCause() != null
                && String.valueOf(e.getCause().getMessage()).contains("too many headers")) {
            return Http2Error.STREAM_CLOSED;
        }
        return e.error();
    }

    private void reset(ChannelHandlerContext ctx, Http2FrameStream stream, Http2Error error) {
        if (stream != null && !ended(stream)) {
            ctx.writeAndFlush(new DefaultHttp2ResetFrame(error).stream(stream));
        }
    }

    /** Whether the stream once existed and is closed now (never for one this side has yet to open). */
    private boolean ended(Http2FrameStream frameStream) {
        int id = frameStream.id();
        if (id <= 0) {
            return false;
        }
        Http2Stream stream = connection.stream(id);
        if (stream != null) {
            return stream.isResetSent() || stream.state() == Http2Stream.State.CLOSED;
        }
        return connection.streamMayHaveExisted(id);
    }

    /**
     * A stream's first header block from the client (trailers are its second): a client opens its
     * streams in rising order (Netty's decoder holds it to that), so a block on a stream above every
     * stream seen so far opens one.
     */
    private boolean isRequestHead(Http2HeadersFrame frame) {
        int id = frame.stream() == null ? 0 : frame.stream().id();
        if (id > lastHead) {
            lastHead = id;
            return true;
        }
        return false;
    }

    /**
     * RFC 9113 section 8.3.1, the core's {@link PseudoHeaders#wellFormed} and {@link
     * PseudoHeaders#targetSound}, over the decoded head.
     */
    static boolean wellFormed(Http2Headers headers) {
        return PseudoHeaders.wellFormed(
                        headers.method(),
                        headers.scheme(),
                        headers.path(),
                        headers.authority(),
                        headers.contains(Http2Headers.PseudoHeaderName.PROTOCOL.value()))
                && PseudoHeaders.targetSound(headers.path(), headers.authority(), headers.get(HOST));
    }

    /**
     * Before the frame codec, on its bytes out: a header block on a stream Netty no longer knows is
     * answered by Netty's decoder with RST_STREAM STREAM_CLOSED whatever the stream was (its words:
     * "the lesser of the two errors"). RFC 9113 wants more where the stream is known here: one the
     * client ended and the gateway answered is a connection error STREAM_CLOSED (section 5.1,
     * closed), one the client skipped (a lower id than one it opened since) a connection error
     * PROTOCOL_ERROR (section 5.1.1). A stream the gateway or the client reset keeps Netty's stream
     * error, but a frame on a stream the gateway reset is ignored, as section 5.1 has it (the client
     * may have sent it before the reset reached it): Netty ignores it while it still holds the stream
     * and answers it STREAM_CLOSED once it has let the stream go, which this drops. The last {@value
     * #REMEMBERED} streams the client opened are remembered for this.
     *
     * <p>Every RST_STREAM passes here on its way out (Netty writes each as one 13-byte buffer): one that
     * is sent and whose code says the client broke the protocol ({@link
     * ClientProtocolError#http2ErrorCode}: a malformed head, a stream error Netty's decoder found, a
     * frame on a closed stream) is counted once as a client protocol error. A connection error's
     * GOAWAY is counted where its exception ends, {@link ClientErrors}.
     */
    static final class ClosedStreams extends ChannelOutboundHandlerAdapter {
        static final String NAME = "sluice.h2ClosedStreams";
        private static final int REMEMBERED = 1024;
        private static final int RST_STREAM = 0x3;

        private final Http2FrameCodec codec;
        private final ClientProtocolErrors errors; // null: none counted
        private static final byte OPEN = 0;
        private static final byte RESET_BY_CLIENT = 1;
        private static final byte RESET_BY_GATEWAY = 2;

        /** Streams the client opened, the oldest first, and whether a reset ended them, whose. */
        private final LinkedHashMap<Integer, Byte> opened = new LinkedHashMap<>(64, 0.75f) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Integer, Byte> eldest) {
                return size() > REMEMBERED;
            }
        };

        ClosedStreams(Http2FrameCodec codec, ClientProtocolErrors errors) {
            this.codec = codec;
            this.errors = errors;
            codec.connection().addListener(new Http2ConnectionAdapter() {
                @Override
                public void onStreamAdded(Http2Stream stream) {
                    if (!codec.connection().local().isValidStreamId(stream.id())) {
                        opened.put(stream.id(), OPEN);
                    }
                }

                @Override
                public void onStreamClosed(Http2Stream stream) {
                    if (opened.containsKey(stream.id()) && stream.isResetSent()) {
                        opened.put(stream.id(), RESET_BY_GATEWAY);
                    }
                }
            });
        }

        /** The client reset this stream (RST_STREAM read): later frames on it keep Netty's stream error. */
        void resetByClient(int id) {
            if (opened.containsKey(id)) {
                opened.put(id, RESET_BY_CLIENT);
            }
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
            if (msg instanceof ByteBuf buf
                    && buf.readableBytes() == 13
                    && buf.getUnsignedMedium(buf.readerIndex()) == 4
                    && buf.getUnsignedByte(buf.readerIndex() + 3) == RST_STREAM) {
                int at = buf.readerIndex();
                if (buf.getInt(at + 9) == (int) Http2Error.STREAM_CLOSED.code()) {
                    int id = buf.getInt(at + 5) & 0x7FFFFFFF;
                    if (codec.connection().stream(id) == null
                            && opened.get(id) instanceof Byte state
                            && state == RESET_BY_GATEWAY) { // a frame after the gateway's reset: ignored
                        buf.release();
                        promise.trySuccess();
                        return;
                    }
                    Http2Error error = connectionError(id);
                    if (error != null) {
                        buf.release();
                        promise.trySuccess();
                        codec.onError(
                                ctx.pipeline().context(codec),
                                false,
                                Http2Exception.connectionError(
                                        error,
                                        "a header block on stream %d, %s",
                                        id,
                                        error == Http2Error.STREAM_CLOSED ? "closed" : "never opened"));
                        return;
                    }
                }
                if (errors != null && ClientProtocolError.http2ErrorCode(buf.getUnsignedInt(at + 9))) {
                    errors.report(ClientProtocolError.HTTP2, null);
                }
            }
            ctx.write(msg, promise);
        }

        /** The connection error a frame on this unknown client stream is, or null for Netty's stream error. */
        private Http2Error connectionError(int id) {
            Http2Connection connection = codec.connection();
            if (connection.local().isValidStreamId(id) || connection.stream(id) != null) {
                return null;
            }
            Byte state = opened.get(id);
            if (state != null) {
                return state == OPEN ? Http2Error.STREAM_CLOSED : null;
            }
            boolean remembered = opened.size() < REMEMBERED
                    || id > opened.keySet().iterator().next();
            return remembered && id <= connection.remote().lastStreamCreated() ? Http2Error.PROTOCOL_ERROR : null;
        }
    }
}
