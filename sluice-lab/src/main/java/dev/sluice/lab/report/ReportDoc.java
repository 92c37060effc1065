package dev.sluice.lab.report;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;

/**
 * A report as blocks, rendered both as Markdown ({@code report.md}, charts linked from
 * {@code charts/}) and as self-contained HTML ({@code report.html}, charts embedded). Text may use
 * {@code `code`} spans.
 */
public final class ReportDoc {

    /** One block of the report. */
    public sealed interface Block {}

    public record Heading(int level, String text) implements Block {}

    public record Paragraph(String text) implements Block {}

    /** A warning shown prominently (errors in a run). */
    public record Alert(String text) implements Block {}

    /** A caution shown at the top, under the alerts: a figure to read with care (an unstable window). */
    public record Caution(String text) implements Block {}

    public record Table(List<String> headers, List<List<String>> rows) implements Block {
        public Table {
            headers = List.copyOf(headers);
            rows = rows.stream().map(List::copyOf).toList();
        }
    }

    /** A PNG chart; {@code file} is its name under {@code charts/}. */
    public record Chart(String file, byte[] png, String caption) implements Block {}

    /** A preformatted block (commands). */
    public record Code(String text) implements Block {}

    private final String title;
    private final List<Block> blocks = new ArrayList<>();
    private final List<Block> alerts = new ArrayList<>();
    private final List<Block> cautions = new ArrayList<>();

    public ReportDoc(String title) {
        this.title = requireNonNull(title, "title");
    }

    public String title() {
        return title;
    }

    /** Alerts first (they belong at the top), then cautions, then the blocks in order. */
    public List<Block> blocks() {
        List<Block> all = new ArrayList<>(alerts);
        all.addAll(cautions);
        all.addAll(blocks);
        return all;
    }

    public ReportDoc heading(int level, String text) {
        blocks.add(new Heading(level, text));
        return this;
    }

    public ReportDoc paragraph(String text) {
        blocks.add(new Paragraph(text));
        return this;
    }

    /** An alert, placed at the top of the report whatever the order of calls. */
    public ReportDoc alert(String text) {
        alerts.add(new Alert(text));
        return this;
    }

    /** A caution, placed at the top under the alerts whatever the order of calls. */
    public ReportDoc caution(String text) {
        cautions.add(new Caution(text));
        return this;
    }

    public boolean hasAlerts() {
        return !alerts.isEmpty();
    }

    public ReportDoc table(List<String> headers, List<List<String>> rows) {
        blocks.add(new Table(headers, rows));
        return this;
    }

    public ReportDoc chart(String file, byte[] png, String caption) {
        blocks.add(new Chart(file, png, caption));
        return this;
    }

    public ReportDoc code(String text) {
        blocks.add(new Code(text));
        return this;
    }

    public List<Chart> charts() {
        return blocks.stream()
                .filter(b -> b instanceof Chart)
                .map(b -> (Chart) b)
                .toList();
    }
}
