package dev.sluice.lab.run;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Latencies as wrk reports them: a quantile function (percentile → microseconds, at 0.1 % steps and
 * 99.9x) with its request count and mean. Distributions from several wrk processes (a ramp-up starts
 * one per step) are merged as a mixture: the merged CDF is the request-weighted sum of each
 * process's CDF (linear between reported points), inverted by bisection.
 */
public final class LatencyDistribution {

    /** One process's quantiles: percentiles ascending, with their latencies in microseconds. */
    private record Part(long count, double meanMicros, double[] percentiles, double[] micros) {

        /** Fraction of this part's requests at or below {@code x} microseconds. */
        double cdf(double x) {
            if (x < micros[0]) {
                return 0;
            }
            if (x >= micros[micros.length - 1]) {
                return 1;
            }
            int i = 0;
            while (i + 1 < micros.length && micros[i + 1] <= x) {
                i++;
            }
            double lo = micros[i];
            double hi = micros[i + 1];
            double f = hi > lo ? (x - lo) / (hi - lo) : 1;
            return (percentiles[i] + f * (percentiles[i + 1] - percentiles[i])) / 100.0;
        }
    }

    private final List<Part> parts;

    private LatencyDistribution(List<Part> parts) {
        this.parts = List.copyOf(parts);
    }

    public static LatencyDistribution empty() {
        return new LatencyDistribution(List.of());
    }

    /** One wrk process's distribution; {@code percentiles} ascending from 0 (min) to 100 (max). */
    public static LatencyDistribution of(long count, double meanMicros, List<double[]> points) {
        if (count <= 0 || points.size() < 2) {
            return empty();
        }
        List<double[]> sorted = new ArrayList<>(points);
        sorted.sort((a, b) -> Double.compare(a[0], b[0]));
        double[] p = new double[sorted.size()];
        double[] us = new double[sorted.size()];
        for (int i = 0; i < p.length; i++) {
            p[i] = sorted.get(i)[0];
            us[i] = i == 0 ? sorted.get(i)[1] : Math.max(us[i - 1], sorted.get(i)[1]);
        }
        return new LatencyDistribution(List.of(new Part(count, meanMicros, p, us)));
    }

    public LatencyDistribution merge(LatencyDistribution other) {
        List<Part> all = new ArrayList<>(parts);
        all.addAll(other.parts);
        return new LatencyDistribution(all);
    }

    public long count() {
        return parts.stream().mapToLong(Part::count).sum();
    }

    /** Mean latency in milliseconds; empty without requests. */
    public Optional<Double> meanMillis() {
        long n = count();
        if (n == 0) {
            return Optional.empty();
        }
        double sum = 0;
        for (Part p : parts) {
            sum += p.meanMicros() * p.count();
        }
        return Optional.of(sum / n / 1000.0);
    }

    /** The {@code percentile} (0..100) latency in milliseconds; empty without requests. */
    public Optional<Double> millis(double percentile) {
        if (percentile < 0 || percentile > 100) {
            throw new IllegalArgumentException("percentile: " + percentile + " (expected: 0..100)");
        }
        if (parts.isEmpty()) {
            return Optional.empty();
        }
        if (parts.size() == 1) {
            Part p = parts.getFirst();
            for (int i = 0; i < p.percentiles().length; i++) {
                if (p.percentiles()[i] >= percentile - 1e-9) {
                    return Optional.of(p.micros()[i] / 1000.0);
                }
            }
            return Optional.of(p.micros()[p.micros().length - 1] / 1000.0);
        }
        double lo = parts.stream().mapToDouble(p -> p.micros()[0]).min().orElse(0);
        double hi = parts.stream()
                .mapToDouble(p -> p.micros()[p.micros().length - 1])
                .max()
                .orElse(0);
        double target = percentile / 100.0;
        long total = count();
        for (int iter = 0; iter < 60 && hi - lo > 0.5; iter++) {
            double mid = (lo + hi) / 2;
            double f = 0;
            for (Part p : parts) {
                f += p.cdf(mid) * p.count() / total;
            }
            if (f >= target) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        return Optional.of(hi / 1000.0);
    }

    /** How many wrk processes this was merged from. */
    public int sources() {
        return parts.size();
    }
}
