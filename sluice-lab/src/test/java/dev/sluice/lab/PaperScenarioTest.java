package dev.sluice.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.lab.run.Wrk;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The paper scenario end to end, short: the gateway (virtual engine) and one baseline (Spring WebFlux)
 * as real processes under wrk, then the report's files, figures and structure ({@link ReportStructure}). Builds the gateway jar and the
 * baselines when they are missing. Skips only when wrk is not installed.
 */
@Tag("slow")
class PaperScenarioTest {

    @TempDir
    Path out;

    @Test
    void shortPaperRunWritesASaneReport() throws Exception {
        assumeTrue(Wrk.installed(), "wrk is not installed (apt-get install -y wrk): the lab's load generator");
        Workspace ws = Workspace.locate(java.util.Optional.empty(), java.util.Optional.empty());
        ws.ensureGatewayJar(out.resolve("gateway-build.log"));
        ws.ensureBaselines(List.of("spring-reactive"), out.resolve("baselines-build.log"));
        Path results = out.resolve("paper");

        int exit = LabMain.run(List.of(
                "paper",
                "--duration",
                "5s",
                "--warmup",
                "2s",
                "--ramp-up",
                "0",
                "--connections",
                "4",
                "--subjects",
                "virtual,spring-reactive",
                "--runtimes",
                "jvm",
                "--out",
                results.toString()));

        assertThat(exit).as("exit code (0: every subject ran without errors)").isZero();
        for (String f : List.of(
                "report.html",
                "report.md",
                "env.json",
                "gateway.yaml",
                "raw/summary.csv",
                "raw/virtual-seconds.csv",
                "raw/spring-reactive-seconds.csv",
                "raw/sluice-lab.lua",
                "charts/paper-throughput.png",
                "charts/paper-cpu.png",
                "charts/paper-rss.png")) {
            assertThat(results.resolve(f)).as(f).isRegularFile();
        }
        String md = Files.readString(results.resolve("report.md"));
        assertThat(md)
                .contains("| virtual |", "| spring-reactive |", "| VT JVM |", "not available on this machine")
                .doesNotContain("NaN", "Infinity", "⚠");
        String html = Files.readString(results.resolve("report.html"));
        Matcher png = Pattern.compile("data:image/png;base64,([A-Za-z0-9+/=]+)").matcher(html);
        int charts = 0;
        while (png.find()) {
            BufferedImage image =
                    ImageIO.read(new ByteArrayInputStream(Base64.getDecoder().decode(png.group(1))));
            assertThat(image).isNotNull();
            assertThat(image.getWidth()).isGreaterThan(100);
            charts++;
        }
        assertThat(charts).as("embedded PNG charts").isGreaterThanOrEqualTo(3);
        assertThat(html).doesNotContain("src=\"charts/");

        List<String> summary = Files.readAllLines(results.resolve("raw/summary.csv"));
        assertThat(summary).hasSize(3);
        List<String> header = List.of(summary.getFirst().split(","));
        for (String row : summary.subList(1, 3)) {
            String[] cells = row.split(",");
            assertThat(Double.parseDouble(cells[header.indexOf("req/s (window)")]))
                    .as(row)
                    .isPositive();
            assertThat(Double.parseDouble(cells[header.indexOf("CPU % (window)")]))
                    .as(row)
                    .isPositive();
            assertThat(Double.parseDouble(cells[header.indexOf("RSS MiB (window)")]))
                    .as(row)
                    .isGreaterThan(10);
            assertThat(Double.parseDouble(cells[header.indexOf("p50 ms")]))
                    .as(row)
                    .isPositive();
            assertThat(Double.parseDouble(cells[header.indexOf("p99 ms")]))
                    .as(row)
                    .isGreaterThanOrEqualTo(Double.parseDouble(cells[header.indexOf("p50 ms")]));
            assertThat(Long.parseLong(cells[header.indexOf("errors")])).as(row).isZero();
            assertThat(Double.parseDouble(cells[header.indexOf("start → first response ms")]))
                    .as(row)
                    .isGreaterThanOrEqualTo(Double.parseDouble(cells[header.indexOf("start → started line ms")]));
        }
        for (String subject : List.of("virtual", "spring-reactive")) {
            List<String> seconds = Files.readAllLines(results.resolve("raw/" + subject + "-seconds.csv"));
            assertThat(seconds).as(subject + " seconds").hasSize(1 + 5);
            // every second of the stable window (1..4 of 5): responses, a CPU sample and an RSS sample
            for (String row : seconds.subList(2, 6)) {
                String[] c = row.split(",");
                assertThat(Long.parseLong(c[2]))
                        .as(subject + " good responses: " + row)
                        .isPositive();
                assertThat(Long.parseLong(c[3]))
                        .as(subject + " bad responses: " + row)
                        .isZero();
                assertThat(Double.parseDouble(c[4]))
                        .as(subject + " CPU %: " + row)
                        .isPositive();
                assertThat(Double.parseDouble(c[5]))
                        .as(subject + " RSS: " + row)
                        .isGreaterThan(10);
            }
        }
        ReportStructure report = ReportStructure.read(results.resolve("report.html"));
        report.citesThePaper();
        report.tablesFitThePage();
        Map<String, String> windows = report.windowStatuses(List.of("virtual", "spring-reactive"));
        report.flaggedWindowsAreCalledOut(windows);
        report.windowIsMarkedOnTheThroughputChart();
        report.publishedBesideMeasured(windows);
        report.commandsWrap();

        String env = Files.readString(results.resolve("env.json"));
        assertThat(env)
                .contains(
                        "\"cpu_model\"",
                        "\"kernel\"",
                        "\"load_generator\": \"wrk",
                        "\"Spring-Boot-Version\"",
                        "\"sluice\": \"sluice ",
                        "--engine virtual",
                        "spring-reactive.jar --server.port=");
    }
}
