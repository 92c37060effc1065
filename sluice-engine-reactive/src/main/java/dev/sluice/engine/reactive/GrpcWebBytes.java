package dev.sluice.engine.reactive;

import dev.sluice.http.GrpcStatus;
import dev.sluice.http.GrpcWeb;
import dev.sluice.http.GrpcWebText;
import dev.sluice.observe.ExchangeTally;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaders;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;

/**
 * Carries a gRPC-Web call's bytes as the core's {@link GrpcWeb} decides: the request body through
 * text mode's decoder, the upstream's messages out as they arrive (encoded in text mode), then its
 * trailers as the body's last frame.
 */
final class GrpcWebBytes {

    private GrpcWebBytes() {}

    /** The client's body as the gRPC call's (decoded as it arrives in text mode). */
    static Flux<ByteBuf> request(GrpcWeb web, ClientRequest in) {
        GrpcWebText.Decoder decoder = web.requestDecoder();
        if (decoder == null) {
            return in.receive().retain();
        }
        return in.receive()
                .<ByteBuf>handle((piece, sink) -> { // copied before the piece is released
                    try {
                        ByteBuffer decoded = decoder.decode(piece.nioBuffer());
                        if (decoded.hasRemaining()) {
                            sink.next(Unpooled.wrappedBuffer(decoded));
                        }
                    } catch (GrpcWebText.Malformed e) {
                        sink.error(new java.io.IOException("gRPC-Web text body: " + e.getMessage(), e));
                    }
                })
                .concatWith(Mono.defer(() -> {
                    try {
                        ByteBuffer last = decoder.finish();
                        return last.hasRemaining() ? Mono.just(Unpooled.wrappedBuffer(last)) : Mono.empty();
                    } catch (GrpcWebText.Malformed e) {
                        return Mono.error(new java.io.IOException("gRPC-Web text body: " + e.getMessage(), e));
                    }
                }));
    }

    /**
     * The upstream's body as gRPC-Web: each piece as it arrives, then the trailers' frame. An answer that
     * stops before its trailers ({@code end} fails it) ends as the core's {@link GrpcWeb#cutShort} says:
     * an error trailer frame, or the upstream's failure (the response is aborted).
     */
    static Flux<ByteBuf> response(
            GrpcWeb web, ByteBufFlux body, H2AnswerEnd end, Mono<HttpHeaders> trailers, ExchangeTally tally) {
        GrpcWeb.Frames frames = new GrpcWeb.Frames();
        Flux<ByteBuf> messages = web.text()
                ? body.map(
                        piece -> { // copied before release
                            ByteBuffer nio = piece.nioBuffer();
                            frames.pass(nio);
                            return Unpooled.wrappedBuffer(web.encode(nio));
                        })
                : body.retain().doOnNext(piece -> frames.pass(piece.nioBuffer()));
        return end.whole(messages)
                .concatWith(trailers.flatMap(t -> {
                    if (t.isEmpty()) {
                        return Mono.empty();
                    }
                    if (tally != null) {
                        tally.grpcStatus(t.get(GrpcStatus.STATUS_HEADER));
                    }
                    List<Map.Entry<String, String>> block = new ArrayList<>(t.size());
                    for (Map.Entry<String, String> h : t) {
                        block.add(h);
                    }
                    return Mono.just(Unpooled.wrappedBuffer(web.trailerFrame(block)));
                }))
                .onErrorResume(
                        Failures::isUpstreams,
                        error -> web.cutShort(frames)
                                .map(frame -> {
                                    if (tally != null) {
                                        tally.grpcStatus(Integer.toString(GrpcWeb.CUT_SHORT_STATUS));
                                    }
                                    return Mono.just(Unpooled.wrappedBuffer(frame));
                                })
                                .orElseGet(() -> Mono.error(error)));
    }
}
