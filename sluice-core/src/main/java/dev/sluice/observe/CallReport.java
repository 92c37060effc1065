package dev.sluice.observe;

import dev.sluice.http.UpstreamFailure;

/**
 * The observer's account of one route's calls to one upstream: the one place a proxied call's
 * {@link UpstreamEvent} is made and told, and the exchange's tally given the upstream's time, which
 * both engines' proxy routes ask (HTTP/1.1, h2 and WebSocket upgrades alike). The engines only say
 * what happened and when.
 *
 * @param route the route's id
 * @param upstream the upstream's name
 */
public record CallReport(String route, String upstream, GatewayObserver observer) {

    /** Whether anyone listens, so that a call's clock is worth reading. */
    public boolean listens() {
        return observer.listens();
    }

    /**
     * The call's status line came {@code nanos} after it began: its event, and the exchange's tally
     * (null when the exchange keeps none) is told the upstream's time.
     */
    public void answered(int status, long nanos, ExchangeTally tally) {
        if (observer.listens()) {
            observer.upstream(UpstreamEvent.answered(route, upstream, status, nanos));
        }
        if (tally != null) {
            tally.answered(nanos);
        }
    }

    /**
     * The call failed so, {@code nanos} after it began: its event when one is due ({@link
     * UpstreamEvent#ofFailedCall} decides).
     */
    public void failed(
            UpstreamFailure failure, boolean answered, boolean clientsBody, boolean deadlinePassed, long nanos) {
        if (observer.listens()) {
            UpstreamEvent event =
                    UpstreamEvent.ofFailedCall(route, upstream, failure, answered, clientsBody, deadlinePassed, nanos);
            if (event != null) {
                observer.upstream(event);
            }
        }
    }
}
