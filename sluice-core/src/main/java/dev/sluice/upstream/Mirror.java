package dev.sluice.upstream;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.MirrorConfig;
import dev.sluice.http.UpstreamFailure;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.observe.MirrorEvent;
import dev.sluice.observe.UpstreamEvent;
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
 *                 ├─ Content-Length > max-body ─► not copied, reported (BODY_TOO_LARGE)
 *                 ├─ max-in-flight out ─────────► dropped, reported (DROPPED)
 *                 └─ else ──────────────────────► COPY: method, upstream target and headers as the
 *                                                 proxied request's; the answer is read and discarded
 *   COPY with a body: the engine tees the client's bytes as the proxied call reads them
 *     each piece ──► Body.take(n)? ──yes──► copied into the copy's request (held until it is written)
 *                        │ no (past max-body) ──► the copy is aborted, reported (BODY_TOO_LARGE)
 *     the client's body ends ──► the copy's body ends; it broke or was not read to its end ──► aborted
 * </pre>
 *
 * <p>The copy never slows the client: the engine copies a piece of the body as it passes to the
 * proxied call, and never waits for the mirror to take it. What a copy holds is bounded by what it
 * may copy at all: at most {@code max-body} bytes a request, {@code max-in-flight × max-body} a
 * route. An aborted copy is never sent as a shorter body that looks whole: the engine closes its
 * connection before the declared length, or before a chunked body's last chunk. Whether the copy is
 * answered, fails or never answers does not touch the client's exchange: the engine starts it
 * beside the proxied call and does not wait for it; only its slot in {@code max-in-flight} stays
 * taken until it ends (the mirror upstream's read timeout bounds a silent one).
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

    /** The longest body a copy carries, in bytes. */
    public int maxBody() {
        return config.maxBody();
    }

    /**
     * Whether to copy a request with this head.
     *
     * @param body the request's body as {@code RequestFraming.upstreamBody} frames it: 0 for none, a
     *     length, or negative when it is not known before it streams
     */
    public Decision decide(long body) {
        if (config.percent() < 100 && !(random.getAsDouble() < config.percent())) {
            return Decision.NONE;
        }
        if (body > config.maxBody()) {
            observer.mirror(new MirrorEvent(route, config.upstream(), MirrorEvent.Outcome.BODY_TOO_LARGE));
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

    /** The tally of one copy's body, for a request {@link #decide} copies: made by the engine. */
    public Body body() {
        return new Body();
    }

    /**
     * How much of one request's body its copy has taken. Used by the one thread that reads the
     * client's body at a time.
     */
    public final class Body {
        private long taken;
        private boolean over;

        private Body() {}

        /**
         * Whether the next {@code n} bytes of the client's body are copied. Once the body passes
         * {@code max-body} the answer is no from then on (reported once, as {@code BODY_TOO_LARGE}):
         * the engine aborts the copy, whose request must not end.
         */
        public boolean take(int n) {
            if (over) {
                return false;
            }
            taken += n;
            if (taken > config.maxBody()) {
                over = true;
                observer.mirror(new MirrorEvent(route, config.upstream(), MirrorEvent.Outcome.BODY_TOO_LARGE));
                return false;
            }
            return true;
        }

        /** The body passed {@code max-body}: the copy is being aborted. */
        public boolean over() {
            return over;
        }
    }

    /**
     * A copy's answer arrived, {@code latencyNanos} after it was sent: reported to the observer as a
     * call to the mirror's upstream under the route's id, as a proxied call is ({@link
     * UpstreamEvent#answered}). The engines only tell; the core reports.
     */
    public void answered(int status, long latencyNanos) {
        if (observer.listens()) {
            observer.upstream(UpstreamEvent.answered(route, config.upstream(), status, latencyNanos));
        }
    }

    /** A copy failed so, {@code latencyNanos} after it was sent: reported as {@link #answered} is. */
    public void failed(UpstreamFailure failure, long latencyNanos) {
        if (observer.listens()) {
            observer.upstream(UpstreamEvent.failed(route, config.upstream(), failure, latencyNanos));
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
