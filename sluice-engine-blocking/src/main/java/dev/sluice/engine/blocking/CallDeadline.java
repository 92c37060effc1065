package dev.sluice.engine.blocking;

import dev.sluice.engine.blocking.upstream.UpstreamException;
import dev.sluice.engine.blocking.upstream.UpstreamRequest;
import dev.sluice.http.UpstreamFailure;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A proxied call's deadline (the route's timeout, or a gRPC call's own): when it passes, the engine's
 * timer cancels the call's exchange, and the failure that cancelling brings is the call's TIMEOUT.
 * One per call, closed when the call ends, so that the timer lets go of it.
 */
final class CallDeadline implements AutoCloseable {

    private final UpstreamRequest out;
    private final ScheduledFuture<?> timer; // null: no deadline

    private CallDeadline(UpstreamRequest out, ScheduledFuture<?> timer) {
        this.out = out;
        this.timer = timer;
    }

    /** Cancels {@code out} when {@code timeout} passes; none when it is empty. */
    static CallDeadline start(ScheduledExecutorService timer, UpstreamRequest out, Optional<Duration> timeout) {
        return new CallDeadline(
                out,
                timeout.isEmpty()
                        ? null
                        : timer.schedule(out::cancel, timeout.get().toNanos(), TimeUnit.NANOSECONDS));
    }

    /** The call's failure: a try the deadline cancelled is a TIMEOUT of {@code upstream}, whatever it saw. */
    UpstreamException failure(UpstreamException e, String upstream) {
        return out.isCancelled() ? new UpstreamException(UpstreamFailure.TIMEOUT, upstream, e) : e;
    }

    @Override
    public void close() {
        if (timer != null) {
            timer.cancel(false);
        }
    }
}
