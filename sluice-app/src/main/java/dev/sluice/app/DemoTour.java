package dev.sluice.app;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/** The ready-to-paste curl lines {@code sluice demo} prints, one per demo route. */
final class DemoTour {

    private record Stop(String pathAndQuery, String what) {}

    private static final List<Stop> STOPS = List.of(
            new Stop("/compose", "the paper's composition: products + customer + reviews, streamed as they arrive"),
            new Stop("/compose-delay", "seed 004: three 30 ms calls in parallel (~30 ms)"),
            new Stop("/compose-delay-sequential", "the same, one after another (~90 ms)"),
            new Stop("/product-page/1001", "a composition with a path variable"),
            new Stop("/product-page/bad.id", "a failed part is null and listed in _meta.failed"),
            new Stop("/products", "plain proxy: the ~16 KB catalogue page"),
            new Stop("/products/1001", "plain proxy: one product"),
            new Stop("/customers/42", "plain proxy: a ~5 KB customer profile"),
            new Stop("/reviews?product=1001", "plain proxy: ~7 KB of reviews"),
            new Stop("/api/products/1001", "strip-prefix: reaches the products API as /products/1001"),
            new Stop("/delay?ms=100&index=7", "seed 004's delay API, 100 ms"),
            new Stop("/blocking?ms=1000", "seed 001's blocking API (5 s without ?ms)"));

    private DemoTour() {}

    static List<String> lines(URI gateway) {
        List<String> lines = new ArrayList<>();
        int width = 0;
        for (Stop stop : STOPS) {
            width = Math.max(width, command(gateway, stop).length());
        }
        for (Stop stop : STOPS) {
            String command = command(gateway, stop);
            lines.add("  " + command + " ".repeat(width - command.length()) + "  # " + stop.what());
        }
        lines.add("  for i in 1 2 3 4 5; do curl -s -o /dev/null -w '%{http_code} %{time_total}s\\n' " + gateway
                + "/limited; done  # seed 003: the API allows 1 call per 200 ms; the gateway paces, no 429");
        return lines;
    }

    private static String command(URI gateway, Stop stop) {
        String url = gateway + stop.pathAndQuery();
        return "curl -s " + (url.indexOf('?') >= 0 || url.indexOf('&') >= 0 ? "'" + url + "'" : url);
    }
}
