package dev.sluice.engine.blocking.upstream;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.UpstreamConfig;
import dev.sluice.http.UpstreamFailure;
import dev.sluice.tls.UpstreamTls;
import dev.sluice.upstream.Pacer;
import dev.sluice.upstream.UpstreamCall;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Sluice's own HTTP/1.1 client for one upstream: blocking socket I/O (on a virtual thread it parks,
 * costing no platform thread), a LIFO pool of keep-alive connections, and response bodies read
 * straight into the caller's array (a composition part's ring, the proxy's pooled buffer) with no
 * copy in between once the head is parsed.
 *
 * <p>It does what a gateway needs and nothing else: no redirects, cookies, decompression,
 * authentication or caching; the request head is written as given (plus framing), the response
 * head is parsed strictly (RFC 9112) so that a malformed or ambiguous answer is a {@code 502
 * bad_response}, never a guess. The pool holds {@code max-connections} slots; at most {@code
 * max-connections + max-pending} calls are admitted, the rest get {@code 503 pool_exhausted} at
 * once. A bodyless idempotent request whose connection is closed or reset before any response byte
 * (a pooled connection the upstream closed while idle, a fresh one it dropped) is sent once more on a
 * fresh connection (RFC 9110 section 9.2.2); never after a byte of the answer, a timeout, or for a
 * request with a body, which cannot be sent twice.
 */
public final class Http1UpstreamClient implements UpstreamClient {

    /** Connections idle longer than this are checked for a close by the upstream before reuse. */
    private static final long VALIDATE_AFTER_NANOS = TimeUnit.SECONDS.toNanos(2);

    /** How often a caller waiting for a slot looks whether it was cancelled. */
    private static final long CANCEL_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private static final ScheduledExecutorService SWEEPER = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("sluice-pool-sweeper").daemon().factory());

    private final UpstreamConfig config;
    private final String name;
    private final Semaphore admission;
    private final LinkedBlockingDeque<Http1Connection> slots;
    private final Pacer pacer;
    private final long acquireNanos;
    private final long idleNanos;
    private final long validateAfterNanos;
    private final long maxLifetimeNanos; // Long.MAX_VALUE: none
    private final ScheduledFuture<?> sweep;
    private final ScheduledFuture<?> readWatch;
    private final Http1Connection[] connections; // every slot, in the deque or out of it
    private final long readTimeoutNanos;
    private volatile boolean closed;
    private volatile boolean draining; // retired by a reload: no connection goes back to the pool
    private final String authority; // the Host of a request that names none: made once, not per request

    public Http1UpstreamClient(UpstreamConfig config) {
        this(config, VALIDATE_AFTER_NANOS);
    }

    /**
     * @param validateAfterNanos how long a connection may stay idle before it is checked for a close
     *     ahead of reuse (tests that must reach a stale connection pass {@code Long.MAX_VALUE})
     */
    Http1UpstreamClient(UpstreamConfig config, long validateAfterNanos) {
        this.validateAfterNanos = validateAfterNanos;
        this.config = requireNonNull(config, "config");
        this.name = config.name();
        this.authority = config.authority();
        this.admission = new Semaphore(config.maxConnections() + config.maxPending());
        this.slots = new LinkedBlockingDeque<>(config.maxConnections());
        UpstreamTls tls = config.tls()
                .map(t -> UpstreamTls.create(t, "upstreams." + name + ".tls"))
                .orElse(null);
        this.connections = new Http1Connection[config.maxConnections()];
        for (int i = 0; i < connections.length; i++) {
            connections[i] = new Http1Connection(config, tls);
            slots.addLast(connections[i]);
        }
        this.maxLifetimeNanos = config.maxLifetime().map(Duration::toNanos).orElse(Long.MAX_VALUE);
        this.pacer = config.pace().map(Pacer::new).orElse(null);
        this.acquireNanos = config.acquireTimeout().toNanos();
        this.idleNanos = config.idleTimeout().toNanos();
        long every = Math.max(TimeUnit.MILLISECONDS.toNanos(100), Math.min(idleNanos / 2, TimeUnit.SECONDS.toNanos(5)));
        this.sweep = SWEEPER.scheduleWithFixedDelay(this::closeIdle, every, every, TimeUnit.NANOSECONDS);
        this.readTimeoutNanos = Math.max(1, config.readTimeout().toNanos());
        long tick = readWatchTick(readTimeoutNanos);
        this.readWatch = SWEEPER.scheduleWithFixedDelay(this::expireReads, tick, tick, TimeUnit.NANOSECONDS);
    }

    /**
     * How often the watchdog looks for a read blocked for read-timeout: a tenth of it, between 5 ms
     * and a second. A read times out that much after read-timeout at most.
     */
    static long readWatchTick(long readTimeoutNanos) {
        return Math.clamp(readTimeoutNanos / 10, TimeUnit.MILLISECONDS.toNanos(5), TimeUnit.SECONDS.toNanos(1));
    }

    /** The read watchdog: ends every read blocked for read-timeout ({@link Http1Connection#expireRead}). */
    private void expireReads() {
        for (Http1Connection connection : connections) {
            connection.expireRead(readTimeoutNanos);
        }
    }

    @Override
    public UpstreamConfig config() {
        return config;
    }

    /** {@link UpstreamConfig#authority()}, made once. */
    String authority() {
        return authority;
    }

    /**
     * A slot out of the deque carries an exchange (or a connection being opened for one); an open one
     * in it is idle; admission permits taken beyond the slots in use are callers waiting for one.
     */
    @Override
    public java.util.Optional<dev.sluice.engine.PoolStats> pool() {
        int free = slots.size();
        int idle = 0;
        for (Http1Connection slot : slots) {
            if (slot.isOpen()) {
                idle++;
            }
        }
        int inUse = Math.max(0, config.maxConnections() - free);
        int admitted = config.maxConnections() + config.maxPending() - admission.availablePermits();
        return java.util.Optional.of(new dev.sluice.engine.PoolStats(name, inUse, idle, Math.max(0, admitted - inUse)));
    }

    @Override
    public UpstreamResponse send(UpstreamRequest request) throws UpstreamException {
        if (!admission.tryAcquire()) {
            throw new UpstreamException(UpstreamFailure.POOL_EXHAUSTED, name, null);
        }
        Http1Connection connection = null;
        try {
            if (request.isCancelled()) {
                throw cancelled(null);
            }
            if (pacer != null) {
                request.awaitTurn(pacer.reserve(), name);
            }
            boolean fresh = false;
            while (true) {
                connection = acquire(request);
                if (fresh) {
                    connection.close(); // a retry never lands on another pooled connection that may be just as dead
                }
                try {
                    if (!connection.isOpen()) {
                        connection.connect();
                    }
                    Http1Exchange exchange = new Http1Exchange(this, connection, request);
                    request.onCancel(exchange::abort);
                    exchange.start();
                    return exchange;
                } catch (Http1Connection.StaleConnection e) {
                    // closed or reset before any byte of an answer: a pooled connection the upstream closed
                    // while idle, or a fresh one it dropped (an overflowing accept queue)
                    connection.close();
                    slots.addLast(connection);
                    connection = null;
                    if (request.isStopped()
                            || !(request.call().failed(UpstreamFailure.RESET, false)
                                    instanceof UpstreamCall.Action.Resend)) {
                        throw classify(e.getCause(), request); // the call has decided what comes next
                    }
                    fresh = true;
                }
            }
        } catch (UpstreamException | IOException | RuntimeException e) {
            if (connection != null && e instanceof RequestWriter.RefusedHead && connection.isOpen()) {
                connection.markIdle(); // nothing was written: the connection is as good as before
                slots.addFirst(connection);
            } else if (connection != null) {
                connection.close();
                slots.addLast(connection);
            }
            admission.release();
            throw e instanceof UpstreamException u ? u : classify(e, request);
        }
    }

    /** Takes a slot (LIFO: the most recently used live connection first), waiting up to acquire-timeout. */
    private Http1Connection acquire(UpstreamRequest request) throws UpstreamException {
        long deadline = System.nanoTime() + acquireNanos;
        while (true) {
            if (closed) {
                throw new UpstreamException(UpstreamFailure.POOL_EXHAUSTED, name, null);
            }
            Http1Connection slot = slots.pollFirst();
            if (slot == null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new UpstreamException(UpstreamFailure.POOL_EXHAUSTED, name, null);
                }
                try {
                    slot = slots.pollFirst(Math.min(left, CANCEL_POLL_NANOS), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw cancelled(e);
                }
                if (request.isCancelled()) {
                    if (slot != null) {
                        slots.addFirst(slot);
                    }
                    throw cancelled(null);
                }
                if (slot == null) {
                    continue;
                }
            }
            if (slot.isOpen()) {
                long idle = System.nanoTime() - slot.idleSince();
                if (idle > idleNanos || tooOld(slot) || (idle > validateAfterNanos && !slot.stillOpen())) {
                    slot.close();
                }
            }
            return slot;
        }
    }

    /** Called by an exchange when it ends: a connection fit for reuse goes back first in line, a closed slot last. */
    void release(Http1Connection connection, boolean reusable) {
        try {
            if (reusable && !closed && !draining && !tooOld(connection)) {
                connection.markIdle();
                slots.addFirst(connection);
            } else {
                connection.close();
                slots.addLast(connection);
            }
        } finally {
            admission.release();
        }
    }

    /** Whether {@code connection} is older than {@code max-lifetime}: closed instead of reused. */
    private boolean tooOld(Http1Connection connection) {
        return maxLifetimeNanos != Long.MAX_VALUE && System.nanoTime() - connection.openedAt() > maxLifetimeNanos;
    }

    private void closeIdle() {
        long now = System.nanoTime();
        for (Http1Connection slot : slots) {
            if (slot.isOpen()
                    && (now - slot.idleSince() > idleNanos || tooOld(slot))
                    && slots.removeFirstOccurrence(slot)) {
                slot.close();
                slots.addLast(slot);
            }
        }
    }

    /**
     * Runs {@code check} every read-timeout until the returned future is cancelled: the watchdog of a
     * request body being written, since a blocking socket write has no timeout of its own.
     */
    ScheduledFuture<?> everyReadTimeout(Runnable check) {
        long period = Math.max(1, config.readTimeout().toNanos());
        return SWEEPER.scheduleAtFixedRate(check, period, period, TimeUnit.NANOSECONDS);
    }

    UpstreamException cancelled(Throwable cause) {
        return new UpstreamException(UpstreamFailure.TIMEOUT, name, cause);
    }

    /** Turns an I/O failure into the failure the client is told of. */
    UpstreamException classify(Throwable e, UpstreamRequest request) {
        if (request.isCancelled()) {
            return cancelled(e);
        }
        UpstreamFailure failure = switch (e) { // this client's own types, then the core's reading of the JDK's
            case Http1Connection.ConnectTimeout t -> UpstreamFailure.CONNECT_TIMEOUT;
            case Http1Connection.TlsHandshakeFailed t -> UpstreamFailure.TLS_HANDSHAKE;
            case Http1Connection.BadResponse t -> UpstreamFailure.BAD_RESPONSE;
            default -> UpstreamFailure.ofJdk(e);
        };
        if (failure == null) {
            failure = e instanceof InterruptedIOException ? UpstreamFailure.TIMEOUT : UpstreamFailure.RESET;
        }
        return new UpstreamException(failure, name, e);
    }

    @Override
    public void drain() {
        draining = true;
        for (Http1Connection slot : slots) {
            if (slot.isOpen() && slots.removeFirstOccurrence(slot)) {
                slot.close();
                slots.addLast(slot);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        sweep.cancel(false);
        readWatch.cancel(false);
        for (Http1Connection slot : slots) {
            slot.close();
        }
    }
}
