package dev.sluice.lab.run;

import java.util.Map;
import java.util.TreeMap;

/**
 * What the load generator saw: responses per wall-clock second (good = status 200 and the expected
 * size), statuses other than 200, bodies of the wrong size, socket errors, and latencies.
 */
public record LoadResult(
        TreeMap<Long, long[]> perSecond,
        TreeMap<Integer, Long> badStatuses,
        long badSize,
        long connectErrors,
        long readErrors,
        long writeErrors,
        long timeouts,
        long requests,
        long bytes,
        LatencyDistribution latency) {

    public static LoadResult empty() {
        return new LoadResult(new TreeMap<>(), new TreeMap<>(), 0, 0, 0, 0, 0, 0, 0, LatencyDistribution.empty());
    }

    /** Responses that passed the checks. */
    public long good() {
        return perSecond.values().stream().mapToLong(v -> v[0]).sum();
    }

    /** Every failed request: bad status, bad size, socket error or timeout. */
    public long errors() {
        return badSize
                + badStatuses.values().stream().mapToLong(Long::longValue).sum()
                + connectErrors
                + readErrors
                + writeErrors
                + timeouts;
    }

    /** Good responses completed in the given wall-clock second. */
    public long goodAt(long epochSecond) {
        long[] v = perSecond.get(epochSecond);
        return v == null ? 0 : v[0];
    }

    /** A one-line account of the errors, empty text when there were none. */
    public String describeErrors() {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<Integer, Long> e : badStatuses.entrySet()) {
            sb.append(e.getValue()).append(" × status ").append(e.getKey()).append(", ");
        }
        if (badSize > 0) {
            sb.append(badSize).append(" × wrong body size, ");
        }
        if (connectErrors > 0) {
            sb.append(connectErrors).append(" connect errors, ");
        }
        if (readErrors > 0) {
            sb.append(readErrors).append(" read errors, ");
        }
        if (writeErrors > 0) {
            sb.append(writeErrors).append(" write errors, ");
        }
        if (timeouts > 0) {
            sb.append(timeouts).append(" timeouts, ");
        }
        return sb.isEmpty() ? "" : sb.substring(0, sb.length() - 2);
    }

    public LoadResult merge(LoadResult o) {
        TreeMap<Long, long[]> seconds = new TreeMap<>();
        for (TreeMap<Long, long[]> m : java.util.List.of(perSecond, o.perSecond)) {
            m.forEach((s, v) -> seconds.merge(s, v.clone(), (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]}));
        }
        TreeMap<Integer, Long> statuses = new TreeMap<>(badStatuses);
        o.badStatuses.forEach((k, v) -> statuses.merge(k, v, Long::sum));
        return new LoadResult(
                seconds,
                statuses,
                badSize + o.badSize,
                connectErrors + o.connectErrors,
                readErrors + o.readErrors,
                writeErrors + o.writeErrors,
                timeouts + o.timeouts,
                requests + o.requests,
                bytes + o.bytes,
                latency.merge(o.latency));
    }
}
