package dev.sluice.engine.reactive;

import dev.sluice.compose.PartRequest;
import dev.sluice.http.GrpcStatus;
import dev.sluice.transcode.TranscodeCall;
import dev.sluice.transcode.TranscodedPart;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.netty.http.client.HttpClient;

/**
 * One try of a {@link Part} whose upstream is multiplexed ({@code protocol: h2} or {@code h2c}): its
 * GET as a stream on the endpoint's {@link H2Upstream} client. It stands where an HTTP/1.1 part's
 * {@link UpstreamConnection} does: the head, each body buffer, the end or the failure go to the part's
 * {@link UpstreamConnection.Exchange}-like signals, and it asks the stream for one buffer per {@link
 * #read()} — so while the part's read-ahead is full nothing is demanded, Reactor Netty stops reading
 * the stream and HTTP/2 flow control holds the upstream back.
 */
final class H2Part extends BaseSubscriber<ByteBuf> {

    private static final HttpMethod METHOD = HttpMethod.valueOf(PartRequest.METHOD);

    private final Part part;
    private final TranscodedPart grpc; // a gRPC part's call (grpc-transcode), else null
    private reactor.netty.http.client.HttpClientResponse head; // a gRPC part's, for its trailers

    H2Part(Part part, TranscodedPart grpc) {
        this.part = part;
        this.grpc = grpc;
    }

    /**
     * A gRPC part's call: {@link TranscodedPart}'s request frame POSTed to {@code base} + its method's
     * path, with what the part has left of its deadline ({@code nanosLeft}) as {@code grpc-timeout}; each step it makes of the head, the data and the trailers goes to the part ({@link
     * Part#grpcStep}) in place of the raw bytes.
     */
    void sendGrpc(HttpClient client, String base, HttpHeaders headers, long nanosLeft) {
        H2CallHeaders.strip(headers);
        for (String name : TranscodeCall.CLIENT_HEADERS_DROPPED) {
            headers.remove(name);
        }
        java.util.List<String> call = TranscodeCall.requestHeaders(nanosLeft); // with grpc-timeout
        for (int i = 0; i < call.size(); i += 2) {
            headers.set(call.get(i), call.get(i + 1));
        }
        byte[] frame = grpc.requestFrame();
        client.headers(h -> h.set(headers))
                .request(HttpMethod.POST)
                .uri(base + grpc.grpcPath())
                .send((request, out) -> out.sendByteArray(reactor.core.publisher.Mono.just(frame)))
                .response((response, body) -> {
                    head = response;
                    HttpHeaders h = response.responseHeaders();
                    part.grpcStep(
                            this,
                            grpc.head(
                                    response.status().code(),
                                    h.get(GrpcStatus.STATUS_HEADER),
                                    h.get(GrpcStatus.MESSAGE_HEADER)),
                            response.status().code());
                    return body.retain();
                })
                .subscribe(this);
    }

    /** Sends the part's GET of {@code path} with {@code headers} (an HTTP/1.1 part's: connection-specific ones go). */
    void send(HttpClient client, String path, HttpHeaders headers) {
        H2CallHeaders.strip(headers); // Host: the :authority
        client.headers(h -> h.set(headers))
                .request(METHOD)
                .uri(path)
                .response((head, body) -> {
                    part.h2Head(
                            this,
                            head.status().code(),
                            head.responseHeaders().get(HttpHeaderNames.CONTENT_TYPE),
                            head.responseHeaders());
                    return body.retain();
                })
                .subscribe(this);
    }

    @Override
    protected void hookOnSubscribe(Subscription subscription) {
        subscription.request(1); // the part's first read, outstanding from the send
    }

    /** The next body buffer, as the part's read-ahead and budget allow. */
    void read() {
        request(1);
    }

    @Override
    protected void hookOnNext(ByteBuf chunk) {
        if (grpc == null) {
            part.h2Content(this, chunk);
        } else {
            TranscodedPart.Step step;
            try {
                step = grpc.data(chunk.nioBuffer());
            } finally {
                chunk.release();
            }
            part.grpcStep(this, step, 0);
        }
        part.h2ReadComplete(this); // one buffer per request(1): this read is whole, the next may be asked
    }

    @Override
    protected void hookOnComplete() {
        if (grpc == null) {
            part.h2End(this);
            return;
        }
        if (head == null) {
            part.grpcStep(this, grpc.cut("the upstream's answer ended before its head"), 0);
            return;
        }
        head.trailerHeaders()
                .subscribe(
                        t -> part.grpcStep(
                                this, grpc.end(t.get(GrpcStatus.STATUS_HEADER), t.get(GrpcStatus.MESSAGE_HEADER)), 0),
                        e -> part.grpcStep(this, grpc.cut("the upstream's trailers did not come"), 0),
                        () -> part.grpcStep(this, grpc.end(null, null), 0)); // no trailers: NOTHING if ended
    }

    @Override
    protected void hookOnError(Throwable error) {
        if (grpc != null
                && head != null
                && Failures.isUpstreams(error)
                && !Failures.classify(error).isTimeout()) {
            // the answer broke off after its head (a reset stream, a lost connection): a failed part, never a whole one
            part.grpcStep(this, grpc.cut(Failures.classify(error).reason()), 0);
            return;
        }
        part.h2Error(this, error);
    }

    /** The part stops, or drops the try: the stream is reset, nothing more is signalled. */
    void abandon() {
        dispose();
    }
}
