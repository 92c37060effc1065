package dev.sluice.engine.blocking;

import dev.sluice.compose.JsonSplice;
import dev.sluice.compose.JsonValidator;
import dev.sluice.compose.PartOutcome;
import dev.sluice.config.ComposeTarget;
import dev.sluice.engine.blocking.PartFetch.PartFailure;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One composed response in flight. Parts are fetched on fan-out threads ({@link PartFetch}); the
 * request thread relays one ready part at a time through {@link ClientOutput}, then {@code _meta}.
 * One lock guards every part's state; parts and the relay signal {@link #changed} on every step.
 */
final class Composition {

    final ReentrantLock lock = new ReentrantLock();
    final Condition changed = lock.newCondition();

    private final ComposeTarget target;
    private final JsonSplice splice;
    private final Executor fanout;
    private final long start;
    private final long deadline;
    private final PartFetch[] parts;
    private final ArrayDeque<PartFetch> ready = new ArrayDeque<>(); // guarded by lock

    Composition(ComposeTarget target, JsonSplice splice, Executor fanout, long start, long deadline, int partCount) {
        this.target = target;
        this.splice = splice;
        this.fanout = fanout;
        this.start = start;
        this.deadline = deadline;
        this.parts = new PartFetch[partCount];
    }

    void add(PartFetch part) {
        parts[part.index] = part;
    }

    // ---- fetch side (fan-out threads) ----

    void start(PartFetch part) {
        try {
            fanout.execute(part);
        } catch (RejectedExecutionException e) {
            failed(part, new PartFailure("fan-out pool is shut down", false), 0);
        }
    }

    boolean beginFetch(PartFetch part) {
        lock.lock();
        try {
            return !part.cancelled && part.failure == null;
        } finally {
            lock.unlock();
        }
    }

    /** The part's status line arrived; a non-null rejection fails it. Returns whether to read the body. */
    boolean answered(PartFetch part, int status, String rejection, long contentLength) {
        lock.lock();
        try {
            part.status = status;
            part.headers = true;
            if (part.cancelled || part.failure != null) {
                return false;
            }
            if (rejection != null) {
                fail(part, new PartFailure(rejection, false));
                return false;
            }
            part.ring = part.newRing(contentLength);
            changed.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** {@code n} bytes landed at the ring's write position, or the body ended ({@code n < 0}). */
    void received(PartFetch part, int n, JsonValidator validator) {
        lock.lock();
        try {
            if (n < 0) {
                part.ended = true;
                part.endNanos = System.nanoTime();
                if (part.total == 0) {
                    fail(part, new PartFailure("empty body", false));
                } else if (validator != null && !validator.finish()) {
                    fail(part, new PartFailure("invalid JSON: " + validator.error(), false));
                }
            } else {
                part.count += n;
                part.total += n;
                part.writePos = (part.writePos + n) % part.capacity();
                if (validator != null && validator.failed()) {
                    fail(part, new PartFailure("invalid JSON: " + validator.error(), false));
                }
            }
            enqueueIfReady(part);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    void failed(PartFetch part, PartFailure failure, int status) {
        lock.lock();
        try {
            if (status != 0) {
                part.status = status;
            }
            fail(part, failure);
        } finally {
            lock.unlock();
        }
    }

    private void fail(PartFetch part, PartFailure failure) {
        if (part.failure == null) {
            part.failure = failure;
            part.endNanos = System.nanoTime();
        }
        enqueueIfReady(part);
        changed.signalAll();
    }

    private void enqueueIfReady(PartFetch part) {
        if (!part.queued && part.isReady()) {
            part.queued = true;
            ready.add(part);
        }
    }

    /** Fails, and cancels, every part not yet being relayed whose deadline has passed. Under lock. */
    private void expire(long now) {
        for (PartFetch part : parts) {
            if (!part.relayStarted && !part.ended && part.failure == null && now - part.deadline >= 0) {
                part.request.cancel();
                fail(part, PartFailure.TIMEOUT);
            }
        }
    }

    /** Stops every fetch: called when the response is done, failed or aborted. */
    void cancelAll() {
        lock.lock();
        try {
            for (PartFetch part : parts) {
                part.cancelled = true;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        for (PartFetch part : parts) {
            if (!part.ended) {
                part.request.cancel();
            }
        }
    }

    // ---- relay side (request thread) ----

    /**
     * With {@code on-error: fail}: waits until every part has answered or failed, and returns the
     * first non-optional failure, or null.
     */
    PartFetch awaitStatusLines() throws InterruptedException {
        lock.lock();
        try {
            while (true) {
                expire(System.nanoTime());
                PartFetch pending = null;
                boolean blocked = false;
                for (PartFetch part : parts) {
                    if (part.failure != null && !part.config.optional()) {
                        return part;
                    }
                    if (!part.headers && part.failure == null && pending == null) {
                        pending = part;
                    }
                    blocked |= part.isBlocked();
                }
                if (pending == null || (blocked && target.commitsWhenAPartIsFull())) {
                    return null;
                }
                changed.awaitNanos(Math.max(1, nextDeadline() - System.nanoTime()));
            }
        } finally {
            lock.unlock();
        }
    }

    /** Relays every part, in arrival or declared order, then {@code _meta}, and ends the response. */
    void relay(ClientOutput out) throws IOException, InterruptedException, AbortedPart {
        boolean declared = target.relaysInDeclaredOrder();
        PartOutcome[] outcomes = new PartOutcome[parts.length];
        for (int k = 0; k < parts.length; k++) {
            PartFetch part = declared ? awaitReady(parts[k], out) : awaitAnyReady(out);
            outcomes[part.index] = relayPart(part, k == 0, out);
        }
        long now = System.nanoTime();
        List<PartOutcome> meta = new ArrayList<>(parts.length);
        for (PartOutcome o : outcomes) {
            meta.add(o);
        }
        out.write(JsonSplice.meta(meta, now - start));
        out.finish();
    }

    private PartFetch awaitAnyReady(ClientOutput out) throws IOException, InterruptedException {
        lock.lock();
        try {
            while (true) {
                expire(System.nanoTime());
                PartFetch part = ready.poll();
                if (part != null) {
                    part.relayStarted = true;
                    return part;
                }
                waitForChange(out);
            }
        } finally {
            lock.unlock();
        }
    }

    private PartFetch awaitReady(PartFetch part, ClientOutput out) throws IOException, InterruptedException {
        lock.lock();
        try {
            while (true) {
                expire(System.nanoTime());
                if (part.isReady()) {
                    ready.remove(part);
                    part.relayStarted = true;
                    return part;
                }
                waitForChange(out);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Under lock: sends what is staged (so the client is not kept waiting), then waits for any change. */
    private void waitForChange(ClientOutput out) throws IOException, InterruptedException {
        if (out.hasStaged()) {
            lock.unlock();
            try {
                out.flush();
            } finally {
                lock.lock();
            }
            return;
        }
        changed.awaitNanos(Math.max(1, nextDeadline() - System.nanoTime()));
    }

    private long nextDeadline() {
        long next = deadline;
        for (PartFetch part : parts) {
            if (!part.relayStarted && !part.ended && part.failure == null && part.deadline - next < 0) {
                next = part.deadline;
            }
        }
        return next;
    }

    private PartOutcome relayPart(PartFetch part, boolean first, ClientOutput out)
            throws IOException, InterruptedException, AbortedPart {
        out.write(splice.key(part.index, first));
        lock.lock();
        try {
            if (part.failure != null) {
                lock.unlock();
                try {
                    out.write(JsonSplice.NULL);
                } finally {
                    lock.lock();
                }
                return PartOutcome.failed(
                        part.config.name(), part.status, part.failure.reason(), part.endNanos - start);
            }
            while (true) {
                while (part.count == 0 && !part.ended && part.failure == null) {
                    long now = System.nanoTime();
                    if (now - part.deadline >= 0) {
                        part.request.cancel();
                        throw new AbortedPart(
                                part.config.name(), "timeout after " + part.total + " bytes were relayed");
                    }
                    if (out.hasStaged()) {
                        lock.unlock();
                        try {
                            out.flush();
                        } finally {
                            lock.lock();
                        }
                        continue;
                    }
                    changed.awaitNanos(Math.max(1, part.deadline - now));
                }
                if (part.failure != null) {
                    throw new AbortedPart(part.config.name(), part.failure.reason() + " after bytes were relayed");
                }
                if (part.count == 0) {
                    return PartOutcome.ok(part.config.name(), part.status, part.endNanos - start, part.total);
                }
                int pos = part.readPos;
                int len = Math.min(part.count, part.capacity() - pos);
                lock.unlock();
                try {
                    out.write(part.ring, pos, len);
                } finally {
                    lock.lock();
                }
                part.readPos = (pos + len) % part.capacity();
                part.count -= len;
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** A part broke after some of its bytes reached the client: the response must be aborted. */
    static final class AbortedPart extends Exception {
        AbortedPart(String part, String reason) {
            super("part '" + part + "': " + reason, null, false, false);
        }
    }
}
