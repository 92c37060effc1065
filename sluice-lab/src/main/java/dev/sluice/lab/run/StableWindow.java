package dev.sluice.lab.run;

import static java.util.Objects.requireNonNull;

import java.util.Locale;

/**
 * The seconds of a run its averages are taken over, chosen from the measured per-second throughput
 * rather than at fixed seconds: a JVM's throughput climbs while the JIT compiles, and averaging the
 * climb into a short run's figure makes a warmed-up subject look faster or slower than it is.
 *
 * <p>The rule ({@link #RULE}): skip the first seconds (the partial first second and the ramp-up); then
 * the window is the longest stretch reaching the end of the run in which every k-second rolling mean
 * of the throughput stays within ±{@value #MAX_DRIFT_PERCENT} % of the stretch's mean, k = run ÷ 6
 * between 3 and 10 s. It reaches the end because a warmed-up JVM stays warm: a plateau in the middle of
 * a climb (seen in 20 s runs) is not the steady state. Rolling means rather than single seconds, so that traffic arriving in bursts (every user
 * waiting 5 s in step) is stable when its level is. A stretch shorter than a quarter of the run or than
 * 2k (two disjoint rolling means) does not count: then the window falls back to the paper's proportions (65–290 s of 300 s, scaled) and is
 * flagged {@link Status#UNSTABLE}; a stable stretch under {@value #SHORT_SECONDS} s is flagged
 * {@link Status#SHORT}.
 *
 * @param from first second of the window (seconds since the load started)
 * @param to second after the last one
 * @param driftPercent the largest distance of a k-second rolling mean from the window's mean, in %
 * @param reason why the window is flagged, empty when it is {@link Status#STABLE}
 */
public record StableWindow(int from, int to, int rollingSeconds, double driftPercent, Status status, String reason) {

    /** How far the rolling means may move from the window's mean. */
    public static final int MAX_DRIFT_PERCENT = 10;

    /** A stable window shorter than this is averaged but flagged. */
    public static final int SHORT_SECONDS = 10;

    /** The rule in one sentence, for reports. */
    public static final String RULE = "The averaged window is chosen per run from its measured throughput: after the "
            + "first second and the ramp-up, the longest stretch reaching the end of the run in which every k-second "
            + "rolling mean of the good responses per second stays within ±" + MAX_DRIFT_PERCENT + " % of the "
            + "stretch's mean (k = run length ÷ 6, between 3 and 10 s); it must be at least a quarter of the run and "
            + "2k long. When no stretch "
            + "qualifies, the paper's proportions (65–290 s of 300 s, scaled) are used and the run is flagged "
            + "**not stable**; a stable window under " + SHORT_SECONDS + " s is flagged **short**.";

    /** Whether the window's averages can be compared with other runs'. */
    public enum Status {
        STABLE,
        SHORT,
        UNSTABLE
    }

    public StableWindow {
        requireNonNull(status, "status");
        requireNonNull(reason, "reason");
        if (from < 0 || to < from) {
            throw new IllegalArgumentException("window: " + from + ".." + to + " (expected: 0 <= from <= to)");
        }
    }

    public int length() {
        return to - from;
    }

    /** A person's reading of the window: "6–19 s (14 s)". */
    public String describe() {
        return from + "–" + (to - 1) + " s (" + length() + " s)";
    }

    /**
     * @param goodPerSecond good responses in each second of the load, second 0 first
     * @param rampUpSeconds seconds of ramp-up at the start of the load (never in the window)
     */
    public static StableWindow choose(double[] goodPerSecond, int rampUpSeconds) {
        int n = goodPerSecond.length;
        int skip = Math.min(n, Math.max(1, rampUpSeconds + 1));
        int k = Math.clamp(Math.round(n / 6.0), 3, 10);
        int minLength = Math.max(2 * k, (int) Math.ceil(n / 4.0));
        double[] prefix = new double[n + 1];
        for (int i = 0; i < n; i++) {
            prefix[i + 1] = prefix[i] + goodPerSecond[i];
        }
        // the earliest start from which the rest of the run is steady: a JVM settles and stays settled, so a
        // plateau in the middle of a climb is not its steady state
        int bestFrom = -1;
        int bestTo = -1;
        double bestDrift = Double.NaN;
        for (int a = skip; a + minLength <= n && bestFrom < 0; a++) {
            double mean = (prefix[n] - prefix[a]) / (n - a);
            if (mean <= 0) {
                continue;
            }
            double worst = 0;
            for (int b = a + k; b <= n; b++) {
                worst = Math.max(worst, Math.abs((prefix[b] - prefix[b - k]) / k - mean));
            }
            double drift = worst / mean * 100;
            if (drift <= MAX_DRIFT_PERCENT) {
                bestFrom = a;
                bestTo = n;
                bestDrift = drift;
            }
        }
        if (bestFrom >= 0) {
            int length = bestTo - bestFrom;
            return length < SHORT_SECONDS
                    ? new StableWindow(
                            bestFrom,
                            bestTo,
                            k,
                            bestDrift,
                            Status.SHORT,
                            "stable for only " + length + " s (under " + SHORT_SECONDS + " s): a short run")
                    : new StableWindow(bestFrom, bestTo, k, bestDrift, Status.STABLE, "");
        }
        int[] paper = paperProportions(n);
        int from = Math.min(Math.max(paper[0], skip), n);
        int to = Math.max(from, Math.min(Math.max(paper[1], from + 1), n));
        String reason = n - skip < minLength
                ? "the run is too short to judge: " + (n - skip) + " s after the first " + skip
                        + " s, a stable window needs " + minLength + " s"
                : String.format(
                        Locale.ROOT,
                        "no stretch of %d s or more whose %d-second rolling means stay within ±%d %% of its mean",
                        minLength,
                        k,
                        MAX_DRIFT_PERCENT);
        return new StableWindow(
                from, to, k, drift(goodPerSecond, from, to, k), Status.UNSTABLE, reason + "; paper's proportions used");
    }

    /** The paper's stable window, 65–290 s of 300 s, scaled to {@code seconds} (never empty). */
    public static int[] paperProportions(int seconds) {
        int from = (int) Math.round(seconds * 65.0 / 300.0);
        int to = (int) Math.round(seconds * 290.0 / 300.0);
        if (to <= from) {
            to = Math.min(seconds, from + 1);
        }
        return new int[] {from, to};
    }

    private static double drift(double[] y, int from, int to, int k) {
        if (to - from < k) {
            return Double.NaN;
        }
        double mean = 0;
        for (int i = from; i < to; i++) {
            mean += y[i];
        }
        mean /= to - from;
        if (mean <= 0) {
            return Double.NaN;
        }
        double worst = 0;
        for (int b = from + k; b <= to; b++) {
            double rolling = 0;
            for (int i = b - k; i < b; i++) {
                rolling += y[i];
            }
            worst = Math.max(worst, Math.abs(rolling / k - mean));
        }
        return worst / mean * 100;
    }
}
