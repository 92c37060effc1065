package dev.sluice.engine.reactive;

import dev.sluice.http.ResponseHeadCheck;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.nio.channels.ClosedChannelException;
import java.util.Iterator;
import java.util.Map;

/**
 * One pooled HTTP/1.1 connection to an upstream, on one event loop, carrying one {@link Exchange}
 * at a time: it writes the exchange's request and hands it the response's head and body buffers as
 * they are decoded. It reads only when asked ({@link #read()}; auto-read is off), so a consumer that
 * stops asking leaves the rest of the body in the socket: that is the backpressure of both the proxy
 * and the composition parts.
 *
 * <pre>
 *   Lane.acquire ──► send(exchange, request) ──► onHead ──► onContent ... ──► onEnd ──► back to the Lane
 *                                   any failure ──► onError (the connection is closed, never reused)
 * </pre>
 *
 * Every callback runs on the connection's event loop. {@link #send}, {@link #read}, {@link
 * #writeBody}, {@link #endBody} and {@link #abandon} may be called from any thread.
 */
final class UpstreamConnection extends ChannelInboundHandlerAdapter {

    /** The consumer of one request's response. Callbacks on the connection's event loop. */
    interface Exchange {
        /** The status line and headers (informational 1xx heads are skipped). */
        void onHead(HttpResponse head, UpstreamConnection connection);

        /** A body buffer, never empty; the callee owns (and releases) it. */
        void onContent(ByteBuf content);

        /** The body ended; the connection has gone back to its pool, or is closed. */
        void onEnd();

        /** The exchange failed; the connection is closed. */
        void onError(Throwable error);

        /**
         * The socket read that brought the last {@link #onContent} is over: every chunk the decoder
         * made of it has come. A read asked for now keeps the connection's read armed, where one asked
         * in a later task first lets it lapse (with NIO, two epoll_ctl calls per read).
         */
        default void onReadComplete() {}
    }

    static final String NAME = "sluice.upstream";

    /**
     * Request headers are not validated again: their names and values come from the configuration
     * (checked when it loads) or from a client request that the server's decoder has checked.
     */
    private static final HttpHeadersFactory HEADERS =
            DefaultHttpHeadersFactory.headersFactory().withNameValidation(false).withValidation(false);

    final Lane lane;
    final Channel channel;
    final ReadStall stall;
    long idleSince; // while in the lane's idle deque
    final long openedAt = System.nanoTime(); // for max-lifetime

    // on the event loop
    private Exchange exchange;
    private boolean answered; // the exchange's (final) head arrived
    private boolean informational; // skipping the body of a 1xx head
    private boolean keepAlive;
    private boolean requestDone; // the whole request has been written
    private boolean wantsRead; // the consumer asked for bytes and has had none since
    private boolean sawMessage; // the decoder produced something in this batch of reads
    private int readCap = CappedReads.MAX; // the most the exchange's next read may bring (a part's: its share)

    private final CappedReads reads;

    UpstreamConnection(Lane lane, Channel channel, ReadStall stall, CappedReads reads) {
        this.lane = lane;
        this.channel = channel;
        this.stall = stall;
        this.reads = reads;
    }

    /** The buffer of a read armed while the connection was idle (io_uring), else 0: the next exchange's first read. */
    int armedRead() {
        return reads.pending();
    }

    /** Keeps a read armed while the connection waits in its lane's pool: uncapped, as the next exchange is not known. */
    void readWhileIdle() {
        reads.cap(CappedReads.MAX);
        channel.read();
    }

    /** Asks the socket for the exchange's next read, at most {@link #readCap} bytes. */
    private void readNext() {
        reads.cap(readCap);
        channel.read();
    }

    EventLoop loop() {
        return channel.eventLoop();
    }

    /**
     * Starts {@code exchange} on this connection: writes {@code request} and reads its answer. With
     * {@code bodyFollows}, the caller then writes the body ({@link #writeBody}, {@link #endBody}).
     */
    void send(Exchange exchange, HttpRequest request, boolean bodyFollows) {
        send(exchange, request, bodyFollows, CappedReads.MAX);
    }

    /** {@link #send}, the answer's first read bringing at most {@code readCap} bytes. */
    private void send(Exchange exchange, HttpRequest request, boolean bodyFollows, int readCap) {
        if (!loop().inEventLoop()) {
            loop().execute(() -> send(exchange, request, bodyFollows, readCap));
            return;
        }
        this.readCap = readCap;
        if (!channel.isActive()) {
            ReferenceCountUtil.release(request);
            exchange.onError(new ClosedChannelException());
            return;
        }
        this.exchange = exchange;
        answered = false;
        informational = false;
        keepAlive = true;
        requestDone = !bodyFollows;
        stall.requestStarted();
        channel.writeAndFlush(request, channel.voidPromise());
        if (requestDone) {
            stall.requestSent();
        }
        wantsRead = true;
        readNext();
    }

    /** Headers for a request to {@link #send}. */
    static HttpHeaders newHeaders() {
        return HEADERS.newHeaders();
    }

    /** Starts {@code exchange} with a request that has no body. */
    void send(Exchange exchange, HttpMethod method, String uri, HttpHeaders headers) {
        send(exchange, method, uri, headers, CappedReads.MAX);
    }

    /** {@link #send(Exchange, HttpMethod, String, HttpHeaders)}, its first read bringing at most {@code readCap} bytes. */
    void send(Exchange exchange, HttpMethod method, String uri, HttpHeaders headers, int readCap) {
        send(
                exchange,
                new DefaultFullHttpRequest(
                        HttpVersion.HTTP_1_1, method, uri, Unpooled.EMPTY_BUFFER, headers, HEADERS.newEmptyHeaders()),
                false,
                readCap);
    }

    /** Writes a piece of the request body; the future completes when it is written. */
    ChannelFuture writeBody(HttpContent content) {
        return channel.writeAndFlush(content);
    }

    /** Ends the request body. */
    void endBody(Exchange owner) {
        if (!loop().inEventLoop()) {
            loop().execute(() -> endBody(owner));
            return;
        }
        if (exchange != owner) {
            return;
        }
        channel.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT, channel.voidPromise());
        requestDone = true;
        stall.requestSent();
    }

    /** Asks for the next socket read: the consumer wants body bytes. */
    void read() {
        read(CappedReads.MAX);
    }

    /** {@link #read()}, of at most {@code cap} bytes. */
    void read(int cap) {
        if (loop().inEventLoop()) {
            wantsRead = true;
            readCap = cap;
            readNext();
        } else {
            loop().execute(() -> read(cap));
        }
    }

    /**
     * The consumer gives up on its exchange before the response ended: the rest of the response is
     * never read, so the connection is closed rather than reused.
     */
    void abandon(Exchange owner) {
        if (!loop().inEventLoop()) {
            loop().execute(() -> abandon(owner));
            return;
        }
        if (exchange == owner) {
            exchange = null;
            channel.close();
        }
    }

    /**
     * {@link #abandon}, then {@code after} on this connection's loop: every callback the exchange was
     * given before is then already on its way (a retry waits for it, so that none of this try's bytes
     * is taken for the next's).
     */
    void abandonThen(Exchange owner, Runnable after) {
        if (!loop().inEventLoop()) {
            loop().execute(() -> abandonThen(owner, after));
            return;
        }
        abandon(owner);
        after.run();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        sawMessage = true;
        Exchange current = exchange;
        if (current == null) { // bytes nobody asked for: the connection is not fit for reuse
            ReferenceCountUtil.release(msg);
            channel.close();
            return;
        }
        if (msg instanceof HttpObject object && object.decoderResult().isFailure()) {
            ReferenceCountUtil.release(msg);
            fail(new DecoderException(object.decoderResult().cause()));
            return;
        }
        if (msg instanceof HttpResponse head) {
            // the core tells an interim head (skipped: the real one follows) from a final one, and
            // whether the connection may carry another request after it (ResponseHeadCheck)
            int code = head.status().code();
            ResponseHeadCheck check = new ResponseHeadCheck();
            String problem = ResponseHeadCheck.statusProblem(code);
            boolean interim = problem == null && ResponseHeadCheck.interim(code);
            if (interim) {
                problem = ResponseHeadCheck.interimProblem(code);
            } else if (problem == null) {
                problem = check(head, check);
            }
            if (problem != null) {
                ReferenceCountUtil.release(msg);
                fail(new DecoderException(problem));
                return;
            }
            if (interim) {
                informational = true;
            } else {
                answered = true;
                keepAlive = check.keepsAlive(head.protocolVersion().minorVersion());
                current.onHead(head, this);
            }
        }
        if (msg instanceof HttpContent content) {
            boolean last = content instanceof LastHttpContent;
            if (informational || exchange != current || !answered) {
                content.release();
                if (last && informational) {
                    informational = false;
                }
                return;
            }
            ByteBuf bytes = content.content();
            if (bytes.isReadable()) {
                wantsRead = false; // the consumer asks again when it wants more
                current.onContent(bytes);
            } else {
                bytes.release();
            }
            if (last && exchange == current) {
                exchange = null;
                if (keepAlive && requestDone && channel.isActive()) {
                    lane.release(this);
                } else {
                    channel.close();
                }
                current.onEnd();
            }
        }
    }

    /** The core's verdict on a final response head: null when it may be relayed. */
    static String check(HttpResponse head) {
        return check(head, new ResponseHeadCheck());
    }

    /** {@link #check(HttpResponse)}, fed into {@code check}, which then knows the head's framing and keep-alive. */
    private static String check(HttpResponse head, ResponseHeadCheck check) {
        Iterator<Map.Entry<CharSequence, CharSequence>> headers = head.headers().iteratorCharSequence();
        while (headers.hasNext()) {
            Map.Entry<CharSequence, CharSequence> header = headers.next();
            check.header(header.getKey(), header.getValue());
        }
        if (head.headers() instanceof ReceivedHeaders received
                && received.receivedTransferEncoding() != null
                && !head.headers().contains(HttpHeaderNames.TRANSFER_ENCODING)) {
            // removed by the decoder from a head that can have no body: judged as it came
            check.header(HttpHeaderNames.TRANSFER_ENCODING, received.receivedTransferEncoding());
        }
        HttpVersion version = head.protocolVersion();
        return check.verdict(
                version.majorVersion(), version.minorVersion(), head.status().code());
    }

    /**
     * The decoder reads on by itself only while it has produced nothing; after a head, or a 1xx, the
     * consumer still waits for body bytes it asked for, so the read goes on here.
     */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        Exchange current = exchange;
        if (sawMessage && current != null) {
            current.onReadComplete();
        }
        if (sawMessage && wantsRead && exchange != null) {
            readNext();
        }
        sawMessage = false;
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        fail(new ClosedChannelException());
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(cause);
    }

    private void fail(Throwable error) {
        Exchange current = exchange;
        exchange = null;
        channel.close();
        if (current != null) {
            current.onError(error);
        }
    }
}
