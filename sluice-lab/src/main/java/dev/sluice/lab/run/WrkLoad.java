package dev.sluice.lab.run;

import static java.util.Objects.requireNonNull;

import java.net.URI;

/**
 * One load: {@code connections} keep-alive users on {@code url} for {@code seconds}, wrk's
 * {@code --timeout}, the body check (at least {@code minBytes}, exactly {@code exactBytes} when >= 0),
 * and a ramp-up: {@code rampSteps} wrk processes started {@code rampUpSeconds / rampSteps} apart, all
 * ending together.
 */
public record WrkLoad(
        URI url,
        int connections,
        int threads,
        int seconds,
        int timeoutSeconds,
        long minBytes,
        long exactBytes,
        int rampUpSeconds,
        int rampSteps) {

    public WrkLoad {
        requireNonNull(url, "url");
        if (connections < 1) {
            throw new IllegalArgumentException("connections: " + connections + " (expected: > 0)");
        }
        if (threads < 1) {
            throw new IllegalArgumentException("threads: " + threads + " (expected: > 0)");
        }
        if (seconds < 1) {
            throw new IllegalArgumentException("seconds: " + seconds + " (expected: > 0)");
        }
        if (rampUpSeconds < 0 || rampUpSeconds >= seconds) {
            throw new IllegalArgumentException(
                    "rampUpSeconds: " + rampUpSeconds + " (expected: 0.." + (seconds - 1) + ")");
        }
    }

    /** A steady load without ramp-up. */
    public static WrkLoad steady(
            URI url, int connections, int threads, int seconds, int timeoutSeconds, long minBytes) {
        return new WrkLoad(url, connections, threads, seconds, timeoutSeconds, minBytes, -1, 0, 1);
    }

    public WrkLoad withExactBytes(long exact) {
        return new WrkLoad(url, connections, threads, seconds, timeoutSeconds, exact, exact, rampUpSeconds, rampSteps);
    }

    public WrkLoad withSeconds(int s, int rampUp) {
        return new WrkLoad(url, connections, threads, s, timeoutSeconds, minBytes, exactBytes, rampUp, rampSteps);
    }

    /** How many wrk processes the ramp-up starts (never more than the connections). */
    public int steps() {
        return rampUpSeconds == 0 ? 1 : Math.max(1, Math.min(rampSteps, Math.min(connections, rampUpSeconds)));
    }
}
