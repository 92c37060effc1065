package dev.sluice.engine.blocking;

import dev.sluice.compose.CompositionBudget;
import dev.sluice.compose.JsonPointerTap;
import dev.sluice.compose.JsonShaper;
import dev.sluice.compose.JsonValidator;
import dev.sluice.compose.PartRequest;
import dev.sluice.compose.ReadAheadBudget;
import dev.sluice.config.PartConfig;
import dev.sluice.engine.blocking.upstream.H2UpstreamClient;
import dev.sluice.engine.blocking.upstream.UpstreamClient;
import dev.sluice.engine.blocking.upstream.UpstreamException;
import dev.sluice.engine.blocking.upstream.UpstreamRequest;
import dev.sluice.engine.blocking.upstream.UpstreamResponse;
import dev.sluice.http.GrpcStatus;
import dev.sluice.transcode.TranscodeCall;
import dev.sluice.transcode.TranscodeException;
import dev.sluice.transcode.TranscodedPart;
import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpFields;

/**
 * One part of a composition, fetched on a fan-out thread into a fixed ring buffer: the bounded
 * read-ahead. When the ring is full the fetch waits and the upstream connection holds the rest. What
 * the bytes mean (ready, failed, relayed next) is the composition's plan's to decide.
 *
 * <pre>
 *   upstream ──read──► ring [readPos .. writePos) ──relay (request thread)──► client
 *                      └ at most read-ahead bytes
 * </pre>
 *
 * <p>The ring's bytes are the gateway's {@link ReadAheadBudget}'s, through its composition's
 * {@link CompositionBudget}: a whole ring's worth is reserved before the part is handed to a fetch
 * thread ({@link Composition}, as the plan needs the part then), so a fetch never waits for the
 * budget; once the status line tells the ring's size, the reserve shrinks to it. The ring's bytes go
 * back when both the fetch and the relay let go of it; a fetch that ends without a ring gives its
 * reserve back as it ends.
 *
 * <p>A gRPC part ({@code grpc-transcode}) sends the call its {@link TranscodedPart} makes of the
 * part's target and feeds the ring the JSON each step of it gives, as a plain part's bytes are fed.
 *
 * <p>All fields below the constructor's are guarded by the composition's lock.
 */
final class PartFetch implements Runnable {

    final int index;
    final PartConfig config;
    private final Composition composition;
    private final UpstreamClient client;
    String target; // set under the lock with the plan's START
    UpstreamRequest request; // made from it when the request thread starts the part; null until then
    private final int capacity;
    private final JsonValidator validator; // the plan's, fed on the fetch thread only
    private final JsonShaper shaper; // the plan's, null unless the part is shaped; fetch thread only
    private final JsonPointerTap tap; // the plan's, null unless chained parts wait for this one's values
    private byte[] in; // a shaped part's bytes as read, before they are shaped into the ring
    private int inPos;
    private int inEnd;
    private final RingPool rings;
    private TranscodedPart grpc; // a gRPC part's call, made with its request; fetch thread after that
    private TranscodedPart.Step refusal; // a gRPC part whose target no method takes: it fails at once

    // guarded by composition.lock
    final CompositionBudget.Reader reader; // the ring's bytes in the composition's budget account
    private int holds; // who still uses the ring: the fetch and the relay; the last to let go returns it
    private boolean relayLetGo; // the relay is done with the ring (or never relays it)
    boolean cancelled;
    boolean ended; // the whole body is in the ring
    byte[] ring;
    int readPos;
    int writePos;
    int count;

    PartFetch(
            Composition composition,
            int index,
            PartConfig config,
            UpstreamClient client,
            int capacity,
            JsonValidator validator,
            RingPool rings) {
        this.composition = composition;
        this.index = index;
        this.config = config;
        this.client = client;
        this.capacity = capacity;
        this.validator = validator;
        this.shaper = composition.shaper(index);
        this.tap = composition.tap(index);
        this.rings = rings;
        this.reader = composition.reader();
    }

    @Override
    public void run() {
        try {
            fetch();
        } catch (RuntimeException e) { // a fault of the gateway's: the request thread answers it
            composition.crashed(e);
        } finally {
            fetchLetsGo(); // the fetch reads into the ring no more
        }
    }

    /**
     * The part's upstream request to its {@link #target}, made with {@code make} (method, target; the
     * client's forwarding headers added): a {@code GET} of JSON, or a gRPC part's call.
     */
    UpstreamRequest request(BiFunction<String, String, UpstreamRequest> make) {
        if (config.grpc().isEmpty()) {
            return make.apply(PartRequest.METHOD, target).header("Accept", PartRequest.ACCEPT);
        }
        try {
            grpc = TranscodedPart.open(config.grpc().get(), target);
        } catch (TranscodeException e) { // no method takes this target: the part fails, nothing is sent
            refusal = TranscodedPart.refusal(e);
            return make.apply("POST", target);
        }
        String base = client == null ? "" : client.config().basePath();
        UpstreamRequest out = make.apply("POST", base + grpc.grpcPath());
        for (String header : TranscodeCall.CLIENT_HEADERS_DROPPED) {
            out.removeHeader(header);
        }
        // what the part has left of its deadline goes as grpc-timeout, so the service knows it
        java.util.List<String> headers = TranscodeCall.requestHeaders(composition.nanosLeft(index));
        for (int i = 0; i < headers.size(); i += 2) {
            out.header(headers.get(i), headers.get(i + 1));
        }
        byte[] frame = grpc.requestFrame();
        return out.body(new ByteArrayInputStream(frame), frame.length);
    }

    private void fetch() {
        if (!composition.beginFetch(this)) {
            return;
        }
        if (config.grpc().isPresent()) {
            grpcFetch();
            return;
        }
        UpstreamResponse response = send();
        if (response == null) {
            return;
        }
        int status = response.status();
        try (response) {
            long contentLength = response.contentLength();
            int size = contentLength >= 0 && contentLength < capacity ? (int) contentLength + 1 : capacity;
            int length = RingPool.length(size, capacity);
            if (!composition.answered(this, status, response.header("Content-Type"), length)) {
                return;
            }
            long cost = composition.budget.fit(length);
            if (!newRing(size, cost)) {
                return; // cancelled meanwhile: the relay has let go of the rings already
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
                int n = shaper == null
                        ? response.readArrived(ring, pos, room) // one hand-over to the relay, not one per socket read
                        : shaped(response, pos, room);
                if (n > 0 && validator != null) {
                    validator.feed(ring, pos, n);
                }
                if (n > 0 && tap != null) {
                    tap.feed(ring, pos, n);
                }
                if (!composition.received(this, n)) {
                    return;
                }
            }
        } catch (UpstreamException e) {
            composition.failed(this, e.failure(), status);
        }
    }

    /** Sends the part's request; null when it failed (the plan is told). */
    private UpstreamResponse send() {
        try {
            return client.send(request);
        } catch (UpstreamException e) {
            composition.failed(this, e.failure(), 0);
            return null;
        }
    }

    /** A gRPC part's call: each step of its {@link TranscodedPart} told to the plan, its JSON into the ring. */
    private void grpcFetch() {
        if (refusal != null) {
            composition.failed(this, refusal.failedStatus(), refusal.error());
            return;
        }
        UpstreamResponse response = send();
        if (response == null) {
            return;
        }
        int status = response.status();
        try (response) {
            if (!step(grpc.head(
                    status, response.header(GrpcStatus.STATUS_HEADER), response.header(GrpcStatus.MESSAGE_HEADER)))) {
                response.abort();
                return;
            }
            byte[] buffer = new byte[16 * 1024];
            while (true) {
                int n = response.readArrived(buffer, 0, buffer.length); // each message on as it arrives
                if (n < 0) {
                    break;
                }
                if (n > 0 && !step(grpc.data(ByteBuffer.wrap(buffer, 0, n)))) {
                    response.abort();
                    return;
                }
            }
            Supplier<HttpFields> trailers = H2UpstreamClient.trailers(response);
            HttpFields fields = trailers == null ? null : trailers.get();
            step(grpc.end(
                    fields == null ? null : fields.get(GrpcStatus.STATUS_HEADER),
                    fields == null ? null : fields.get(GrpcStatus.MESSAGE_HEADER)));
        } catch (UpstreamException e) {
            if (e.failure().isTimeout()) {
                composition.failed(this, e.failure(), status);
            } else { // the answer broke off (a reset stream, a lost connection): a failed part, never a whole one
                step(grpc.cut(e.failure().reason()));
            }
        }
    }

    /** Tells the plan one step of a gRPC part and puts its JSON in the ring. Returns whether to read on. */
    private boolean step(TranscodedPart.Step step) {
        if (step.failed()) {
            composition.failed(this, step.failedStatus(), step.error());
            return false;
        }
        if (step.answered() != 0) {
            int length = RingPool.length(capacity, capacity);
            if (!composition.answered(this, step.answered(), TranscodedPart.CONTENT_TYPE, length)) {
                return false;
            }
            if (!newRing(capacity, composition.budget.fit(length))) {
                return false;
            }
        }
        byte[] json = step.json();
        int off = 0;
        while (off < json.length) {
            int pos;
            int room;
            composition.lock.lock();
            try {
                while (count == ring.length && !cancelled) {
                    composition.changed.awaitUninterruptibly();
                }
                if (cancelled) {
                    return false;
                }
                pos = writePos;
                room = Math.min(ring.length - count, ring.length - writePos);
            } finally {
                composition.lock.unlock();
            }
            int n = Math.min(room, json.length - off);
            System.arraycopy(json, off, ring, pos, n);
            if (validator != null) {
                validator.feed(ring, pos, n);
            }
            if (tap != null) {
                tap.feed(ring, pos, n);
            }
            off += n;
            if (!composition.received(this, n)) {
                return false;
            }
        }
        if (step.end()) {
            composition.received(this, -1);
            return false;
        }
        return true;
    }

    /**
     * Reads the body into {@link #in} when it is used up, and shapes what it holds into the ring's
     * room: the bytes written there, or -1 at the body's end.
     */
    private int shaped(UpstreamResponse response, int pos, int room) throws UpstreamException {
        if (inPos == inEnd && !shaper.hasPending()) {
            if (in == null) {
                in = new byte[Math.min(capacity, 16 * 1024)];
            }
            int n = response.readArrived(in, 0, in.length);
            if (n < 0) {
                return n;
            }
            inPos = 0;
            inEnd = n;
        }
        inPos += shaper.shape(in, inPos, inEnd - inPos, ring, pos, room);
        return shaper.produced();
    }

    /**
     * The ring for this part's body: the read-ahead, or less when the body's length is known and
     * smaller (one byte more, so that the end of the body is read without waiting for room), its
     * {@code cost} kept of the reserve in the composition's budget account (the rest goes back). Both the fetch and the relay let go
     * of it, whether or not the part's body is read.
     *
     * @return whether the body is read; false: cancelled, or the relay let go already (nobody would
     *     relay it), and the reserve went back
     */
    private boolean newRing(int size, long cost) {
        byte[] r = rings.take(size, capacity);
        boolean late;
        composition.lock.lock();
        try {
            late = cancelled || relayLetGo;
            if (late) {
                reader.free();
            } else {
                reader.shrink(cost);
                holds = 2;
                ring = r;
            }
        } finally {
            composition.lock.unlock();
        }
        if (late) {
            rings.give(r);
        }
        return !late;
    }

    /**
     * The relay is done with the ring (the part wholly relayed, written as {@code null}, or the
     * composition over): its hold goes, once. Giving a part's ring back before the composition ends
     * is what keeps the budget moving: rings held by parts already relayed would otherwise starve
     * the parts relayed after them (ReadAheadLivenessContract). Under the composition's lock or not.
     */
    void relayLetsGo() {
        byte[] r;
        composition.lock.lock();
        try {
            if (relayLetGo) {
                return;
            }
            relayLetGo = true;
            r = letGo();
        } finally {
            composition.lock.unlock();
        }
        if (r != null) {
            rings.give(r);
        }
    }

    /** Under the lock: whether the relay let go of the ring already (then nobody relays this part). */
    boolean relayDone() {
        return relayLetGo;
    }

    /** The fetch reads into the ring no more: its hold goes. */
    private void fetchLetsGo() {
        byte[] r;
        composition.lock.lock();
        try {
            r = letGo();
        } finally {
            composition.lock.unlock();
        }
        if (r != null) {
            rings.give(r);
        }
    }

    /**
     * Under the lock: one hold goes; the last one's ring is returned (to go back to the pool) and its
     * bytes to the budget account ({@link CompositionBudget.Reader#free}: the floor's refill the
     * floor, and the composition's waiting parts are told). Null while another hold remains, or no
     * ring was set (it is set before either can let go, or never; then the reserve goes back).
     */
    private byte[] letGo() {
        if (ring == null) { // the body was never read into a ring: the reserve taken at the start goes back
            reader.free();
            return null;
        }
        if (holds == 0 || --holds > 0) {
            return null;
        }
        reader.free();
        return ring;
    }
}
