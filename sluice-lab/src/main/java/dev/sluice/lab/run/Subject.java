package dev.sluice.lab.run;

import dev.sluice.lab.UsageException;
import java.util.ArrayList;
import java.util.List;

/**
 * What a scenario measures: Sluice with one engine mode on one runtime, or one of the seeds' own
 * implementations (the baselines under {@code sluice-lab/baselines/}).
 *
 * @param name as given on the command line and shown in reports ({@code virtual}, {@code reactive-aot},
 *     {@code spring-platform})
 * @param engine Sluice's engine mode ({@code virtual}, {@code platform}, {@code reactive}); for a
 *     baseline, the app ({@code spring-reactive}, {@code spring-virtual}, {@code kotlin-coroutines})
 * @param baseline whether this is a seed implementation rather than Sluice
 * @param runtime {@code jvm} or {@code aot} (the JDK AOT cache); baselines run on {@code jvm}
 * @param extraArgs more application arguments (the platform-thread switch of {@code spring-platform})
 */
public record Subject(String name, String engine, boolean baseline, String runtime, List<String> extraArgs) {

    public static final List<String> ENGINES = List.of("virtual", "reactive", "platform");
    public static final List<String> BASELINES =
            List.of("spring-reactive", "spring-virtual", "spring-platform", "kotlin-coroutines");
    public static final List<String> RUNTIMES = List.of("jvm", "aot", "native");

    public Subject {
        extraArgs = List.copyOf(extraArgs);
    }

    /** The baseline's jar name under {@code sluice-lab/baselines/} ({@code spring-platform} runs spring-virtual's jar). */
    public String app() {
        return engine.equals("spring-platform") ? "spring-virtual" : engine;
    }

    /** A human label: {@code Sluice virtual (JVM)}, {@code Spring WebFlux (seed)}. */
    public String label() {
        if (baseline) {
            return switch (engine) {
                case "spring-reactive" -> "Spring WebFlux (seed 000)";
                case "spring-virtual" -> "Spring MVC, virtual threads (seed 000/001)";
                case "spring-platform" -> "Spring MVC, platform threads (seed 001)";
                case "kotlin-coroutines" -> "Kotlin coroutines (seed 004)";
                default -> engine;
            };
        }
        return "Sluice " + engine + " (" + runtime.toUpperCase(java.util.Locale.ROOT) + ")";
    }

    /**
     * Parses {@code --subjects}: engine modes ({@code virtual}, each crossed with {@code runtimes}),
     * engine modes with a runtime ({@code virtual-aot}), and baselines.
     */
    public static List<Subject> parse(List<String> names, List<String> runtimes) throws UsageException {
        for (String r : runtimes) {
            if (!RUNTIMES.contains(r)) {
                throw new UsageException("--runtimes: '" + r + "' (expected: jvm, aot or native)");
            }
        }
        List<Subject> subjects = new ArrayList<>();
        for (String n : names) {
            if (ENGINES.contains(n)) {
                for (String r : runtimes) {
                    subjects.add(sluice(n, r));
                }
            } else if (n.contains("-")
                    && ENGINES.contains(n.substring(0, n.lastIndexOf('-')))
                    && RUNTIMES.contains(n.substring(n.lastIndexOf('-') + 1))) {
                subjects.add(sluice(n.substring(0, n.lastIndexOf('-')), n.substring(n.lastIndexOf('-') + 1)));
            } else if (BASELINES.contains(n)) {
                subjects.add(new Subject(
                        n,
                        n,
                        true,
                        "jvm",
                        n.equals("spring-platform") ? List.of("--spring.threads.virtual.enabled=false") : List.of()));
            } else {
                throw new UsageException(
                        "--subjects: '" + n + "' (expected: virtual, reactive, platform (optionally with -jvm or"
                                + " -aot), spring-reactive, spring-virtual, spring-platform, kotlin-coroutines)");
            }
        }
        return subjects.stream().distinct().toList();
    }

    private static Subject sluice(String engine, String runtime) {
        return new Subject(runtime.equals("jvm") ? engine : engine + "-" + runtime, engine, false, runtime, List.of());
    }
}
