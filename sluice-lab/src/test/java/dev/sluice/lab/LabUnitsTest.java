package dev.sluice.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.lab.report.Figures;
import dev.sluice.lab.report.Renderers;
import dev.sluice.lab.report.ReportDoc;
import dev.sluice.lab.run.CpuPlan;
import dev.sluice.lab.run.LatencyDistribution;
import dev.sluice.lab.run.ProcessSampler;
import dev.sluice.lab.run.Subject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The lab's pieces that need no process: options, subjects, figures, latency merging, rendering, /proc reading. */
class LabUnitsTest {

    @Test
    void durationsAndFlagsAreParsedAndBadOnesNamed() throws Exception {
        LabOptions o = LabOptions.parse(
                List.of(
                        "paper",
                        "--duration",
                        "300s",
                        "--warmup=500ms",
                        "--pin",
                        "--subjects",
                        "virtual, spring-reactive"),
                Set.of("--duration", "--warmup", "--pin", "--subjects"),
                Set.of("--pin"));
        assertThat(o.duration("--duration", Duration.ZERO)).isEqualTo(Duration.ofSeconds(300));
        assertThat(o.duration("--warmup", Duration.ZERO)).isEqualTo(Duration.ofMillis(500));
        assertThat(o.flag("--pin")).isTrue();
        assertThat(o.list("--subjects", List.of())).containsExactly("virtual", "spring-reactive");
        assertThatThrownBy(() -> LabOptions.parse(List.of("paper", "--durashun", "1s"), Set.of("--duration"), Set.of()))
                .hasMessageContaining("unknown flag '--durashun'")
                .hasMessageContaining("--duration");
        assertThatThrownBy(
                        () -> LabOptions.parse(List.of("paper", "--duration", "soon"), Set.of("--duration"), Set.of())
                                .duration("--duration", Duration.ZERO))
                .hasMessage("--duration: 'soon' (expected: a duration such as 60s, 500ms or 5m)");
    }

    @Test
    void subjectsCrossEnginesWithRuntimesAndKnowTheBaselines() throws Exception {
        List<Subject> s = Subject.parse(List.of("virtual", "reactive-aot", "spring-platform"), List.of("jvm", "aot"));
        assertThat(s)
                .extracting(Subject::name)
                .containsExactly("virtual", "virtual-aot", "reactive-aot", "spring-platform");
        assertThat(s.get(3).app()).isEqualTo("spring-virtual");
        assertThat(s.get(3).extraArgs()).containsExactly("--spring.threads.virtual.enabled=false");
        assertThatThrownBy(() -> Subject.parse(List.of("tomcat"), List.of("jvm")))
                .hasMessageContaining("'tomcat'");
    }

    @Test
    void figuresNeverPrintNanOrAZeroLatency() {
        assertThat(Figures.millis(0)).isEqualTo("n/a");
        assertThat(Figures.millis(Double.NaN)).isEqualTo("n/a");
        assertThat(Figures.millis(0.4567)).isEqualTo("0.457");
        assertThat(Figures.millis(52.84)).isEqualTo("52.8");
        assertThat(Figures.fixed(Double.POSITIVE_INFINITY, 1)).isEqualTo("n/a");
        assertThat(Figures.meanSd(List.of(2.0, 4.0), 2)).isEqualTo("3.00 ± 1.41");
    }

    @Test
    void latencyDistributionsMergeAsAMixture() {
        LatencyDistribution fast = uniform(1000, 1_000, 2_000);
        LatencyDistribution slow = uniform(1000, 9_000, 10_000);
        assertThat(fast.millis(50)).hasValueSatisfying(v -> assertThat(v).isBetween(1.45, 1.55));
        LatencyDistribution both = fast.merge(slow);
        assertThat(both.count()).isEqualTo(2000);
        assertThat(both.meanMillis()).hasValueSatisfying(v -> assertThat(v).isBetween(5.4, 5.6));
        assertThat(both.millis(25)).hasValueSatisfying(v -> assertThat(v).isBetween(1.45, 1.55));
        assertThat(both.millis(75)).hasValueSatisfying(v -> assertThat(v).isBetween(9.4, 9.6));
        assertThat(both.millis(100)).hasValueSatisfying(v -> assertThat(v).isEqualTo(10.0));
        assertThat(LatencyDistribution.empty().millis(50)).isEmpty();
    }

    private static LatencyDistribution uniform(long count, double fromMicros, double toMicros) {
        List<double[]> points = new ArrayList<>();
        for (int p = 0; p <= 100; p++) {
            points.add(new double[] {p, fromMicros + (toMicros - fromMicros) * p / 100.0});
        }
        return LatencyDistribution.of(count, (fromMicros + toMicros) / 2, points);
    }

    @Test
    void reportRendersAlertsFirstAndEscapesHtml() {
        ReportDoc doc = new ReportDoc("T");
        doc.paragraph("a <b> & `code`");
        doc.table(List.of("run", "req/s"), List.of(List.of("virtual", "1,234.5")));
        doc.alert("virtual: 3 errors");
        String md = Renderers.markdown(doc);
        assertThat(md.indexOf("3 errors")).isLessThan(md.indexOf("a <b>"));
        assertThat(md).contains("| virtual | 1,234.5 |");
        String html = Renderers.html(doc);
        assertThat(html).contains("a &lt;b&gt; &amp; <code>code</code>", "<td>1,234.5</td>", "class=\"alert\"");
    }

    @Test
    void procReadingsOfThisProcessArePlausible() {
        long pid = ProcessHandle.current().pid();
        assertThat(ProcessSampler.cpuTicks(pid))
                .hasValueSatisfying(t -> assertThat(t).isPositive());
        assertThat(ProcessSampler.rssMb(pid))
                .hasValueSatisfying(r -> assertThat(r).isGreaterThan(10));
        assertThat(ProcessSampler.ticksPerSecond()).isPositive();
    }

    @Test
    void pinningSplitsTheCpusBetweenSubjectAndLoad() {
        CpuPlan none = CpuPlan.of(false);
        assertThat(none.subject(List.of("java"))).containsExactly("java");
        CpuPlan pinned = new CpuPlan(true, "0", "1", 2);
        assertThat(pinned.subject(List.of("java"))).containsExactly("taskset", "-c", "0", "java");
        assertThat(pinned.load(List.of("wrk"))).containsExactly("taskset", "-c", "1", "wrk");
    }
}
