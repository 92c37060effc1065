package dev.sluice.lab.scenario;

import java.util.List;
import java.util.Map;

/**
 * The figures the seeds published (docs/SEEDS.md), shown beside the lab's own measurements. They are
 * never used as measurements: a column the lab cannot measure here reads "not available on this machine".
 */
public final class Published {

    private Published() {}

    // Where each figure comes from, cited where a report first uses it (titles in English; the sources are in
    // Korean, and a report renders on machines without Korean fonts).

    public static final String PAPER_CITATION = "Dong-il Cho, *Performance evaluation of API Gateway in GraalVM and "
            + "Virtual Thread environment*, Journal of Internet Computing and Services (JICS), 2024 (“the paper”)";

    public static final String S001_CITATION =
            "seed 001: *Applying virtual threads in Spring Boot*, a blog post (Korean) on the blog 알쓸개잡, 3 Dec 2023";

    public static final String S002_CITATION = "seed 002: *Web applications and Project Loom*, a Korean translation of "
            + "an Apache Tomcat blog post (the copy names neither author nor translator)";

    public static final String S003_CITATION = "seed 003: *Calling external APIs asynchronously*, a blog post (Korean; "
            + "the copy does not name its author)";

    public static final String S004_CITATION =
            "seed 004: *[Spring Boot] Virtual Threads vs Reactive vs Kotlin Coroutines performance comparison*, "
                    + "igooo, a blog post (Korean), 10 Sep 2024";

    public static final String PAPER_MACHINE =
            "Intel i5-1235U, 10 cores / 12 threads, 16 GiB, Ubuntu 22; Spring Boot 3.2.2, JDK 21";

    /** Paper, figures 2–4 (stable window 65–290 s): CPU % by runtime and model. */
    public static final Map<String, Double> PAPER_CPU_PERCENT =
            Map.of("VT JVM", 567.0, "VT Native", 387.0, "Reactive JVM", 628.0, "Reactive Native", 374.0);

    /** Paper, figures 2–4: RSS in MB. */
    public static final Map<String, Double> PAPER_RSS_MB =
            Map.of("VT JVM", 1515.0, "VT Native", 168.0, "Reactive JVM", 1176.0, "Reactive Native", 162.0);

    /**
     * Paper, figure 2 and its text: throughput of JVM above native, in %. The paper prints no req/s: its
     * throughput is a chart and these two ratios.
     */
    public static final Map<String, Double> PAPER_THROUGHPUT_JVM_ABOVE_NATIVE_PERCENT =
            Map.of("VT", 56.0, "Reactive", 26.0);

    /** Paper, Table 2: packaging time (s), mean ± sd. */
    public static final Map<String, String> PAPER_PACKAGING_S = Map.of(
            "Reactive JVM",
            "2.950 ± 0.2",
            "Reactive Native",
            "127.2 ± 3.4",
            "VT JVM",
            "2.361 ± 0.3",
            "VT Native",
            "123.4 ± 1.7");

    /** Paper, Table 2: start time (ms), mean ± sd. */
    public static final Map<String, String> PAPER_START_MS = Map.of(
            "Reactive JVM",
            "1133.8 ± 36.5",
            "Reactive Native",
            "27.6 ± 0.5",
            "VT JVM",
            "1171.6 ± 27.5",
            "VT Native",
            "38.8 ± 2.2");

    /** Paper, Table 2: file size (MB). */
    public static final Map<String, String> PAPER_SIZE_MB =
            Map.of("Reactive JVM", "637", "Reactive Native", "91", "VT JVM", "636", "VT Native", "90");

    /** Seed 001: 1,000 users, 5 s blocking I/O. */
    public static final double S001_VIRTUAL_RPS = 185.6;

    public static final double S001_PLATFORM_RPS = 39.3;

    /** Seed 003: fast route TPS / mean ms, synchronous vs slow work isolated on its own executor. */
    public static final String S003_SYNC = "304.7 TPS / 625 ms";

    public static final String S003_ISOLATED = "460.3 TPS / 415 ms";

    /** Seed 004: Vusers → TPS for Blocking, VT, Reactive, Coroutines (NaN: not published). */
    public static final List<Integer> S004_USERS = List.of(30, 60, 90, 150, 180);

    public static final Map<String, List<Double>> S004_TPS = Map.of(
            "Blocking", List.of(54.1, 54.3, Double.NaN, Double.NaN, Double.NaN),
            "VT", List.of(874.8, 1499.4, 1909.7, 2489.3, 2629.1),
            "Reactive", List.of(901.1, 1757.6, 2463.7, 3225.3, 3385.9),
            "Coroutines", List.of(896.0, 1745.6, 2399.5, 2499.3, 3018.8));

    /** Seed 004: mean test time (ms) at 180 Vusers. */
    public static final Map<String, Double> S004_MEAN_MS_180 = Map.of("VT", 68.1, "Reactive", 52.8, "Coroutines", 59.3);

    /** Which published column of seed 004 a subject compares with. */
    public static String s004Column(String subject) {
        return switch (subject) {
            case "sequential" -> "Blocking";
            case "virtual", "virtual-aot", "spring-virtual" -> "VT";
            case "reactive", "reactive-aot", "spring-reactive" -> "Reactive";
            case "kotlin-coroutines" -> "Coroutines";
            default -> "";
        };
    }

    /** Which of the paper's columns a subject compares with ("VT JVM", "Reactive JVM"), empty when none. */
    public static String paperColumn(String subject) {
        return switch (subject) {
            case "virtual", "virtual-aot", "spring-virtual" -> "VT JVM";
            case "reactive", "reactive-aot", "spring-reactive" -> "Reactive JVM";
            default -> "";
        };
    }
}
