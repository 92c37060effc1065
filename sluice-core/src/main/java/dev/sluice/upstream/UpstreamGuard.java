package dev.sluice.upstream;

import dev.sluice.config.UpstreamConfig;
import dev.sluice.config.UpstreamResilience;
import dev.sluice.config.UpstreamResilience.Balance;
import dev.sluice.config.UpstreamResilience.Outlier;
import dev.sluice.config.UpstreamResilience.Retry;
import dev.sluice.http.UpstreamFailure;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * The decisions about one upstream's calls, made once for every engine: which endpoint a call goes
 * to (balancing over those in the rotation), whether its breaker lets it, what its outcome teaches
 * (outlier ejection, the breaker's window), and whether a failed try is tried again, after how long.
 *
 * <pre>
 *   Attempt a = guard.begin(null);            // null: every breaker is open → 503 circuit_open
 *   … send on a.endpoint() …
 *   a.answered(status) | a.failed(failure) | a.abandoned()
 *   long wait = guard.retryDelay(a, method, replayable);   // -1: relay what came
 *   … wait, then guard.begin(a) …
 * </pre>
 *
 * <p>Every method is non-blocking and safe from any thread (an event loop may call it). Time comes
 * from the injected ticker and clock, so tests drive it.
 */
public final class UpstreamGuard implements AutoCloseable {

    /**
     * Upstream trouble, logged once per change of state and never per request: an endpoint's
     * connections failing and made again, its ejection and return, its breaker's transitions. (Health
     * checks log their own moves, {@link HealthChecks}.)
     */
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(UpstreamGuard.class);

    /** Failures a breaker counts: one shared instance, without a stack trace. */
    private static final Throwable FAILED = new Throwable("upstream call failed", null, false, false) {};

    private final String name;
    private final Endpoint[] endpoints;
    private final Balance balance;
    private final Outlier outlier; // null: no ejection
    private final Retry retry; // null: no retries
    private final boolean[] retryOnStatus = new boolean[600];
    private final boolean retryOnConnect;
    private final boolean retryOnReset;
    private final boolean retryOnTimeout;
    private final int maxEjected;
    private final LongSupplier ticker;
    private final DoubleSupplier random;
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger retriesInFlight = new AtomicInteger();
    private final java.util.concurrent.atomic.LongAdder retries = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder refused = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder overBudget = new java.util.concurrent.atomic.LongAdder();
    private final Object ejection = new Object();
    private int ejectedCount; // guarded by ejection
    private final HealthChecks health; // null without health checks
    // Calls in flight per endpoint are counted only where a decision reads them: the balancer's
    // choice among several endpoints, and the retry budget. Otherwise the two atomic updates per call
    // on a counter every event loop shares were pure cost (contended: docs/MEASUREMENTS.md, session 20).
    private final boolean countsInFlight;

    /** A guard on the system's clocks, with its health checks running. */
    public static UpstreamGuard start(UpstreamConfig config) {
        return new UpstreamGuard(config, System::nanoTime, Clock.systemUTC(), UpstreamGuard::random, true);
    }

    /**
     * A guard whose ejections and breakers keep time by {@code ticker} (the breakers' clock reads it
     * too), with its health checks running on their own timer: an engine gives the ticker it was
     * started with ({@code System::nanoTime}, or a test's).
     */
    public static UpstreamGuard start(UpstreamConfig config, LongSupplier ticker) {
        return new UpstreamGuard(config, ticker, new TickerClock(ticker), UpstreamGuard::random, true);
    }

    private static double random() {
        return java.util.concurrent.ThreadLocalRandom.current().nextDouble();
    }

    /** A UTC clock that moves as a nanosecond ticker does, from the wall clock's time when it was made. */
    private static final class TickerClock extends Clock {
        private final LongSupplier ticker;
        private final java.time.Instant origin = java.time.Instant.now();
        private final long originNanos;

        TickerClock(LongSupplier ticker) {
            this.ticker = ticker;
            this.originNanos = ticker.getAsLong();
        }

        @Override
        public java.time.ZoneId getZone() {
            return java.time.ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return zone.equals(getZone()) ? this : Clock.fixed(instant(), zone);
        }

        @Override
        public java.time.Instant instant() {
            return origin.plusNanos(ticker.getAsLong() - originNanos);
        }
    }

    /**
     * @param ticker nanoseconds, for ejections and call durations
     * @param clock the breakers' clock
     * @param random a uniform value in [0, 1) for the backoff's jitter and the balancer's choices
     * @param checks whether to run the configured health checks
     */
    public UpstreamGuard(
            UpstreamConfig config, LongSupplier ticker, Clock clock, DoubleSupplier random, boolean checks) {
        UpstreamResilience r = config.resilience();
        this.name = config.name();
        this.ticker = ticker;
        this.random = random;
        this.balance = r.balance();
        this.outlier = r.outlier().orElse(null);
        this.retry = r.retry().orElse(null);
        CircuitBreakerConfig breakers =
                r.circuitBreaker().map(b -> breakerConfig(b, clock)).orElse(null);
        List<URI> urls = r.endpoints();
        this.endpoints = new Endpoint[urls.size()];
        for (int i = 0; i < endpoints.length; i++) {
            CircuitBreaker breaker = breakers == null ? null : CircuitBreaker.of(name + "/" + urls.get(i), breakers);
            endpoints[i] = new Endpoint(i, urls.get(i), breaker);
            if (breaker != null) {
                Endpoint endpoint = endpoints[i];
                breaker.getEventPublisher()
                        .onStateTransition(event -> LOG.warn(
                                "upstream {} endpoint {}: circuit breaker {} (was {})",
                                name,
                                endpoint,
                                stateName(event.getStateTransition().getToState()),
                                stateName(event.getStateTransition().getFromState())));
            }
        }
        this.maxEjected = outlier == null ? 0 : endpoints.length * outlier.maxEjectedPercent() / 100;
        this.countsInFlight = endpoints.length > 1 || retry != null;
        boolean connect = false;
        boolean reset = false;
        boolean timeout = false;
        if (retry != null) {
            for (String on : retry.on()) {
                switch (on) {
                    case "connect-failure" -> connect = true;
                    case "reset" -> reset = true;
                    case "timeout" -> timeout = true;
                    case "5xx" -> java.util.Arrays.fill(retryOnStatus, 500, 600, true);
                    default -> retryOnStatus[Integer.parseInt(on)] = true;
                }
            }
        }
        this.retryOnConnect = connect;
        this.retryOnReset = reset;
        this.retryOnTimeout = timeout;
        this.health = checks && r.healthCheck().isPresent()
                ? new HealthChecks(name, endpoints, r.healthCheck().get(), config.tls())
                : null;
    }

    private static String stateName(CircuitBreaker.State state) {
        return state.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    private static CircuitBreakerConfig breakerConfig(UpstreamResilience.CircuitBreaker b, Clock clock) {
        return CircuitBreakerConfig.custom()
                .failureRateThreshold(b.failureRate())
                .slowCallRateThreshold(b.slowCallRate())
                .slowCallDurationThreshold(b.slowCall())
                .slidingWindow(b.window(), b.minimumCalls(), CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .waitDurationInOpenState(b.openFor())
                .permittedNumberOfCallsInHalfOpenState(b.halfOpenCalls())
                .writableStackTraceEnabled(false)
                .clock(clock)
                .build();
    }

    public String name() {
        return name;
    }

    public List<Endpoint> endpoints() {
        return List.of(endpoints);
    }

    /**
     * Whether a request body of {@code contentLength} bytes ({@code -1}: chunked) is held so that a
     * retry can send it again: only when retries are configured and its declared length fits the
     * replay buffer. A body that is not held is streamed, and its request never retried.
     */
    public boolean holdsBody(long contentLength) {
        return retry != null && contentLength > 0 && contentLength <= retry.replayBuffer();
    }

    /** The try's longest wait for its response head, or 0 when only the read timeout bounds it. */
    public long perTryTimeoutNanos() {
        return retry == null ? 0 : retry.perTryTimeout().map(Duration::toNanos).orElse(0L);
    }

    /**
     * The next try: the first when {@code previous} is null, else a retry that avoids {@code previous}'s
     * endpoint when another can take it.
     *
     * @return the try, its endpoint's breaker permission taken and its call counted in flight; null when
     *     every endpoint that could take it has its breaker open (the caller answers {@code 503
     *     circuit_open})
     */
    public Attempt begin(Attempt previous) {
        long now = ticker.getAsLong();
        Endpoint avoid = previous == null ? null : previous.endpoint();
        Endpoint chosen = choose(now, avoid, true);
        if (chosen == null && avoid != null && available(avoid, now) && permits(avoid)) {
            chosen = avoid; // no other in the rotation: the previous one again, never one ejected or unhealthy
        }
        if (chosen == null) {
            chosen = choose(now, avoid, false); // every endpoint is out: panic, as Envoy does, and use them all
        }
        if (chosen == null && avoid != null && permits(avoid)) {
            chosen = avoid;
        }
        if (chosen == null) {
            refused.increment();
            return null;
        }
        if (countsInFlight) {
            chosen.inFlight.incrementAndGet();
        }
        int number = previous == null ? 1 : previous.number() + 1;
        if (number > 1) {
            retriesInFlight.incrementAndGet();
            retries.increment();
        }
        return new Attempt(this, chosen, number, now);
    }

    /** An endpoint in the rotation (when {@code inRotation}) other than {@code avoid}, whose breaker lets the call. */
    private Endpoint choose(long now, Endpoint avoid, boolean inRotation) {
        int n = endpoints.length;
        if (n == 1) {
            Endpoint only = endpoints[0];
            return only != avoid && (!inRotation || available(only, now)) && permits(only) ? only : null;
        }
        if (balance == Balance.LEAST_IN_FLIGHT) {
            int a = (int) (random.getAsDouble() * n);
            int b = (a + 1 + (int) (random.getAsDouble() * (n - 1))) % n;
            Endpoint first = endpoints[a];
            Endpoint second = endpoints[b];
            if (second.inFlight.get() < first.inFlight.get()) {
                Endpoint t = first;
                first = second;
                second = t;
            }
            for (Endpoint e : new Endpoint[] {first, second}) {
                if (e != avoid && (!inRotation || available(e, now)) && permits(e)) {
                    return e;
                }
            }
        }
        int start = Math.floorMod(next.getAndIncrement(), n);
        for (int i = 0; i < n; i++) {
            Endpoint e = endpoints[(start + i) % n];
            if (e != avoid && (!inRotation || available(e, now)) && permits(e)) {
                return e;
            }
        }
        return null;
    }

    private boolean available(Endpoint e, long now) {
        if (!e.healthy) {
            return false;
        }
        if (e.ejected) {
            if (now - e.ejectedUntil < 0) {
                return false;
            }
            readmit(e);
        }
        return true;
    }

    private void readmit(Endpoint e) {
        boolean returned = false;
        synchronized (ejection) {
            if (e.ejected) {
                e.ejected = false;
                e.failuresInRow.set(0);
                ejectedCount--;
                returned = true;
            }
        }
        if (returned) {
            LOG.warn("upstream {} endpoint {}: back in the rotation after its ejection", name, e);
        }
    }

    private static boolean permits(Endpoint e) {
        return e.breaker == null || e.breaker.tryAcquirePermission();
    }

    /** An attempt ended: its endpoint learns from it. */
    void settle(Attempt a, int status, UpstreamFailure failure, long began) {
        Endpoint e = a.endpoint();
        if (countsInFlight) {
            e.inFlight.decrementAndGet();
        }
        if (a.number() > 1) {
            retriesInFlight.decrementAndGet();
        }
        if (status != 0 || failure != null) {
            connecting(e, status, failure);
        }
        boolean learned = status != 0
                || (failure != null
                        && failure != UpstreamFailure.TIMEOUT
                        && failure != UpstreamFailure.POOL_EXHAUSTED
                        && failure != UpstreamFailure.CIRCUIT_OPEN);
        if (e.breaker != null) {
            long nanos = ticker.getAsLong() - began; // the call's duration: the breaker's slow-call rate
            if (!learned) {
                e.breaker.releasePermission();
            } else if (status != 0 && status < 500) {
                e.breaker.onSuccess(nanos, TimeUnit.NANOSECONDS);
            } else {
                e.breaker.onError(nanos, TimeUnit.NANOSECONDS, FAILED);
            }
        }
        if (!learned || outlier == null) {
            return;
        }
        if (status != 0 && status < 500) {
            if (e.failuresInRow.get() != 0) {
                e.failuresInRow.set(0);
            }
            return;
        }
        if (e.failuresInRow.incrementAndGet() >= outlier.consecutiveFailures()) {
            eject(e);
        }
    }

    private void eject(Endpoint e) {
        long nanos;
        synchronized (ejection) {
            if (e.ejected || ejectedCount >= maxEjected) {
                return;
            }
            e.ejections++;
            nanos = Math.min(
                    outlier.maxEjection().toNanos(), outlier.baseEjection().toNanos() * e.ejections);
            e.ejectedUntil = ticker.getAsLong() + nanos;
            e.ejected = true;
            e.failuresInRow.set(0);
            ejectedCount++;
        }
        LOG.warn(
                "upstream {} endpoint {}: ejected for {} ms after {} failures in a row (outlier detection)",
                name,
                e,
                TimeUnit.NANOSECONDS.toMillis(nanos),
                outlier.consecutiveFailures());
    }

    /**
     * Notes how a call's connection went: a failure to connect (refused, unresolved, not in time, its
     * TLS handshake) begins or changes the endpoint's trouble, an answer ends it; each change logged
     * once. A call that ended otherwise (a reset, a timeout after connecting) changes nothing.
     */
    private void connecting(Endpoint e, int status, UpstreamFailure failure) {
        if (status != 0) {
            UpstreamFailure was = e.connecting.get(); // a volatile read per answered call, nothing more
            if (was != null && e.connecting.compareAndSet(was, null)) {
                LOG.warn("upstream {} endpoint {}: connections are made again (they failed: {})", name, e, was.code());
            }
            return;
        }
        if (failure != UpstreamFailure.REFUSED
                && failure != UpstreamFailure.UNRESOLVED
                && failure != UpstreamFailure.CONNECT_TIMEOUT
                && failure != UpstreamFailure.TLS_HANDSHAKE) {
            return;
        }
        UpstreamFailure was = e.connecting.getAndSet(failure);
        if (was != failure) {
            LOG.warn(
                    "upstream {} endpoint {}: connections fail ({}: {}); logged again when that changes",
                    name,
                    e,
                    failure.code(),
                    failure.reason());
        }
    }

    /**
     * Whether the try {@code a}, just ended, is tried again, and after how long.
     *
     * @param method the request's method
     * @param replayable whether its body can be sent again (a request without a body can)
     * @return the wait in nanoseconds before {@link #begin(Attempt)}, or -1: no retry, relay what came
     */
    public long retryDelay(Attempt a, String method, boolean replayable) {
        if (retry == null || a.number() >= retry.attempts() || !replayable) {
            return -1;
        }
        if (!UpstreamCall.idempotent(method) && !retry.nonIdempotent()) {
            return -1;
        }
        if (!retriesOn(a)) {
            return -1;
        }
        int active = 0;
        for (Endpoint e : endpoints) {
            active += e.inFlight.get();
        }
        int allowed = Math.max(retry.minRetryConcurrency(), (int) ((long) active * retry.budgetPercent() / 100));
        if (retriesInFlight.get() >= allowed) {
            overBudget.increment();
            return -1; // the budget: retries would add more than their share of load
        }
        long base = retry.backoffBase().toNanos();
        long ceiling = Math.min(retry.backoffMax().toNanos(), base * ((1L << Math.min(20, a.number())) - 1));
        return (long) (random.getAsDouble() * ceiling);
    }

    private boolean retriesOn(Attempt a) {
        if (a.status() != 0) {
            return a.status() < retryOnStatus.length && retryOnStatus[a.status()];
        }
        UpstreamFailure f = a.failure();
        if (f == null) {
            return false; // abandoned
        }
        return switch (f) {
            case REFUSED, UNRESOLVED, CONNECT_TIMEOUT, TLS_HANDSHAKE -> retryOnConnect;
            case RESET, BAD_RESPONSE -> retryOnReset;
            case READ_TIMEOUT -> retryOnTimeout;
            case TIMEOUT, POOL_EXHAUSTED, CIRCUIT_OPEN -> false;
        };
    }

    /** Retries begun since the guard was made (the metrics' counter). */
    public long retries() {
        return retries.sum();
    }

    /** Calls refused because every breaker that could take them was open ({@code 503 circuit_open}). */
    public long refusedByBreakers() {
        return refused.sum();
    }

    /** Retries the budget refused since the guard was made: their try's answer was relayed (Envoy's retry overflow). */
    public long retriesOverBudget() {
        return overBudget.sum();
    }

    /** Retries in flight now (the budget's count). */
    public int retriesInFlight() {
        return retriesInFlight.get();
    }

    /** Stops the health checks. */
    @Override
    public void close() {
        if (health != null) {
            health.close();
        }
    }
}
