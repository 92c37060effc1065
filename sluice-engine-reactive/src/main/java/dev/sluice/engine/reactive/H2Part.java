package dev.sluice.engine.reactive;

import dev.sluice.compose.PartRequest;
import dev.sluice.http.PseudoHeaders;
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

    H2Part(Part part) {
        this.part = part;
    }

    /** Sends the part's GET of {@code path} with {@code headers} (an HTTP/1.1 part's: connection-specific ones go). */
    void send(HttpClient client, String path, HttpHeaders headers) {
        for (String name : PseudoHeaders.CONNECTION_SPECIFIC) {
            headers.remove(name);
        }
        headers.remove(HttpHeaderNames.HOST); // the :authority
        client.headers(h -> h.set(headers))
                .request(METHOD)
                .uri(path)
                .response((head, body) -> {
                    part.h2Head(
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
        part.onContent(chunk);
    }

    @Override
    protected void hookOnComplete() {
        part.onEnd();
    }

    @Override
    protected void hookOnError(Throwable error) {
        part.onError(error);
    }

    /** The part stops, or drops the try: the stream is reset, nothing more is signalled. */
    void abandon() {
        dispose();
    }
}
