package dev.sluice.engine.reactive;

import dev.sluice.http.RequestFraming;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.DefaultHttpContent;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;

/**
 * Writes the client's request body upstream, a buffer at a time, as the connection takes it.
 * One made without a connection (an h2 body of unknown framing) takes the first non-empty
 * buffer, or the body's end, to frame the body ({@link Owner#framed}), and holds that buffer until
 * {@link #attach} gives it the connection.
 */
final class BodyWriter extends BaseSubscriber<ByteBuf> {

    /** The proxied call the body belongs to: told of the framing, and of a body that broke first. */
    interface Owner extends UpstreamConnection.Exchange {
        /** Whether the call has stopped: what still comes is dropped. */
        boolean stopped();

        /** The body's framing, from its first buffer or its end ({@link RequestFraming#firstData}). */
        void framed(long framing);

        /** The body broke, or passed its limit, before it reached the upstream: the call fails. */
        void bodyFailed(Throwable error);
    }

    private final Owner owner;
    private UpstreamConnection target; // null until attached
    private ByteBuf first; // read before the connection was there
    private boolean ended; // the body ended before the connection was there

    BodyWriter(Owner owner, UpstreamConnection target) {
        this.owner = owner;
        this.target = target;
    }

    /** On the home loop, once the upstream has the request head. */
    void attach(UpstreamConnection c) {
        target = c;
        ByteBuf held = first;
        first = null;
        if (held != null) {
            hookOnNext(held);
        }
        if (ended) {
            target.endBody(owner);
        }
    }

    /** The call stopped before a connection took the first buffer. */
    void dropFirst() {
        if (first != null) {
            first.release();
            first = null;
        }
    }

    @Override
    protected void hookOnSubscribe(Subscription subscription) {
        request(1);
    }

    @Override
    protected void hookOnNext(ByteBuf chunk) {
        if (target == null) {
            if (owner.stopped() || !chunk.isReadable()) { // an empty DATA frame tells nothing yet
                chunk.release();
                if (!owner.stopped()) {
                    request(1);
                }
                return;
            }
            first = chunk;
            owner.framed(RequestFraming.firstData(chunk.readableBytes(), false));
            return;
        }
        target.writeBody(new DefaultHttpContent(chunk)).addListener(written -> {
            if (written.isSuccess()) {
                request(1);
            } else {
                cancel();
            }
        });
    }

    @Override
    protected void hookOnComplete() {
        if (target != null && first == null) {
            target.endBody(owner);
            return;
        }
        ended = true; // with a first buffer to write, or none: then the body had no bytes
        if (target == null && first == null && !owner.stopped()) {
            owner.framed(RequestFraming.firstData(0, true));
        }
    }

    @Override
    protected void hookOnError(Throwable error) {
        if (target != null) {
            target.abandon(owner); // the client's body broke: the upstream must not take it as whole
            return;
        }
        dropFirst();
        owner.bodyFailed(error); // broken, or past its limit, before it reached the upstream
    }
}
