package dev.sluice.engine.blocking.upstream;

import dev.sluice.config.UpstreamConfig;
import dev.sluice.engine.PoolStats;
import dev.sluice.http.UpstreamFailure;
import dev.sluice.upstream.UpstreamCall;
import dev.sluice.upstream.UpstreamCall.Action;
import dev.sluice.upstream.UpstreamGuard;
import java.io.InterruptedIOException;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * An upstream of one or more endpoints, each with its own pool (a client made by {@code perEndpoint}),
 * carrying out the core's try loop ({@link UpstreamCall}, over the upstream's {@link UpstreamGuard}):
 * it sends each try where the call says, tells the call how it ended, parks for the backoff it gives,
 * drops a retried try's answer unread, and relays the last. A body the call holds (a declared length
 * within {@code replay-buffer}) is read whole first and sent from memory on each try; any other body
 * streams, and its request is never retried.
 */
public final class GuardedUpstreamClient implements UpstreamClient {

    private static final ScheduledExecutorService TRY_TIMER = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("sluice-try-timer").daemon().factory());

    private final UpstreamConfig config;
    private final UpstreamGuard guard;
    private final UpstreamClient[] endpoints;

    private GuardedUpstreamClient(
            UpstreamConfig config, Function<UpstreamConfig, UpstreamClient> perEndpoint, LongSupplier ticker) {
        this.config = config;
        this.guard = UpstreamGuard.start(config, ticker);
        int n = config.resilience().endpoints().size();
        this.endpoints = new UpstreamClient[n];
        try {
            for (int i = 0; i < n; i++) {
                endpoints[i] = perEndpoint.apply(config.endpoint(i));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Makes guarded upstreams whose endpoints' pools {@code perEndpoint} makes. */
    public static Function<UpstreamConfig, UpstreamClient> over(Function<UpstreamConfig, UpstreamClient> perEndpoint) {
        return over(perEndpoint, System::nanoTime);
    }

    /** As {@link #over(Function)}, the guards keeping time by {@code ticker} (the engine's start parameter). */
    public static Function<UpstreamConfig, UpstreamClient> over(
            Function<UpstreamConfig, UpstreamClient> perEndpoint, LongSupplier ticker) {
        return config -> new GuardedUpstreamClient(config, perEndpoint, ticker);
    }

    @Override
    public UpstreamConfig config() {
        return config;
    }

    /** The guard, for the admin listener's and the tests' view of the endpoints. */
    public UpstreamGuard guard() {
        return guard;
    }

    @Override
    public Optional<PoolStats> pool() {
        PoolStats sum = null;
        for (UpstreamClient e : endpoints) {
            Optional<PoolStats> s = e == null ? Optional.empty() : e.pool();
            if (s.isPresent()) {
                sum = sum == null ? s.get() : sum.plus(s.get());
            }
        }
        return Optional.ofNullable(sum);
    }

    @Override
    public UpstreamResponse send(UpstreamRequest request) throws UpstreamException {
        long length = request.body() == null ? 0 : request.contentLength() > 0 ? request.contentLength() : -1;
        UpstreamCall call = new UpstreamCall(guard, request.method(), length, System::nanoTime);
        byte[] held = null; // a small body of declared length, held so that a retry can send it again
        if (call.holdsBody()) {
            try {
                held = request.body().readNBytes((int) length);
                if (held.length != length) {
                    throw new java.io.EOFException("the request body ended before its Content-Length");
                }
            } catch (java.io.IOException e) {
                throw new UpstreamException(UpstreamFailure.RESET, config.name(), e); // the client's body broke
            }
        }
        UpstreamException failure = null; // how the last try failed
        Action action = call.next();
        while (true) {
            switch (action) {
                case Action.Send send -> {
                    UpstreamResponse response = null;
                    AtomicBoolean settled = new AtomicBoolean(); // by the timer (expired) or the answer
                    ScheduledFuture<?> timer = null;
                    request.beginTry(call);
                    if (held != null) {
                        request.body(new java.io.ByteArrayInputStream(held), held.length);
                    }
                    if (send.timeoutNanos() > 0) {
                        timer = TRY_TIMER.schedule(
                                () -> {
                                    if (settled.compareAndSet(false, true)) {
                                        request.expireTry();
                                    }
                                },
                                send.timeoutNanos(),
                                TimeUnit.NANOSECONDS);
                    }
                    try {
                        response = endpoints[send.attempt().endpoint().index()].send(request);
                    } catch (UpstreamException e) {
                        failure = e;
                    } finally {
                        if (timer != null) {
                            timer.cancel(false);
                        }
                    }
                    if (request.isCancelled()) { // the gateway stopped the call: no further try
                        if (response != null) {
                            call.answered(response.status());
                            return response;
                        }
                        call.abandoned();
                        throw failure;
                    }
                    if (!settled.compareAndSet(false, true)) { // the timer came first
                        if (response != null) {
                            drop(response); // its head came as the try's time ran out: the try timed out
                        }
                        failure = new UpstreamException(UpstreamFailure.READ_TIMEOUT, config.name(), failure);
                        action = call.trying() ? call.expired() : call.decision();
                    } else if (response != null) {
                        action = call.answered(response.status());
                        if (action instanceof Action.Relay) {
                            return response;
                        }
                        drop(response); // an answer to try again: dropped unread, its connection with it
                    } else {
                        // Http1UpstreamClient told the call of a stale connection itself (and resent it
                        // when the call said so); any other failure is not a stale connection's
                        action = call.trying() ? call.failed(failure.failure(), true) : call.decision();
                    }
                }
                case Action.RetryAfter retry -> {
                    try {
                        request.awaitTurn(retry.nanos(), config.name()); // at once for 0, unless cancelled
                    } catch (InterruptedIOException cancelled) {
                        throw new UpstreamException(UpstreamFailure.TIMEOUT, config.name(), cancelled);
                    }
                    failure = null;
                    action = call.next();
                }
                case Action.Fail fail ->
                    throw failure != null ? failure : new UpstreamException(fail.failure(), config.name(), null);
                default -> throw new IllegalStateException(action + ": the pool resends, a Relay returns");
            }
        }
    }

    /** Drops an answer unread: its connection is closed, and its pool slot given back. */
    private static void drop(UpstreamResponse response) {
        response.abort();
        response.close();
    }

    @Override
    public void drain() {
        for (UpstreamClient e : endpoints) {
            if (e != null) {
                e.drain();
            }
        }
    }

    @Override
    public void close() {
        guard.close();
        for (UpstreamClient e : endpoints) {
            if (e != null) {
                e.close();
            }
        }
    }
}
