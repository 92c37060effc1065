package dev.sluice.engine.reactive;

import dev.sluice.config.ServerLimits;
import dev.sluice.http.ErrorBody;
import dev.sluice.http.H2cUpgrade;
import dev.sluice.http.RequestFraming;
import dev.sluice.http.ResponseHeadCheck;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.observe.RefusedHead;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;

/**
 * Sits right after the HTTP codec of every client connection, from its first byte, and refuses a
 * request head before Reactor Netty sees it: one Netty's decoder failed on (a header block or a
 * request line over the limit, a bad Content-Length, Transfer-Encoding with Content-Length), whose
 * answer would be Reactor Netty's empty 400/414/431, and one {@link RequestFraming} rejects (no Host,
 * a control byte in the target, a version other than HTTP/1.x, a coding besides chunked). The client
 * gets the contract's JSON with {@code Connection: close}, after the response under way if any, and
 * nothing it sends afterwards on the connection is read: no request is routed and no upstream
 * receives anything from a connection whose framing is in doubt.
 *
 * <p>It also keeps a request that asks to close ({@code Connection: close}, or HTTP/1.0 without
 * keep-alive) from costing an earlier one its answer: pipelined behind a response under way, such a
 * request is answered in its turn, with {@code Connection: close}, and then the connection closes
 * (RFC 9112 section 9.6); whatever follows it is not read as a request.
 */
final class RequestHeadCheck extends ChannelDuplexHandler {

    static final String NAME = "sluice.requestHeadCheck";

    /** The target of the request Netty's decoder makes for a head whose request line it could not read. */
    private static final String UNREAD_TARGET = "/bad-request";

    private boolean rejected; // everything read from now on is dropped
    private int unanswered; // requests passed on whose response has not ended yet
    private boolean informational; // the response head being written is a 1xx, not the final answer
    private FullHttpResponse pending; // the rejection, waiting for the response under way to end
    private ChannelFutureListener pendingReport; // its report to the observer, or null
    private boolean inputShut; // the client half-closed: close once its requests are answered
    private boolean upgradeSettled; // the connection's first request has been seen (h2c upgrade or not)
    private boolean closing; // a request asked to close: nothing read after it is a request
    private boolean closeAfterLast; // this handler closes once the last request read is answered
    private final ServerLimits limits;
    private final ConnectionGuard guard;
    private final GatewayObserver observer;

    RequestHeadCheck(ServerLimits limits, ConnectionGuard guard, GatewayObserver observer) {
        this.limits = limits;
        this.guard = guard;
        this.observer = observer;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (rejected) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (!(msg instanceof HttpObject)) { // h2c began (prior knowledge or upgrade): heads arrive per stream
            Http2StreamCheck.installIfH2(ctx.pipeline());
            ctx.pipeline().remove(this);
            ctx.fireChannelRead(msg);
            return;
        }
        if (closing && msg instanceof HttpRequest) { // RFC 9112 section 9.6: not processed
            rejected = true;
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest request) {
            boolean decoderFailed = request.decoderResult().isFailure();
            RequestFraming.Rejection rejection = decoderFailed
                    ? decoderRejection(request.decoderResult().cause())
                    : rejection(request, limits).orElse(null);
            guard.headArrived(); // a refused head is answered too: its clock stops either way
            if (rejection != null) {
                ChannelFutureListener report =
                        observer.listens() ? report(ctx, request, decoderFailed, rejection) : null;
                ReferenceCountUtil.release(msg);
                reject(ctx, rejection, report);
                return;
            }
            unanswered++;
            if (!HttpUtil.isKeepAlive(request)) {
                closing = true;
                if (unanswered > 1) { // pipelined behind a response under way
                    // Reactor Netty would close once that response ends, leaving this request
                    // unanswered: it is passed on as a persistent one and the close is made here
                    HttpUtil.setKeepAlive(request, true);
                    closeAfterLast = true;
                }
            }
            if (!upgradeSettled) {
                upgradeSettled = true;
                settleUpgrade(ctx, request);
            }
        }
        ctx.fireChannelRead(msg);
    }

    /**
     * On a listener offering h2c, a connection whose first request asks for no h2c stays HTTP/1.1 (H2cUpgrade):
     * Netty's upgrade handler leaves its pipeline, so later requests no longer pass through it (a
     * decoder step, a retain and a release per message). A server may ignore an Upgrade header (RFC
     * 9110 section 7.8), and RFC 9113 deprecates h2c's upgrade; prior knowledge is unaffected, as it
     * begins with the connection.
     */
    private static void settleUpgrade(ChannelHandlerContext ctx, HttpRequest first) {
        if (first.headers().contains(H2cUpgrade.HEADER)
                && H2cUpgrade.asked(first.headers().getAll(H2cUpgrade.HEADER))) {
            return;
        }
        ChannelHandlerContext upgrades = ctx.pipeline().context(HttpServerUpgradeHandler.class);
        if (upgrades != null) {
            ctx.pipeline().remove(upgrades.handler());
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse response) {
            informational = ResponseHeadCheck.interim(response.status().code());
            if (closeAfterLast && !informational && unanswered == 1) {
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            }
        }
        boolean answered = msg instanceof LastHttpContent && !informational;
        ctx.write(msg, promise);
        if (answered) {
            guard.answerEnded();
            unanswered = Math.max(0, unanswered - 1);
            if (pending != null && unanswered == 0) {
                FullHttpResponse answer = pending;
                ChannelFutureListener report = pendingReport;
                pending = null;
                pendingReport = null;
                send(ctx, answer, report);
            } else if ((inputShut || closeAfterLast) && unanswered == 0) {
                ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            }
        }
    }

    private void reject(ChannelHandlerContext ctx, RequestFraming.Rejection rejection, ChannelFutureListener report) {
        rejected = true;
        FullHttpResponse answer = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(rejection.status()),
                Unpooled.wrappedBuffer(rejection.errorBody()));
        answer.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, ErrorBody.CONTENT_TYPE)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, answer.content().readableBytes())
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        if (unanswered > 0) {
            pending = answer; // sent when the responses to earlier requests on this connection end
            pendingReport = report;
        } else {
            send(ctx, answer, report);
        }
    }

    /** Writes a refusal and closes: reported first (if anyone listens) once it is written or has failed. */
    private static void send(ChannelHandlerContext ctx, FullHttpResponse answer, ChannelFutureListener report) {
        io.netty.channel.ChannelFuture written = ctx.writeAndFlush(answer);
        if (report != null) {
            written.addListener(report);
        }
        written.addListener(ChannelFutureListener.CLOSE);
    }

    /**
     * The report of a refused head ({@link RefusedHead}): its request line unless the decoder could not
     * read it whole (its placeholder request then).
     */
    private ChannelFutureListener report(
            ChannelHandlerContext ctx, HttpRequest request, boolean decoderFailed, RequestFraming.Rejection rejection) {
        long start = System.nanoTime();
        boolean lineUnread = decoderFailed
                && UNREAD_TARGET.equals(request.uri())
                && HttpVersion.HTTP_1_0.equals(request.protocolVersion());
        String method = lineUnread ? null : request.method().name();
        String target = lineUnread ? null : request.uri();
        String client = clientAddress(ctx.channel());
        int bodyLength = rejection.errorBody().length;
        return written -> observer.exchange(
                RefusedHead.event(rejection.status(), method, target, client, System.nanoTime() - start, bodyLength));
    }

    /** The peer's address, as {@link ClientRequest#clientAddress} gives it. */
    static String clientAddress(Channel channel) {
        if (!(channel.remoteAddress() instanceof InetSocketAddress remote)) {
            return "unknown";
        }
        return remote.getAddress() != null ? remote.getAddress().getHostAddress() : remote.getHostString();
    }

    /**
     * A client that half-closes after its request (a FIN once it has sent everything, as {@code
     * curl}-like tools and some load balancers do) still gets its answers: the connection is allowed
     * to stay half-open ({@code ALLOW_HALF_CLOSURE}) and is closed here once every request read is
     * answered, or at once when none is in flight. The event stops here: Reactor Netty would close at
     * once.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof ChannelInputShutdownEvent) {
            inputShut = true;
            if (unanswered == 0 && pending == null) {
                ctx.close();
            }
            return;
        }
        if (event instanceof ChannelInputShutdownReadComplete) {
            return;
        }
        if (event instanceof ConnectionGuard.HeadTimedOut) {
            rejected = true; // answered 408 below the codec: nothing after it is a request
            return;
        }
        Http2StreamCheck.installIfH2(ctx.pipeline()); // h2c by prior knowledge or upgrade: before its first frame
        ctx.fireUserEventTriggered(event);
    }

    /**
     * A read that failed (a connection the client reset, or one that timed out in the kernel) is a
     * client that left, not a half-close: Netty's transports report it and then, on a half-closable
     * channel, the same input shutdown a FIN makes, which would keep the connection (and every upstream
     * call its requests wait on) until their answers. It closes here, at once, so the exchanges under
     * way are cancelled. The error is counted as the client's ({@link ClientErrors}: a line per kind a
     * minute at most) and goes no further: Reactor Netty's bridge would log it at WARN for every
     * connection whose request had been read whole ("observed post termination").
     */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!(cause instanceof java.io.IOException)) {
            ctx.fireExceptionCaught(cause);
            return;
        }
        rejected = true; // nothing read after it is a request
        if (ctx.pipeline().get(ClientErrors.NAME) instanceof ClientErrors errors) {
            errors.errors().report(dev.sluice.observe.ClientProtocolError.CONNECTION, cause);
        }
        ctx.close();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (pending != null) { // the connection ended before the earlier responses did
            pending.release();
            pending = null;
        }
    }

    /**
     * The core's rejection of a decoded head, or empty: its framing ({@link RequestFraming#check}) and
     * its size by {@code server.limits}.
     */
    static java.util.Optional<RequestFraming.Rejection> rejection(HttpRequest request, ServerLimits limits) {
        return RequestFraming.check(head(
                        request.protocolVersion().text(), request.method().name(), request.uri(), request.headers()))
                .or(() -> RequestFraming.checkSize(
                        request.uri().length(), request.headers().size(), limits));
    }

    /**
     * The same for the head of an HTTP/2 stream ({@link RequestFraming#checkStream}), as Netty's
     * translation to HTTP/1.1 objects left it. Its Transfer-Encoding is not the client's and is not
     * asked about: Netty's h2 decoder refuses a connection-specific field from the client (RFC 9113
     * section 8.2.2), and the translation adds {@code chunked} to every head that leaves its stream
     * open without a content-length, a body that END_STREAM frames.
     */
    static java.util.Optional<RequestFraming.Rejection> streamRejection(
            String method, String target, HttpHeaders headers, ServerLimits limits) {
        return RequestFraming.checkStream(head("HTTP/2.0", method, target, headers, java.util.List.of()))
                .or(() -> RequestFraming.checkSize(target.length(), headers.size(), limits));
    }

    private static RequestFraming.Head head(String version, String method, String target, HttpHeaders headers) {
        return head(version, method, target, headers, all(headers, HttpHeaderNames.TRANSFER_ENCODING));
    }

    private static RequestFraming.Head head(
            String version,
            String method,
            String target,
            HttpHeaders headers,
            java.util.List<String> transferEncodings) {
        return new RequestFraming.Head(
                version,
                method,
                target,
                headers.getAll(HttpHeaderNames.HOST),
                transferEncodings,
                all(headers, HttpHeaderNames.CONTENT_LENGTH),
                all(headers, HttpHeaderNames.EXPECT));
    }

    /** Every value of {@code name}; no list built for the usual request, which has none. */
    private static java.util.List<String> all(HttpHeaders headers, CharSequence name) {
        return headers.contains(name) ? headers.getAll(name) : java.util.List.of();
    }

    /** The answer to a head Netty's decoder refused, by what it refused. */
    private static RequestFraming.Rejection decoderRejection(Throwable cause) {
        return switch (cause) {
            case TooLongHttpLineException line -> RequestFraming.Rejection.forParserStatus(414);
            case TooLongHttpHeaderException header -> RequestFraming.Rejection.forParserStatus(431);
            case TooLongFrameException frame -> RequestFraming.Rejection.forParserStatus(431);
            default -> RequestFraming.Rejection.forParserStatus(400);
        };
    }
}
