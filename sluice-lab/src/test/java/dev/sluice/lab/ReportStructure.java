package dev.sluice.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.imageio.ImageIO;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;

/**
 * What a person reading a paper-scenario {@code report.html} relies on, read with an HTML parser: the
 * paper cited, narrow tables, each run's averaged window listed and drawn, flagged windows called out
 * at the top and beside the figures, published figures beside measured ones, the commands wrapped.
 */
final class ReportStructure {

    /** Wider than this and a table no longer fits a 1,100 px page. */
    static final int MAX_COLUMNS = 10;

    private final Document html;

    private ReportStructure(Document html) {
        this.html = html;
    }

    static ReportStructure read(Path reportHtml) throws IOException {
        return new ReportStructure(Jsoup.parse(reportHtml.toFile()));
    }

    void citesThePaper() {
        Element cite = html.selectFirst("p cite");
        assertThat(cite).as("a <cite> of the paper's title").isNotNull();
        assertThat(cite.text())
                .isEqualTo("Performance evaluation of API Gateway in GraalVM and Virtual Thread environment");
        assertThat(cite.parent().text()).contains("Dong-il Cho", "(JICS), 2024");
        Element firstHeading = html.selectFirst("h2");
        assertThat(cite.parent().elementSiblingIndex())
                .as("cited before the first section")
                .isLessThan(firstHeading.elementSiblingIndex());
    }

    void tablesFitThePage() {
        assertThat(html.select("table")).isNotEmpty();
        for (Element table : html.select("table")) {
            int columns = table.select("thead th").size();
            assertThat(columns).as(table.select("thead").text()).isBetween(2, MAX_COLUMNS);
            for (Element row : table.select("tbody tr")) {
                assertThat(row.select("td")).as(row.text()).hasSize(columns);
            }
            assertThat(table.parent().hasClass("table"))
                    .as("a table scrolls in its own box")
                    .isTrue();
        }
    }

    /** The averaged window per run, by run label: its status cell. */
    Map<String, String> windowStatuses(List<String> runs) {
        Element table = tableWithHeader("averaged window");
        List<String> headers = table.select("thead th").eachText();
        int window = headers.indexOf("averaged window");
        int status = headers.indexOf("status");
        Map<String, String> byRun = table.select("tbody tr").stream()
                .collect(Collectors.toMap(
                        r -> r.child(0).text(), r -> r.child(status).text()));
        assertThat(byRun.keySet()).containsExactlyInAnyOrderElementsOf(runs);
        for (Element row : table.select("tbody tr")) {
            assertThat(row.child(window).text()).matches("\\d+–\\d+ s \\(\\d+ s\\)");
            assertThat(row.child(status).text()).matches("stable|short: .+|not stable: .+");
        }
        assertThat(table.parent().previousElementSibling().text())
                .as("the rule, stated above the table")
                .contains("chosen per run from its measured throughput", "rolling mean");
        return byRun;
    }

    /** Every run whose window is not stable is named in a caution at the top of the page. */
    void flaggedWindowsAreCalledOut(Map<String, String> statuses) {
        String cautions = html.select("div.caution").text();
        statuses.forEach((run, status) -> {
            if (!status.equals("stable")) {
                assertThat(cautions).as(run + " is flagged: " + status).contains(run);
            }
        });
    }

    /**
     * The throughput chart draws each run's window: its caption says so, and the first run's pale bar
     * (the palette's blue at alpha 90 over white, 9 px thick) is in the picture as a block at least
     * {@value #BAR_WIDTH} px wide and {@value #BAR_HEIGHT} px high. A block, because the antialiased edges of
     * the blue line itself pass through the same colour, one pixel at a time.
     */
    void windowIsMarkedOnTheThroughputChart() throws IOException {
        Element figure = html.select("figure").stream()
                .filter(f -> f.select("figcaption").text().startsWith("Throughput over time"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no throughput chart"));
        assertThat(figure.select("figcaption").text()).contains("averaged window");
        String src = figure.selectFirst("img").attr("src");
        BufferedImage png =
                ImageIO.read(new ByteArrayInputStream(Base64.getDecoder().decode(src.substring(src.indexOf(',') + 1))));
        assertThat(widestPaleBlock(png)).as("px of the first run's window bar").isGreaterThanOrEqualTo(BAR_WIDTH);
    }

    static final int BAR_WIDTH = 20;

    static final int BAR_HEIGHT = 6;

    /**
     * The most columns, on any one row, that hold {@link #BAR_HEIGHT} pale pixels downward from it. Not
     * a contiguous run: the throughput line crosses its own window's bar (drawn at the window's mean)
     * wherever it goes above or below it, cutting the bar into pieces, the more so the noisier a short
     * run. The line's anti-aliased edges, the only other pale pixels, stand that tall in a column or two
     * per steep segment, far fewer than a bar's width.
     */
    private static int widestPaleBlock(BufferedImage png) {
        int w = png.getWidth();
        int h = png.getHeight();
        int[][] down = new int[w][h + 1];
        for (int x = 0; x < w; x++) {
            for (int y = h - 1; y >= 0; y--) {
                down[x][y] = pale(png.getRGB(x, y)) ? down[x][y + 1] + 1 : 0;
            }
        }
        int widest = 0;
        for (int y = 0; y < h; y++) {
            int columns = 0;
            for (int x = 0; x < w; x++) {
                if (down[x][y] >= BAR_HEIGHT) {
                    columns++;
                }
            }
            widest = Math.max(widest, columns);
        }
        return widest;
    }

    private static boolean pale(int rgb) {
        return near((rgb >> 16) & 0xff, 182) && near((rgb >> 8) & 0xff, 204) && near(rgb & 0xff, 243);
    }

    private static boolean near(int value, int expected) {
        return Math.abs(value - expected) <= 6;
    }

    /** Published and measured columns side by side, the published ones marked as such. */
    void publishedBesideMeasured(Map<String, String> statuses) {
        Element table = tableWithHeader("throughput published (native = 100)");
        List<String> headers = table.select("thead th").eachText();
        assertThat(headers)
                .contains(
                        "req/s measured here",
                        "CPU % measured here",
                        "CPU % published",
                        "RSS MiB measured here",
                        "RSS MB published");
        assertThat(table.select("th.published").eachText()).allMatch(h -> h.contains("published"));
        assertThat(table.select("th.published")).hasSize(3);
        int measured = headers.indexOf("req/s measured here");
        for (Element row : table.select("tbody tr")) {
            String run = row.child(0).text();
            String status = statuses.get(run);
            if (status == null) {
                continue; // a published-only row (native)
            }
            String rate = row.child(measured).text();
            assertThat(rate).as(run).matches("[\\d,]+\\.\\d.*");
            if (status.startsWith("short")) {
                assertThat(rate).as(run).endsWith("(short window)");
            } else if (status.startsWith("not stable")) {
                assertThat(rate).as(run).endsWith("(window not stable)");
            }
        }
    }

    /** The commands are there, in a block that wraps rather than being cut at the page's edge. */
    void commandsWrap() {
        Element commands = html.selectFirst("pre.commands");
        assertThat(commands).isNotNull();
        assertThat(commands.wholeText()).startsWith("sluice lab paper ").contains("-jar ");
        assertThat(html.select("style").html())
                .containsPattern("pre\\{[^}]*white-space:pre-wrap")
                .containsPattern("pre\\{[^}]*overflow-wrap:anywhere");
    }

    private Element tableWithHeader(String header) {
        return html.select("table").stream()
                .filter(t -> t.select("thead th").eachText().contains(header))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no table with a column \"" + header + "\""));
    }
}
