package dev.sluice.engine.reactive;

import io.netty.channel.EventLoop;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Mono;

/**
 * Waits on an event loop's own timer, so that what follows runs on that loop (Reactor's {@code
 * Mono.delay} would move it to a parallel-scheduler thread). Cancelling the wait cancels the timer.
 */
final class LoopTimer {

    private LoopTimer() {}

    /** Emits {@code true} on {@code loop} after {@code nanos}. */
    static Mono<Boolean> after(EventLoop loop, long nanos) {
        return Mono.create(sink -> {
            ScheduledFuture<?> timer = loop.schedule(() -> sink.success(Boolean.TRUE), nanos, TimeUnit.NANOSECONDS);
            sink.onCancel(() -> timer.cancel(false));
        });
    }
}
