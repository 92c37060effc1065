package dev.sluice.lab.report;

import dev.sluice.lab.LabFailure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * One scenario's results: {@code report.html}, {@code report.md}, {@code charts/}, {@code raw/} (every
 * sample, as CSV, and the load generator's own output), {@code logs/} (the subjects' output) and
 * {@code env.json}.
 */
public record ResultsDir(Path root) {

    /** {@code out} when given, else {@code <project>/lab-results/<scenario>-<yyyyMMdd-HHmmss>}. */
    public static ResultsDir create(Path projectDir, String scenario, java.util.Optional<String> out)
            throws LabFailure {
        Path root = out.map(Path::of)
                .orElseGet(() -> projectDir
                        .resolve("lab-results")
                        .resolve(scenario + "-"
                                + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))));
        ResultsDir dir = new ResultsDir(root.toAbsolutePath().normalize());
        try {
            Files.createDirectories(dir.raw());
            Files.createDirectories(dir.logs());
            Files.createDirectories(dir.charts());
        } catch (IOException e) {
            throw new LabFailure("cannot create the results directory " + root + ": " + e.getMessage(), e);
        }
        return dir;
    }

    public Path raw() {
        return root.resolve("raw");
    }

    public Path logs() {
        return root.resolve("logs");
    }

    public Path charts() {
        return root.resolve("charts");
    }

    /** Writes {@code raw/<name>} as CSV (values with commas or quotes are quoted). */
    public void csv(String name, List<String> header, List<List<String>> rows) throws LabFailure {
        StringBuilder sb = new StringBuilder();
        sb.append(line(header));
        rows.forEach(r -> sb.append(line(r)));
        write(raw().resolve(name), sb.toString());
    }

    private static String line(List<String> cells) {
        StringJoiner j = new StringJoiner(",", "", "\n");
        for (String c : cells) {
            j.add(c.contains(",") || c.contains("\"") ? "\"" + c.replace("\"", "\"\"") + "\"" : c);
        }
        return j.toString();
    }

    /** Writes the report (Markdown, HTML, its charts) and {@code env.json}. */
    public void writeReport(ReportDoc doc, Map<String, Object> env) throws LabFailure {
        try {
            for (ReportDoc.Chart c : doc.charts()) {
                Files.write(charts().resolve(c.file()), c.png());
            }
        } catch (IOException e) {
            throw new LabFailure("cannot write the charts into " + charts() + ": " + e.getMessage(), e);
        }
        write(root.resolve("report.md"), Renderers.markdown(doc));
        write(root.resolve("report.html"), Renderers.html(doc));
        write(root.resolve("env.json"), Json.write(env));
    }

    public void write(Path file, String text) throws LabFailure {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new LabFailure("cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
