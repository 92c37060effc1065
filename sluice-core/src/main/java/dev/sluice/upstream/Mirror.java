package dev.sluice.upstream;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.MirrorConfig;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.observe.MirrorEvent;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;

/**
 * A route's request mirroring ({@code mirror:}): whether a request is copied to the mirror's
 * upstream, decided here for every engine; the engine sends the copy, fire and forget, and calls
 * {@link #ended} when it is over, however it ended.
 *
 * <pre>
 *   request ──► sampled (percent)? ──no──► not copied
 *                 │ yes
 *                 ├─ has a body ─────────► skipped, reported (SKIPPED_BODY)
 *                 ├─ max-in-flight out ──► dropped, reported (DROPPED)
 *                 └─ else ───────────────► COPY: method, upstream target and headers as the
 *                                          proxied request's, no body; the answer is read and discarded
 * </pre>
 *
 * <p>A request with a body is never copied: the gateway streams a client's body and never holds it,
 * and a copy must neither delay nor alter the client's request. Whether the copy is answered, fails
 * or never answers does not touch the client's exchange: the engine starts it beside the proxied
 * call and does not wait for it; only its slot in {@code max-in-flight} stays taken until it ends
 * (the mirror upstream's read timeout bounds a silent one).
 */
public final class Mirror {

    /** What to do about one request. */
    public enum Decision {
        /** Send a copy; call {@link #ended} once it is over. */
        COPY,
        /** Not copied (not sampled, skipped or dropped): nothing to send, nothing to end. */
        NONE
    }

    private final MirrorConfig config;
    private final String route;
    private final GatewayObserver observer;
    private final DoubleSupplier random; // [0, 100)
    private final AtomicInteger inFlight = new AtomicInteger();

    private Mirror(MirrorConfig config, String route, GatewayObserver observer, DoubleSupplier random) {
        this.config = config;
        this.route = route;
        this.observer = observer;
        this.random = random;
    }

    /** A route's mirror, sampling with {@link ThreadLocalRandom}. */
    public static Mirror of(MirrorConfig config, String route, GatewayObserver observer) {
        return of(config, route, observer, () -> ThreadLocalRandom.current().nextDouble(100));
    }

    /**
     * A route's mirror with its own sampling source (tests).
     *
     * @param random a number in {@code [0, 100)}; a request is copied when it is below {@code percent}
     */
    public static Mirror of(MirrorConfig config, String route, GatewayObserver observer, DoubleSupplier random) {
        return new Mirror(
                requireNonNull(config, "config"),
                requireNonNull(route, "route"),
                requireNonNull(observer, "observer"),
                requireNonNull(random, "random"));
    }

    /** The mirror's upstream. */
    public String upstream() {
        return config.upstream();
    }

    /**
     * Whether to copy a request with this head.
     *
     * @param hasBody the request has or may have a body ({@code RequestFraming.upstreamBody} is not 0)
     */
    public Decision decide(boolean hasBody) {
        if (config.percent() < 100 && !(random.getAsDouble() < config.percent())) {
            return Decision.NONE;
        }
        if (hasBody) {
            observer.mirror(new MirrorEvent(route, config.upstream(), MirrorEvent.Outcome.SKIPPED_BODY));
            return Decision.NONE;
        }
        while (true) {
            int now = inFlight.get();
            if (now >= config.maxInFlight()) {
                observer.mirror(new MirrorEvent(route, config.upstream(), MirrorEvent.Outcome.DROPPED));
                return Decision.NONE;
            }
            if (inFlight.compareAndSet(now, now + 1)) {
                return Decision.COPY;
            }
        }
    }

    /** A copy {@link #decide} allowed is over: answered, failed or abandoned. */
    public void ended() {
        inFlight.decrementAndGet();
    }

    /** The copies outstanding now. */
    public int inFlight() {
        return inFlight.get();
    }
}
