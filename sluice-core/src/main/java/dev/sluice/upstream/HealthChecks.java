package dev.sluice.upstream;

import dev.sluice.config.UpstreamResilience.HealthCheck;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The active health checks of one upstream's endpoints: {@code GET path} every interval, with the
 * JDK's HTTP client (off the request path, so its cost does not matter and no engine's client is
 * needed). Thresholds in a row move an endpoint out of the rotation and back; each move is logged.
 */
final class HealthChecks implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HealthChecks.class);

    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("sluice-health-checks").daemon().factory());

    private final String upstream;
    private final HealthCheck check;
    private final HttpClient client;
    private final List<ScheduledFuture<?>> schedules = new ArrayList<>();
    private volatile boolean closed;

    /** @param tls how the upstream's https endpoints are reached: probes trust what calls trust */
    HealthChecks(
            String upstream,
            Endpoint[] endpoints,
            HealthCheck check,
            java.util.Optional<dev.sluice.config.UpstreamTlsConfig> tls) {
        this.upstream = upstream;
        this.check = check;
        HttpClient.Builder builder = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(check.timeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .executor(Executors.newVirtualThreadPerTaskExecutor());
        if (tls.isPresent()) {
            dev.sluice.tls.UpstreamTls.load(tls.get(), "upstreams." + upstream + ".tls", java.time.Instant.now())
                    .tls()
                    .ifPresent(t -> builder.sslContext(t.probeContext()).sslParameters(t.probeParameters()));
        }
        this.client = builder.build();
        long every = check.interval().toNanos();
        for (Endpoint e : endpoints) {
            URI target = e.url().resolve(base(e.url()) + check.path());
            HttpRequest request = HttpRequest.newBuilder(target)
                    .timeout(check.timeout())
                    .header("User-Agent", "sluice-health-check")
                    .GET()
                    .build();
            // the first check at once, the others spread over the interval
            long first = every * e.index() / endpoints.length;
            schedules.add(TIMER.scheduleWithFixedDelay(() -> probe(e, request), first, every, TimeUnit.NANOSECONDS));
        }
    }

    private static String base(URI url) {
        String path = url.getRawPath() == null ? "" : url.getRawPath();
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    private void probe(Endpoint e, HttpRequest request) {
        if (closed) {
            return;
        }
        try {
            client.sendAsync(request, HttpResponse.BodyHandlers.discarding())
                    .orTimeout(
                            check.timeout().toNanos() + Duration.ofMillis(100).toNanos(), TimeUnit.NANOSECONDS)
                    .whenComplete((response, failed) -> {
                        if (failed == null) {
                            int status = response.statusCode();
                            record(e, status >= 200 && status < 300, "status " + status);
                        } else {
                            Throwable cause = failed.getCause() != null ? failed.getCause() : failed;
                            record(e, false, cause.getClass().getSimpleName());
                        }
                    });
        } catch (RuntimeException failed) {
            record(e, false, failed.toString());
        }
    }

    private synchronized void record(Endpoint e, boolean passed, String what) {
        if (closed) {
            return;
        }
        if (passed) {
            e.checksInRow = e.checksInRow > 0 ? e.checksInRow + 1 : 1;
            if (!e.healthy && e.checksInRow >= check.healthyThreshold()) {
                e.healthy = true;
                LOG.warn("upstream {} endpoint {} is healthy again ({} checks passed)", upstream, e, e.checksInRow);
            }
        } else {
            e.checksInRow = e.checksInRow < 0 ? e.checksInRow - 1 : -1;
            if (e.healthy && -e.checksInRow >= check.unhealthyThreshold()) {
                e.healthy = false;
                LOG.warn(
                        "upstream {} endpoint {} is unhealthy ({} checks failed, last: {}): out of the rotation",
                        upstream,
                        e,
                        -e.checksInRow,
                        what);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        for (ScheduledFuture<?> s : schedules) {
            s.cancel(false);
        }
        client.shutdownNow();
    }
}
