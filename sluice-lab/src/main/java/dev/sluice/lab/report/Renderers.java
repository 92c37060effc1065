package dev.sluice.lab.report;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Pattern;

/** Renders a {@link ReportDoc} as Markdown and as one self-contained HTML page. */
public final class Renderers {

    private Renderers() {}

    public static String markdown(ReportDoc doc) {
        StringBuilder sb = new StringBuilder("# ").append(doc.title()).append("\n\n");
        for (ReportDoc.Block b : doc.blocks()) {
            switch (b) {
                case ReportDoc.Heading h ->
                    sb.append("#".repeat(h.level() + 1))
                            .append(' ')
                            .append(h.text())
                            .append("\n\n");
                case ReportDoc.Paragraph p -> sb.append(p.text()).append("\n\n");
                case ReportDoc.Alert a -> sb.append("> **⚠ ").append(a.text()).append("**\n\n");
                case ReportDoc.Caution c ->
                    sb.append("> **Caution:** ").append(c.text()).append("\n\n");
                case ReportDoc.Code c -> sb.append("```\n").append(c.text()).append("\n```\n\n");
                case ReportDoc.Chart c ->
                    sb.append("![")
                            .append(c.caption())
                            .append("](charts/")
                            .append(c.file())
                            .append(")\n\n");
                case ReportDoc.Table t -> {
                    sb.append("| ").append(String.join(" | ", t.headers())).append(" |\n|");
                    t.headers().forEach(h -> sb.append("---|"));
                    sb.append('\n');
                    for (List<String> row : t.rows()) {
                        sb.append("| ")
                                .append(String.join(
                                        " | ",
                                        row.stream()
                                                .map(s -> s.replace("|", "\\|"))
                                                .toList()))
                                .append(" |\n");
                    }
                    sb.append('\n');
                }
            }
        }
        return sb.toString();
    }

    public static String html(ReportDoc doc) {
        StringBuilder sb = new StringBuilder();
        sb.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>")
                .append(escape(doc.title()))
                .append("</title>\n<style>\n")
                .append(STYLE)
                .append("</style></head>\n<body><main>\n<h1>")
                .append(escape(doc.title()))
                .append("</h1>\n");
        for (ReportDoc.Block b : doc.blocks()) {
            switch (b) {
                case ReportDoc.Heading h ->
                    sb.append("<h")
                            .append(h.level() + 1)
                            .append('>')
                            .append(inline(h.text()))
                            .append("</h")
                            .append(h.level() + 1)
                            .append(">\n");
                case ReportDoc.Paragraph p ->
                    sb.append("<p>").append(inline(p.text())).append("</p>\n");
                case ReportDoc.Alert a ->
                    sb.append("<div class=\"alert\">⚠ ")
                            .append(inline(a.text()))
                            .append("</div>\n");
                case ReportDoc.Caution c ->
                    sb.append("<div class=\"caution\"><b>Caution:</b> ")
                            .append(inline(c.text()))
                            .append("</div>\n");
                case ReportDoc.Code c ->
                    sb.append("<pre class=\"commands\">")
                            .append(escape(c.text()))
                            .append("</pre>\n");
                case ReportDoc.Chart c ->
                    sb.append("<figure><img alt=\"")
                            .append(escape(c.caption()))
                            .append("\" src=\"data:image/png;base64,")
                            .append(Base64.getEncoder().encodeToString(c.png()))
                            .append("\"><figcaption>")
                            .append(inline(c.caption()))
                            .append("</figcaption></figure>\n");
                case ReportDoc.Table t -> table(sb, t);
            }
        }
        return sb.append("</main></body></html>\n").toString();
    }

    /**
     * Columns whose header says "published" (the sources' figures) are shaded apart from the figures
     * measured here. Figures are right-aligned and stay on one line; text is left-aligned (long text
     * wraps), and a column of mostly text has its header on the left too.
     */
    private static void table(StringBuilder sb, ReportDoc.Table t) {
        List<String> headers = t.headers();
        sb.append("<div class=\"table\"><table><thead><tr>");
        for (int i = 0; i < headers.size(); i++) {
            int column = i;
            long text = t.rows().stream()
                    .filter(r ->
                            column < r.size() && !FIGURE.matcher(r.get(column)).matches())
                    .count();
            sb.append(cell("th", headers.get(i), i == 0 || text * 2 > t.rows().size(), published(headers, i)));
        }
        sb.append("</tr></thead><tbody>\n");
        for (List<String> row : t.rows()) {
            sb.append("<tr>");
            for (int i = 0; i < row.size(); i++) {
                String c = row.get(i);
                sb.append(cell("td", c, !FIGURE.matcher(c).matches(), published(headers, i)));
            }
            sb.append("</tr>\n");
        }
        sb.append("</tbody></table></div>\n");
    }

    /** A figure: a number (with sign, unit or note after it), "n/a" or a dash. */
    private static final Pattern FIGURE = Pattern.compile("[-+±−]?\\d[\\d,.]*(\\s.*)?|n/a|–|-");

    private static boolean published(List<String> headers, int column) {
        return column < headers.size() && headers.get(column).contains("published");
    }

    private static String cell(String tag, String content, boolean text, boolean published) {
        List<String> classes = new ArrayList<>();
        if (text) {
            classes.add("text");
        }
        if (tag.equals("td") && content.length() > 24) {
            classes.add("long");
        }
        if (published) {
            classes.add("published");
        }
        return "<" + tag + (classes.isEmpty() ? "" : " class=\"" + String.join(" ", classes) + "\"") + ">"
                + inline(content) + "</" + tag + ">";
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /**
     * Escapes, then turns {@code `code`} into {@code <code>}, {@code **b**} into {@code <b>} and {@code *title*}
     * into {@code <cite>} (titles of the cited sources).
     */
    static String inline(String s) {
        String e = escape(s);
        e = e.replaceAll("`([^`]+)`", "<code>$1</code>");
        e = e.replaceAll("\\*\\*([^*]+)\\*\\*", "<b>$1</b>");
        return e.replaceAll("\\*([^*\\s][^*]*)\\*", "<cite>$1</cite>");
    }

    /**
     * Readable at about 1,200 px: the page is at most 1,100 px wide, a table scrolls inside its own box
     * rather than pushing the page wider, headers wrap, and the commands wrap anywhere (a command line
     * has no spaces where a browser would break it otherwise).
     */
    private static final String STYLE = """
      body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f6f7f9;color:#1d232b;margin:0;
        line-height:1.45}
      main{max-width:1100px;margin:0 auto;padding:24px 32px;background:#fff;min-height:100vh;box-sizing:border-box}
      h1{font-size:1.7em;border-bottom:3px solid #2f6fde;padding-bottom:8px}
      h2{margin-top:2em;color:#2f6fde} h3{margin-top:1.5em}
      div.table{max-width:100%;overflow-x:auto;margin:12px 0}
      table{border-collapse:collapse;font-size:.92em}
      th,td{border:1px solid #d7dce3;padding:5px 10px;text-align:right;vertical-align:top}
      th{background:#eef2f8;max-width:11em} td{white-space:nowrap}
      td:first-child,th:first-child{text-align:left}
      td.text,th.text{text-align:left} td.long{white-space:normal;max-width:32em} td:first-child{white-space:nowrap}
      tr:nth-child(even) td{background:#fafbfc}
      th.published{background:#e6def7} td.published,tr:nth-child(even) td.published{background:#f5f1fc;color:#3c2a63}
      figure{margin:16px 0} img{max-width:100%;height:auto;border:1px solid #e3e6ea}
      figcaption{color:#5a6573;font-size:.9em}
      .alert{background:#fdecea;border-left:6px solid #d93025;padding:10px 14px;margin:12px 0;font-weight:600}
      .caution{background:#fff8e1;border-left:6px solid #f4b400;padding:10px 14px;margin:12px 0}
      pre{background:#f2f4f7;padding:10px;font-size:.85em;white-space:pre-wrap;overflow-wrap:anywhere}
      code{background:#f2f4f7;padding:1px 4px;border-radius:3px;overflow-wrap:anywhere}
      cite{font-style:italic}
      """;
}
