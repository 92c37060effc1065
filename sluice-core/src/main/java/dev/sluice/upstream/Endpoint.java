package dev.sluice.upstream;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.net.URI;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One endpoint of an upstream and what the gateway knows of it: calls in flight, failures in a row,
 * whether it is ejected or failing its health checks, and its circuit breaker. Its state changes only
 * through {@link UpstreamGuard} and {@link Attempt}.
 */
public final class Endpoint {

    private final int index;
    private final URI url;
    private final String host;
    private final int port;
    private final String authority;
    final CircuitBreaker breaker; // null when the upstream has none
    final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger failuresInRow = new AtomicInteger();
    volatile long ejectedUntil; // nanos on the guard's ticker; 0 when never ejected
    volatile boolean ejected;
    int ejections; // guarded by the guard's ejection lock
    volatile boolean healthy = true; // by the active checks
    int checksInRow; // the health checker's: passes (>0) or failures (<0) in a row
    /** How connections to it fail now (refused, unresolved…), null while they are made: logged on change. */
    final java.util.concurrent.atomic.AtomicReference<dev.sluice.http.UpstreamFailure> connecting =
            new java.util.concurrent.atomic.AtomicReference<>();

    Endpoint(int index, URI url, CircuitBreaker breaker) {
        this.index = index;
        this.url = url;
        this.host = url.getHost();
        this.port = dev.sluice.config.UpstreamConfig.defaultPort(url);
        this.authority = url.getPort() == -1 ? host : host + ":" + url.getPort();
        this.breaker = breaker;
    }

    /** Its place in the upstream's {@code endpoints} list (the engines' pool of it). */
    public int index() {
        return index;
    }

    public URI url() {
        return url;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** {@code host[:port]}: the Host header of a call to it. */
    public String authority() {
        return authority;
    }

    /**
     * Calls to it in flight, where a decision reads them: with several endpoints, or with retries (their
     * budget); 0 otherwise.
     */
    public int inFlight() {
        return inFlight.get();
    }

    /** Whether its active health checks pass (always, without them). */
    public boolean isHealthy() {
        return healthy;
    }

    /** Whether outlier detection has taken it out of the rotation now. */
    public boolean isEjected() {
        return ejected;
    }

    /** Its breaker's state ({@code CLOSED} without a breaker): {@code CLOSED}, {@code OPEN}, {@code HALF_OPEN}… */
    public String breakerState() {
        return breaker == null ? "CLOSED" : breaker.getState().name();
    }

    @Override
    public String toString() {
        return authority;
    }
}
