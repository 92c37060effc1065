package dev.sluice.demo;

import dev.sluice.compose.JsonSplice;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The services whose point is time: a slow API (seed 004), a blocking-I/O API (seed 001) and a
 * rate-limited API (seed 003). Waiting is done by the server's scheduler, never by a sleeping
 * thread, so thousands of waiting requests cost no threads.
 */
final class TimedServices {

    static final long MAX_DELAY_MS = 600_000;

    private TimedServices() {}

    /** {@code GET /delay[?ms=30&index=1]}: {@code {"index":1,"data":"test data"}} after 30 ms. */
    static final class Delay extends DemoService {
        static final long DEFAULT_MS = 30;

        Delay() {
            super("delay");
        }

        @Override
        boolean serve(String path, Request request, Response response, Callback callback) {
            if (!path.equals("/delay")) {
                return false;
            }
            long ms = number(request, "ms", DEFAULT_MS, 0, MAX_DELAY_MS);
            long index = number(request, "index", 1, Integer.MIN_VALUE, Integer.MAX_VALUE);
            String body = "{\"index\":" + index + ",\"data\":\"test data\"}";
            later(request, ms, () -> JsonReply.send(response, callback, 200, body));
            return true;
        }
    }

    /**
     * {@code GET /blocking[?ms=5000]}: answers after 5 s, like seed 001's blocking I/O, reporting the
     * kind and name of the thread that took the request.
     */
    static final class Blocking extends DemoService {
        static final long DEFAULT_MS = 5000;

        Blocking() {
            super("blocking");
        }

        @Override
        boolean serve(String path, Request request, Response response, Callback callback) {
            if (!path.equals("/blocking")) {
                return false;
            }
            long ms = number(request, "ms", DEFAULT_MS, 0, MAX_DELAY_MS);
            Thread thread = Thread.currentThread();
            String body = "{\"waited_ms\":" + ms + ",\"thread\":\"" + JsonReply.threadKind() + "\",\"thread_name\":"
                    + JsonSplice.quote(thread.getName()) + "}";
            later(request, ms, () -> JsonReply.send(response, callback, 200, body));
            return true;
        }
    }

    /**
     * {@code GET /limited}: admits one call per interval (200 ms by default, seed 003); a call that
     * comes sooner gets 429 with {@code Retry-After} and how long to wait.
     */
    static final class Limited extends DemoService {
        static final Duration DEFAULT_INTERVAL = Duration.ofMillis(200);

        private final long intervalNanos;
        private final AtomicLong lastAdmitted;

        Limited(Duration interval) {
            super("limited");
            this.intervalNanos = interval.toNanos();
            this.lastAdmitted = new AtomicLong(System.nanoTime() - intervalNanos);
        }

        @Override
        boolean serve(String path, Request request, Response response, Callback callback) {
            if (!path.equals("/limited")) {
                return false;
            }
            long waitNanos = admit(System.nanoTime());
            if (waitNanos == 0) {
                JsonReply.send(
                        response,
                        callback,
                        200,
                        "{\"data\":\"rate-limited resource\",\"limit\":\"1 call per " + intervalNanos / 1_000_000
                                + " ms\"}");
            } else {
                long waitMs = Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos));
                response.getHeaders().put("Retry-After", Long.toString(Math.max(1, (waitMs + 999) / 1000)));
                JsonReply.send(
                        response,
                        callback,
                        429,
                        "{\"status\":429,\"error\":\"too_many_requests\",\"message\":"
                                + "\"at most 1 call per " + intervalNanos / 1_000_000 + " ms: retry in " + waitMs
                                + " ms\","
                                + "\"retry_after_ms\":" + waitMs + "}");
            }
            return true;
        }

        /** @return 0 when the call is admitted, else how long until the next call would be */
        long admit(long now) {
            while (true) {
                long last = lastAdmitted.get();
                long since = now - last;
                if (since < intervalNanos) {
                    return intervalNanos - since;
                }
                if (lastAdmitted.compareAndSet(last, now)) {
                    return 0;
                }
            }
        }
    }

    private static void later(Request request, long ms, Runnable task) {
        if (ms == 0) {
            task.run();
        } else {
            request.getComponents().getScheduler().schedule(task, ms, TimeUnit.MILLISECONDS);
        }
    }
}
