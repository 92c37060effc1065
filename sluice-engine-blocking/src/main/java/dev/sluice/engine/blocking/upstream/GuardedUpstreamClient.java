package dev.sluice.engine.blocking.upstream;

import dev.sluice.config.UpstreamConfig;
import dev.sluice.engine.PoolStats;
import dev.sluice.http.UpstreamFailure;
import dev.sluice.upstream.Attempt;
import dev.sluice.upstream.UpstreamGuard;
import java.io.InterruptedIOException;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * An upstream of one or more endpoints, each with its own pool (a client made by {@code perEndpoint}),
 * carrying out the core's {@link UpstreamGuard}: it asks which endpoint takes each try, tells it how
 * each try ended, and waits (parks) the backoff the guard gives before a retry. A retried call's
 * earlier answers are dropped unread; only the last try's answer reaches the caller. A request body
 * the guard holds (a declared length within {@code replay-buffer}) is read whole first and sent from
 * memory on each try; any other body streams, and its request is never retried.
 */
public final class GuardedUpstreamClient implements UpstreamClient {

    private static final ScheduledExecutorService TRY_TIMER = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("sluice-try-timer").daemon().factory());

    private static final int RUNNING = 0;
    private static final int EXPIRED = 1;
    private static final int ANSWERED = 2;

    private final UpstreamConfig config;
    private final UpstreamGuard guard;
    private final UpstreamClient[] endpoints;
    private final long perTryNanos;

    private GuardedUpstreamClient(UpstreamConfig config, Function<UpstreamConfig, UpstreamClient> perEndpoint) {
        this.config = config;
        this.guard = UpstreamGuard.start(config);
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
        this.perTryNanos = guard.perTryTimeoutNanos();
    }

    /** Makes guarded upstreams whose endpoints' pools {@code perEndpoint} makes. */
    public static Function<UpstreamConfig, UpstreamClient> over(Function<UpstreamConfig, UpstreamClient> perEndpoint) {
        return config -> new GuardedUpstreamClient(config, perEndpoint);
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
        boolean replayable = request.body() == null;
        byte[] held = null; // a small body of declared length, held so that a retry can send it again
        if (!replayable && guard.holdsBody(request.contentLength())) {
            try {
                held = request.body().readNBytes((int) request.contentLength());
            } catch (java.io.IOException e) {
                throw new UpstreamException(UpstreamFailure.RESET, config.name(), e); // the client's body broke
            }
            if (held.length != request.contentLength()) {
                throw new UpstreamException(
                        UpstreamFailure.RESET,
                        config.name(),
                        new java.io.EOFException("the request body ended before its Content-Length"));
            }
            replayable = true;
        }
        Attempt attempt = guard.begin(null);
        while (true) {
            if (attempt == null) {
                throw new UpstreamException(UpstreamFailure.CIRCUIT_OPEN, config.name(), null);
            }
            UpstreamResponse response = null;
            UpstreamException failure = null;
            AtomicInteger state = new AtomicInteger(RUNNING);
            ScheduledFuture<?> timer = null;
            request.beginTry(attempt.number());
            if (held != null) {
                request.body(new java.io.ByteArrayInputStream(held), held.length);
            }
            if (perTryNanos > 0) {
                timer = TRY_TIMER.schedule(
                        () -> {
                            if (state.compareAndSet(RUNNING, EXPIRED)) {
                                request.expireTry();
                            }
                        },
                        perTryNanos,
                        TimeUnit.NANOSECONDS);
            }
            try {
                response = endpoints[attempt.endpoint().index()].send(request);
            } catch (UpstreamException e) {
                failure = e;
            } finally {
                if (timer != null) {
                    timer.cancel(false);
                }
            }
            if (!state.compareAndSet(RUNNING, ANSWERED) && !request.isCancelled()) {
                if (response != null) {
                    drop(response); // its head came as the try's time ran out: the try timed out
                    response = null;
                }
                failure = new UpstreamException(UpstreamFailure.READ_TIMEOUT, config.name(), failure);
            }
            if (response != null) {
                attempt.answered(response.status());
            } else if (request.isCancelled()) {
                attempt.abandoned();
                throw failure;
            } else {
                attempt.failed(failure.failure());
            }
            long wait = request.isCancelled() ? -1 : guard.retryDelay(attempt, request.method(), replayable);
            if (wait < 0) {
                if (response != null) {
                    return response;
                }
                throw failure;
            }
            if (response != null) {
                drop(response); // an answer to try again: dropped unread, its connection with it
            }
            if (wait > 0) {
                try {
                    request.awaitTurn(wait, config.name());
                } catch (InterruptedIOException cancelled) {
                    throw new UpstreamException(UpstreamFailure.TIMEOUT, config.name(), cancelled);
                }
            }
            attempt = guard.begin(attempt);
        }
    }

    /** Drops an answer unread: its connection is closed, and its pool slot given back. */
    private static void drop(UpstreamResponse response) {
        response.abort();
        response.close();
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
