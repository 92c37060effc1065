package dev.sluice.engine.reactive;

import dev.sluice.http.HeaderRules;
import dev.sluice.http.RequestId;
import dev.sluice.http.ResponseHeadCheck;
import dev.sluice.http.UpstreamFailure;
import dev.sluice.http.WebSocketUpgrade;
import dev.sluice.upstream.Attempt;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.ReadTimeoutHandler;
import io.netty.util.ReferenceCountUtil;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.netty.http.server.HttpServerResponse;

/**
 * A proxy route's WebSocket handshake ({@link WebSocketUpgrade}): the upgrade request goes upstream
 * on a connection of its own, outside the lane's pool, on the client connection's loop (so both
 * connections of a tunnel share one thread). A {@code 101} is relayed and both connections lose their
 * HTTP codecs: a {@link WebSocketTunnel} copies bytes between them. Any other answer is relayed as a
 * response whose body streams as the server asks for it, and its connection is closed after it.
 *
 * <pre>
 *   HEAD ──101──► TUNNEL (codecs removed, bytes both ways)
 *     └──other──► REFUSAL (head relayed, body on demand, then closed)
 * </pre>
 */
final class WebSocketRelay {

    private static final String CODEC = "sluice.websocket.codec";
    private static final String TIMEOUT = "sluice.websocket.timeout";

    private final dev.sluice.observe.CallReport report;
    private final Upstream upstream;
    private final HeaderRules rules;

    WebSocketRelay(dev.sluice.observe.CallReport report, Upstream upstream, HeaderRules rules) {
        this.report = report;
        this.upstream = upstream;
        this.rules = rules;
    }

    /** Completes when the tunnel or the relayed refusal ended; fails when the upstream gave no answer. */
    Mono<Void> relay(ClientRequest in, HttpServerResponse response, Channel client, String uri) {
        return Mono.create(sink -> {
            EventLoop loop = client.eventLoop();
            Attempt attempt = upstream.guard().begin(null); // the endpoint; its breaker's permission taken
            if (attempt == null) {
                sink.error(new Failures.Failed(UpstreamFailure.CIRCUIT_OPEN));
                return;
            }
            HttpHeaders headers = UpstreamConnection.newHeaders();
            in.copyHeaders(rules, headers);
            in.addForwarding(rules, upstream.authority(attempt.endpoint()), headers);
            WebSocketUpgrade.UPSTREAM_HEADERS.forEach(headers::set);
            Handshake handshake = new Handshake(in, response, client, sink, attempt);
            long readTimeout = Math.max(1, upstream.config().readTimeout().toNanos());
            ChannelFuture connect = upstream.lane(attempt.endpoint(), loop)
                    .unpooled(loop)
                    .option(ChannelOption.ALLOW_HALF_CLOSURE, true) // a close passes on as a half close
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel channel) {
                            channel.pipeline()
                                    .addLast(CODEC, new HttpClientCodec(Lane.decoding(), false, false))
                                    .addLast(TIMEOUT, new ReadTimeoutHandler(readTimeout, TimeUnit.NANOSECONDS))
                                    .addLast(handshake);
                        }
                    })
                    .connect();
            sink.onCancel(() -> {
                attempt.abandoned(); // nothing if its answer came
                connect.channel().close();
            });
            connect.addListener(connected -> {
                if (!connected.isSuccess()) {
                    attempt.failed(Failures.classify(connected.cause()));
                    sink.error(connected.cause());
                    return;
                }
                Channel channel = connect.channel();
                channel.writeAndFlush(new DefaultFullHttpRequest(
                                HttpVersion.HTTP_1_1,
                                HttpMethod.GET,
                                uri,
                                Unpooled.EMPTY_BUFFER,
                                headers,
                                EmptyHttpHeaders.INSTANCE))
                        .addListener(written -> {
                            if (!written.isSuccess()) {
                                channel.close();
                            }
                        });
                channel.read();
            });
        });
    }

    /** The upstream connection's handler, from the request to its end. Runs on the client's loop. */
    private final class Handshake extends ChannelInboundHandlerAdapter {
        private final ClientRequest in;
        private final HttpServerResponse response;
        private final Channel client;
        private final MonoSink<Void> sink;
        private final long began = System.nanoTime();
        private boolean answered;
        private boolean dropped; // its answer was refused (a 502): whatever follows of it is released
        private WebSocketTunnel tunnel; // after a 101
        private FluxSink<ByteBuf> body; // after any other answer, once the server subscribed to it
        private final java.util.ArrayDeque<HttpContent> early = new java.util.ArrayDeque<>(2); // before that
        private boolean bodyEnded;
        private final Attempt attempt;

        Handshake(ClientRequest in, HttpServerResponse response, Channel client, MonoSink<Void> sink, Attempt attempt) {
            this.attempt = attempt;
            this.in = in;
            this.response = response;
            this.client = client;
            this.sink = sink;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (dropped) {
                ReferenceCountUtil.release(msg);
                return;
            }
            if (tunnel != null) {
                if (msg instanceof ByteBuf bytes && !(msg instanceof HttpContent)) {
                    tunnel.fromUpstream(bytes);
                } else {
                    ReferenceCountUtil.release(msg); // the 101's empty end, decoded before the codec left
                }
                return;
            }
            if (!answered
                    && msg instanceof HttpObject object
                    && object.decoderResult().isFailure()) {
                // not HTTP, or a head over the core's limit: as any other upstream response, a 502
                fail(ctx, msg, new DecoderException(object.decoderResult().cause()));
                return;
            }
            if (!answered && msg instanceof HttpResponse head) {
                int status = head.status().code();
                String problem = ResponseHeadCheck.statusProblem(status);
                if (problem == null && WebSocketUpgrade.skipped(status)) {
                    return; // 100 or 103: the real answer follows
                }
                List<String> upgrade = head.headers().getAll(WebSocketUpgrade.HEADER);
                if (problem == null) {
                    problem = WebSocketUpgrade.switchProblem(status, upgrade); // a 502 bad_response
                }
                boolean switched = WebSocketUpgrade.switched(status, upgrade);
                if (problem == null && !switched) {
                    problem = UpstreamConnection.check(head); // a refusal is judged as any response is
                }
                if (problem != null) {
                    fail(ctx, msg, new DecoderException(problem));
                    return;
                }
                answered = true;
                attempt.answered(status);
                told(status);
                if (switched) {
                    switchOver(ctx, head);
                } else {
                    refuse(ctx, head);
                }
                ReferenceCountUtil.release(msg);
                return;
            }
            if (answered && body == null && msg instanceof HttpContent content) {
                early.add(content);
                return;
            }
            if (body != null && msg instanceof HttpContent content) {
                relay(ctx, content);
                return;
            }
            ReferenceCountUtil.release(msg);
        }

        /** The answer is not one to relay: {@code 502 bad_response}, as for any upstream response. */
        private void fail(ChannelHandlerContext ctx, Object msg, DecoderException problem) {
            answered = true;
            dropped = true;
            ReferenceCountUtil.release(msg);
            attempt.failed(UpstreamFailure.BAD_RESPONSE);
            sink.error(problem);
            ctx.close();
        }

        private void relay(ChannelHandlerContext ctx, HttpContent content) {
            {
                ByteBuf bytes = content.content();
                if (bytes.isReadable()) {
                    body.next(bytes.retain());
                }
                content.release();
                if (content instanceof LastHttpContent) {
                    bodyEnded = true;
                    body.complete();
                    ctx.close();
                }
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            if (tunnel != null) {
                tunnel.upstreamReadComplete();
            } else if (!answered || (body != null && !bodyEnded && body.requestedFromDownstream() > 0)) {
                ctx.read();
            }
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (tunnel != null) {
                tunnel.upstreamWritabilityChanged();
            }
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            if (event instanceof io.netty.channel.socket.ChannelInputShutdownEvent) {
                if (tunnel != null) {
                    tunnel.upstreamInputShutdown();
                } else {
                    ctx.close(); // no more bytes of an answer: what was decoded of it stands
                }
                return;
            }
            ctx.fireUserEventTriggered(event);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (tunnel != null) {
                tunnel.upstreamClosed();
            } else if (!answered) {
                sink.error(new ClosedChannelException());
            } else if (body == null && !early.isEmpty()) {
                return; // the end of a close-delimited body is among the early contents
            } else if (body != null && !bodyEnded) {
                bodyEnded = true;
                body.error(new ClosedChannelException());
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (tunnel == null && !answered) {
                answered = true;
                sink.error(cause);
            } else if (body != null && !bodyEnded) {
                bodyEnded = true;
                body.error(cause);
            }
            ctx.close();
        }

        /** The upstream's status line came: the observer and the tally are told. */
        private void told(int status) {
            report.answered(status, System.nanoTime() - began, in.tally());
        }

        private void switchOver(ChannelHandlerContext ctx, HttpResponse head) {
            StringBuilder wire = new StringBuilder(256).append("HTTP/1.1 101 Switching Protocols\r\n");
            String connection = head.headers().get(HeaderRules.CONNECTION);
            Iterator<Map.Entry<String, String>> it = head.headers().iteratorAsString();
            while (it.hasNext()) {
                Map.Entry<String, String> header = it.next();
                if (rules.forwardResponse(header.getKey(), connection)) {
                    line(wire, header.getKey(), header.getValue());
                }
            }
            rules.responseSets().forEach((name, value) -> line(wire, name, value));
            WebSocketUpgrade.UPSTREAM_HEADERS.forEach((name, value) -> line(wire, name, value));
            String id = response.responseHeaders().get(RequestId.HEADER); // set as the exchange began
            if (id != null) {
                line(wire, RequestId.HEADER, id);
            }
            wire.append("\r\n");
            response.status(101); // what the exchange is reported with; the head itself goes out raw
            ctx.pipeline().remove(TIMEOUT);
            tunnel = new WebSocketTunnel(ctx.channel(), sink, in.websocketIdle());
            // The server's codec: Reactor Netty's named one, or, on a listener that offers h2c, the one
            // Netty's cleartext upgrade handling put in unnamed, with its HttpServerUpgradeHandler
            ChannelPipeline pipeline = client.pipeline();
            ChannelHandlerContext codec = pipeline.context(io.netty.handler.codec.http.HttpServerCodec.class);
            pipeline.addAfter(codec.name(), WebSocketTunnel.NAME, tunnel);
            ChannelHandlerContext upgrades =
                    pipeline.context(io.netty.handler.codec.http.HttpServerUpgradeHandler.class);
            if (upgrades != null) {
                pipeline.remove(upgrades.name()); // raw bytes from now on
            }
            pipeline.remove(codec.name()); // bytes it held go on to the tunnel
            ctx.pipeline().remove(CODEC); // likewise on the upstream side: to this handler
            tunnel.start(Unpooled.wrappedBuffer(wire.toString().getBytes(StandardCharsets.ISO_8859_1)));
        }

        private static void line(StringBuilder wire, String name, String value) {
            wire.append(name).append(": ").append(value).append("\r\n");
        }

        private void refuse(ChannelHandlerContext ctx, HttpResponse head) {
            response.status(head.status());
            HttpHeaders to = response.responseHeaders();
            String connection = head.headers().get(HeaderRules.CONNECTION);
            Iterator<Map.Entry<String, String>> it = head.headers().iteratorAsString();
            while (it.hasNext()) {
                Map.Entry<String, String> header = it.next();
                if (rules.forwardResponse(header.getKey(), connection)) {
                    to.add(header.getKey(), header.getValue());
                }
            }
            rules.responseSets().forEach(to::set);
            Channel channel = ctx.channel();
            Flux<ByteBuf> relayed = Flux.create(emitter -> {
                body = emitter;
                while (!early.isEmpty() && !bodyEnded) {
                    relay(ctx, early.poll());
                }
                early.forEach(ReferenceCountUtil::release); // behind the end: nothing of this answer
                early.clear();
                emitter.onRequest(n -> channel.read());
                emitter.onDispose(() -> {
                    if (!bodyEnded) {
                        channel.close();
                    }
                });
            });
            response.send(relayed).then().subscribe(null, sink::error, sink::success);
        }
    }
}
