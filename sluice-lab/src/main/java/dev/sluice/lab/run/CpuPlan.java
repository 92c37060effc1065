package dev.sluice.lab.run;

import java.util.ArrayList;
import java.util.List;

/**
 * Where processes run. Unpinned, everything shares every CPU. Pinned ({@code --pin}), the subject gets
 * the first half of the CPUs and the load generator and upstreams the rest (with {@code taskset}), so
 * on a 2-core machine each side has a core of its own.
 */
public record CpuPlan(boolean pinned, String subjectCpus, String loadCpus, int cores) {

    public static CpuPlan of(boolean pin) {
        int cores = Runtime.getRuntime().availableProcessors();
        if (!pin || cores < 2) {
            return new CpuPlan(false, "", "", cores);
        }
        int half = cores / 2;
        String subject = half == 1 ? "0" : "0-" + (half - 1);
        String load = cores - half == 1 ? Integer.toString(half) : half + "-" + (cores - 1);
        return new CpuPlan(true, subject, load, cores);
    }

    /** {@code command} run on the subject's CPUs. */
    public List<String> subject(List<String> command) {
        return wrap(subjectCpus, command);
    }

    /** {@code command} run on the load generator's CPUs. */
    public List<String> load(List<String> command) {
        return wrap(loadCpus, command);
    }

    /** CPUs the subject may use, for CPU-% context (100 % = one core). */
    public int subjectCoreCount() {
        if (!pinned) {
            return cores;
        }
        return cores / 2;
    }

    public String describe() {
        return pinned
                ? "subject on CPU " + subjectCpus + ", load generator and upstreams on CPU " + loadCpus
                : "not pinned: subject, load generator and upstreams share all " + cores + " CPUs";
    }

    private List<String> wrap(String cpus, List<String> command) {
        if (!pinned) {
            return command;
        }
        List<String> c = new ArrayList<>(List.of("taskset", "-c", cpus));
        c.addAll(command);
        return c;
    }
}
