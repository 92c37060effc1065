package dev.sluice.lab.report;

import java.util.List;
import java.util.Locale;

/**
 * How the lab prints a figure: never a NaN, an infinity or a zero latency: a figure that could not be
 * measured reads "n/a". Latencies keep three significant digits.
 */
public final class Figures {

    public static final String NA = "n/a";

    private Figures() {}

    public static String fixed(double v, int decimals) {
        if (!Double.isFinite(v)) {
            return NA;
        }
        return String.format(Locale.ROOT, "%,." + decimals + "f", v);
    }

    /** A latency in ms; a non-positive or non-finite one is not a measurement. */
    public static String millis(double ms) {
        if (!Double.isFinite(ms) || ms <= 0) {
            return NA;
        }
        if (ms >= 100) {
            return fixed(ms, 0);
        }
        if (ms >= 10) {
            return fixed(ms, 1);
        }
        if (ms >= 1) {
            return fixed(ms, 2);
        }
        return String.format(Locale.ROOT, "%.3f", ms);
    }

    public static String meanSd(List<Double> values, int decimals) {
        if (values.isEmpty() || values.stream().anyMatch(v -> !Double.isFinite(v))) {
            return NA;
        }
        return fixed(mean(values), decimals) + " ± " + fixed(sd(values), decimals);
    }

    public static double mean(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    }

    /** Sample standard deviation (n - 1); 0 for one value. */
    public static double sd(List<Double> values) {
        if (values.size() < 2) {
            return values.isEmpty() ? Double.NaN : 0;
        }
        double m = mean(values);
        double ss = values.stream().mapToDouble(v -> (v - m) * (v - m)).sum();
        return Math.sqrt(ss / (values.size() - 1));
    }
}
