package dev.sluice.lab.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** PNG charts drawn with XChart (headless). */
public final class Charts {

    static {
        System.setProperty("java.awt.headless", "true");
    }

    private static final Color[] PALETTE = {
        new Color(0x2f6fde), new Color(0xe8710a), new Color(0x1e8e3e), new Color(0xd93025), new Color(0x9334e6),
        new Color(0x12a4af), new Color(0x795548), new Color(0xf4b400), new Color(0x5f6368), new Color(0xc2185b)
    };

    /** A series of points (x ascending). */
    public record Series(String name, double[] x, double[] y) {}

    /**
     * The averaged window of one series, {@code [from, to]} on x, drawn as a thick pale bar at the
     * window's mean {@code level} in the series' colour, with dotted ends down to the axis.
     */
    public record Window(String series, double from, double to, double level) {}

    private Charts() {}

    /** Lines over time or any x: one series per subject. */
    public static byte[] lines(
            String title, String xTitle, String yTitle, List<Series> series, boolean logX, boolean markers) {
        return lines(title, xTitle, yTitle, series, List.of(), logX, markers);
    }

    /** Lines as above, with each series' averaged window marked. */
    public static byte[] lines(
            String title,
            String xTitle,
            String yTitle,
            List<Series> series,
            List<Window> windows,
            boolean logX,
            boolean markers) {
        XYChart chart = new XYChartBuilder()
                .width(1000)
                .height(430)
                .title(title)
                .xAxisTitle(xTitle)
                .yAxisTitle(yTitle)
                .build();
        style(chart.getStyler());
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        chart.getStyler().setXAxisLogarithmic(logX);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setMarkerSize(markers ? 7 : 0);
        Map<String, Color> colours = new LinkedHashMap<>();
        for (Series s : series) {
            double[][] clean = finite(s.x(), s.y());
            if (clean[0].length == 0) {
                continue;
            }
            Color colour = PALETTE[colours.size() % PALETTE.length];
            colours.put(s.name(), colour);
            XYSeries xy = chart.addSeries(s.name(), clean[0], clean[1]);
            xy.setMarker(markers ? SeriesMarkers.CIRCLE : SeriesMarkers.NONE);
            xy.setLineColor(colour);
            xy.setMarkerColor(colour);
        }
        for (Window w : windows) {
            Color colour = colours.get(w.series());
            if (colour == null || !Double.isFinite(w.level()) || !(w.to() >= w.from())) {
                continue;
            }
            Color pale = new Color(colour.getRed(), colour.getGreen(), colour.getBlue(), 90);
            XYSeries bar = chart.addSeries(
                    w.series() + " window", new double[] {w.from(), w.to()}, new double[] {w.level(), w.level()});
            bar.setMarker(SeriesMarkers.NONE);
            bar.setLineColor(pale);
            bar.setLineStyle(new BasicStroke(9f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER));
            bar.setShowInLegend(false);
            for (int i = 0; i < 2; i++) {
                double x = i == 0 ? w.from() : w.to();
                XYSeries end = chart.addSeries(
                        w.series() + (i == 0 ? " window start" : " window end"),
                        new double[] {x, x},
                        new double[] {0, w.level()});
                end.setMarker(SeriesMarkers.NONE);
                end.setLineColor(colour);
                end.setLineStyle(new BasicStroke(
                        1.2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {2f, 4f}, 0f));
                end.setShowInLegend(false);
            }
        }
        return png(chart);
    }

    /**
     * Grouped bars: {@code values.get(series).get(i)} is the bar of category {@code categories.get(i)};
     * callers leave out categories they could not measure (a NaN would be drawn as 0, so it is drawn as 0
     * only inside a series that has other values). {@code errors} may be empty or hold ± bars.
     */
    public static byte[] bars(
            String title,
            String yTitle,
            List<String> categories,
            Map<String, List<Double>> values,
            Map<String, List<Double>> errors) {
        CategoryChart chart = new CategoryChartBuilder()
                .width(1000)
                .height(430)
                .title(title)
                .yAxisTitle(yTitle)
                .build();
        style(chart.getStyler());
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        chart.getStyler().setLabelsVisible(true);
        chart.getStyler().setYAxisMin(0.0);
        for (Map.Entry<String, List<Double>> e : values.entrySet()) {
            List<String> cats = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            List<Double> errs = new ArrayList<>();
            List<Double> err = errors.getOrDefault(e.getKey(), List.of());
            for (int i = 0; i < categories.size(); i++) {
                double v = e.getValue().get(i);
                cats.add(categories.get(i));
                ys.add(Double.isFinite(v) ? v : 0.0);
                errs.add(i < err.size() && Double.isFinite(err.get(i)) ? err.get(i) : 0.0);
            }
            if (ys.stream().allMatch(v -> v == 0.0)) {
                continue;
            }
            if (err.isEmpty()) {
                chart.addSeries(e.getKey(), cats, ys);
            } else {
                chart.addSeries(e.getKey(), cats, ys, errs);
            }
        }
        return png(chart);
    }

    /** Convenience for one series of bars. */
    public static byte[] bars(String title, String yTitle, Map<String, Double> values) {
        Map<String, List<Double>> one = new LinkedHashMap<>();
        one.put(yTitle, new ArrayList<>(values.values()));
        return bars(title, yTitle, new ArrayList<>(values.keySet()), one, Map.of());
    }

    private static void style(Styler s) {
        s.setChartBackgroundColor(Color.WHITE);
        s.setPlotBackgroundColor(Color.WHITE);
        s.setPlotBorderVisible(false);
        s.setSeriesColors(PALETTE);
        s.setChartTitleBoxVisible(false);
        s.setLegendBorderColor(Color.WHITE);
        s.setAntiAlias(true);
    }

    private static double[][] finite(double[] x, double[] y) {
        List<double[]> pts = new ArrayList<>();
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
            if (Double.isFinite(x[i]) && Double.isFinite(y[i])) {
                pts.add(new double[] {x[i], y[i]});
            }
        }
        double[][] out = new double[2][pts.size()];
        for (int i = 0; i < pts.size(); i++) {
            out[0][i] = pts.get(i)[0];
            out[1][i] = pts.get(i)[1];
        }
        return out;
    }

    private static byte[] png(Chart<?, ?> chart) {
        try {
            return BitmapEncoder.getBitmapBytes(chart, BitmapEncoder.BitmapFormat.PNG);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
