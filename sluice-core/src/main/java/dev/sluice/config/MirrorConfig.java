package dev.sluice.config;

import static java.util.Objects.requireNonNull;

/**
 * {@code mirror:} of a proxy route: a copy of a share of its requests sent to another upstream, fire
 * and forget ({@link dev.sluice.upstream.Mirror} decides which, and the copy's shape).
 *
 * @param upstream where the copies go
 * @param percent the share of requests copied, 0 to 100 (fractions allowed)
 * @param maxInFlight the most copies outstanding at once; a request beyond it is not copied
 * @param maxBody the longest request body copied, in bytes: a copy holds at most this much of the
 *     client's body, so a route's copies hold at most {@code maxInFlight × maxBody}; 0 copies only
 *     bodiless requests
 */
public record MirrorConfig(String upstream, double percent, int maxInFlight, int maxBody) {

    /** {@code max-body}'s default: 64 KiB. */
    public static final int DEFAULT_MAX_BODY = 64 * 1024;

    /** The largest {@code max-body}: 16 MiB. */
    public static final int MOST_MAX_BODY = 16 * 1024 * 1024;

    public MirrorConfig {
        requireNonNull(upstream, "upstream");
        if (!(percent >= 0 && percent <= 100)) {
            throw new IllegalArgumentException("percent: " + percent + " (expected: 0 to 100)");
        }
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight: " + maxInFlight + " (expected: 1 or more)");
        }
        if (maxBody < 0 || maxBody > MOST_MAX_BODY) {
            throw new IllegalArgumentException("maxBody: " + maxBody + " (expected: 0 to " + MOST_MAX_BODY + ")");
        }
    }

    /** With the default {@code max-body}. */
    public MirrorConfig(String upstream, double percent, int maxInFlight) {
        this(upstream, percent, maxInFlight, DEFAULT_MAX_BODY);
    }
}
