package dev.sluice.observe;

import dev.sluice.http.UpstreamFailure;
import java.util.Locale;

/** How one upstream call ended, as metrics and logs name it. */
public enum UpstreamOutcome {
    /** The upstream answered a status below 500. */
    OK,
    /** The upstream answered 500 or above. */
    STATUS_5XX,
    /** The connection was refused or could not be made (its TLS handshake failed). */
    CONNECT_FAILURE,
    /** The endpoint's host name did not resolve: no connection was tried. */
    UNRESOLVED,
    /** The connection was not made in time. */
    CONNECT_TIMEOUT,
    /** No answer in time (the upstream's read timeout, the route's or the part's deadline). */
    TIMEOUT,
    /** The connection was reset or closed before the answer. */
    RESET,
    /** The answer was not valid HTTP. */
    INVALID,
    /** No connection of the upstream's pool came free in time. */
    POOL_EXHAUSTED,
    /** Every endpoint's circuit breaker refused the call: it was not made. */
    CIRCUIT_OPEN,
    /** The gateway stopped the call before its answer came (the response failed or was aborted). */
    CANCELLED;

    /** The outcome of a call the upstream answered with {@code status}. */
    public static UpstreamOutcome of(int status) {
        return status >= 500 ? STATUS_5XX : OK;
    }

    /** The outcome of a call that failed with {@code failure}. */
    public static UpstreamOutcome of(UpstreamFailure failure) {
        return switch (failure) {
            case CONNECT_TIMEOUT -> CONNECT_TIMEOUT;
            case READ_TIMEOUT, TIMEOUT -> TIMEOUT;
            case REFUSED, TLS_HANDSHAKE -> CONNECT_FAILURE;
            case UNRESOLVED -> UNRESOLVED;
            case RESET -> RESET;
            case BAD_RESPONSE -> INVALID;
            case POOL_EXHAUSTED -> POOL_EXHAUSTED;
            case CIRCUIT_OPEN -> CIRCUIT_OPEN;
        };
    }

    /** The label: {@code ok}, {@code 5xx}, {@code connect_failure}, {@code unresolved}, {@code timeout}… */
    public String label() {
        return this == STATUS_5XX ? "5xx" : name().toLowerCase(Locale.ROOT);
    }
}
