package dev.sluice.engine.blocking;

import dev.sluice.compose.JsonValidator;
import dev.sluice.compose.PartRules;
import dev.sluice.config.PartConfig;
import dev.sluice.engine.blocking.upstream.UpstreamClient;
import dev.sluice.engine.blocking.upstream.UpstreamException;
import dev.sluice.engine.blocking.upstream.UpstreamRequest;
import dev.sluice.engine.blocking.upstream.UpstreamResponse;
import dev.sluice.http.UpstreamFailure;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One part of a composition, fetched on a fan-out thread into a fixed ring buffer: the bounded
 * read-ahead. When the ring is full the fetch waits and the upstream connection holds the rest.
 *
 * <pre>
 *   upstream ──read──► ring [readPos .. writePos) ──relay (request thread)──► client
 *                      └ at most read-ahead bytes
 * </pre>
 *
 * All fields below the constructor's are guarded by the composition's lock.
 */
final class PartFetch implements Runnable {

    final int index;
    final PartConfig config;
    final long deadline;
    private final Composition composition;
    private final UpstreamClient client;
    final UpstreamRequest request;
    private final int capacity;
    private final JsonValidator validator;
    private final RingPool rings;
    /** Who still uses the ring: the fetch and the relay; the last to let go returns it to the pool. */
    private final AtomicInteger ringHolds = new AtomicInteger();

    // guarded by composition.lock
    int status;
    boolean headers;
    boolean ended;
    PartFailure failure;
    boolean cancelled;
    boolean queued;
    boolean relayStarted;
    long endNanos;
    long total;
    byte[] ring;
    int readPos;
    int writePos;
    int count;
    PartFetch next; // sequential fan-out: started when this one ends

    PartFetch(
            Composition composition,
            int index,
            PartConfig config,
            UpstreamClient client,
            UpstreamRequest request,
            long deadline,
            int capacity,
            boolean validateJson,
            RingPool rings) {
        this.composition = composition;
        this.index = index;
        this.config = config;
        this.client = client;
        this.request = request;
        this.deadline = deadline;
        this.capacity = capacity;
        this.validator = validateJson ? new JsonValidator() : null;
        this.rings = rings;
    }

    /** Ready to relay: answered, and has bytes, has ended or has failed (with validation: ended or full). */
    boolean isReady() {
        if (failure != null || ended) {
            return true;
        }
        return headers && count > 0 && (validator == null || count == ring.length);
    }

    /** Answered, not ended, and its read-ahead is full: it can go on only by being relayed. */
    boolean isBlocked() {
        return headers && !ended && failure == null && ring != null && count == ring.length;
    }

    @Override
    public void run() {
        try {
            fetch();
        } finally {
            letGoOfRing(); // the fetch reads into the ring no more
            PartFetch following = next;
            if (following != null) {
                composition.start(following);
            }
        }
    }

    private void fetch() {
        if (!composition.beginFetch(this)) {
            return;
        }
        UpstreamResponse response;
        try {
            response = client.send(request);
        } catch (UpstreamException e) {
            composition.failed(this, failureOf(e), 0);
            return;
        }
        try (response) {
            int code = response.status();
            var rejection = PartRules.rejection(code, response.header("Content-Type"));
            if (!composition.answered(this, code, rejection.orElse(null), response.contentLength())) {
                return;
            }
            while (true) {
                int pos;
                int room;
                composition.lock.lock();
                try {
                    while (count == ring.length && !cancelled) {
                        composition.changed.awaitUninterruptibly();
                    }
                    if (cancelled) {
                        return;
                    }
                    pos = writePos;
                    room = Math.min(ring.length - count, ring.length - writePos);
                } finally {
                    composition.lock.unlock();
                }
                int n = response.readArrived(ring, pos, room); // one hand-over to the relay, not one per socket read
                if (n > 0 && validator != null) {
                    validator.feed(ring, pos, n);
                }
                composition.received(this, n, validator);
                if (n < 0 || (validator != null && validator.failed())) {
                    return;
                }
            }
        } catch (UpstreamException e) {
            composition.failed(this, failureOf(e), status);
        }
    }

    private PartFailure failureOf(UpstreamException e) {
        if (request.isCancelled()) {
            return PartFailure.TIMEOUT;
        }
        UpstreamFailure f = e.failure();
        boolean timeout = f == UpstreamFailure.CONNECT_TIMEOUT
                || f == UpstreamFailure.READ_TIMEOUT
                || f == UpstreamFailure.TIMEOUT;
        return new PartFailure(f.reason(), timeout);
    }

    /**
     * The ring for this part's body: the read-ahead, or less when the body's length is known and
     * smaller (one byte more, so that the end of the body is read without waiting for room).
     */
    byte[] newRing(long contentLength) {
        int size = contentLength >= 0 && contentLength < capacity ? (int) contentLength + 1 : capacity;
        ringHolds.set(2);
        return rings.take(size, capacity);
    }

    /**
     * Called once by the fetch (when it stops reading) and once by the relay (when the composition
     * is over): the second call returns the ring to the pool. The ring is set under the composition's
     * lock before either can call, or never.
     */
    void letGoOfRing() {
        byte[] r;
        composition.lock.lock();
        try {
            r = ring;
        } finally {
            composition.lock.unlock();
        }
        if (r != null && ringHolds.decrementAndGet() == 0) {
            rings.give(r);
        }
    }

    /** The ring's size. Under the lock, after the part answered. */
    int capacity() {
        return ring.length;
    }

    /** Why a part is null in the response. */
    record PartFailure(String reason, boolean timeout) {
        static final PartFailure TIMEOUT = new PartFailure("timeout", true);
    }
}
