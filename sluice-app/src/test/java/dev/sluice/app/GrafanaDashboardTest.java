package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.demo.DemoUpstreams;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * deploy/grafana's dashboard asks only for what the gateway exports: every metric and every label
 * its queries name is in a real scrape of a running gateway's admin listener after traffic.
 */
class GrafanaDashboardTest {

    private static final Pattern METRIC = Pattern.compile("\\b((?:sluice|jvm|process|system)_[a-z_]+)\\b");
    private static final Pattern MATCHER = Pattern.compile("([a-z_]+)\\s*(?:=~|!=|=)\\s*\"");
    private static final Pattern BY = Pattern.compile("by \\(([^)]*)\\)");
    /** Labels Prometheus adds at scrape time, and the histogram's own. */
    private static final Set<String> ADDED = Set.of("instance", "job", "le");

    @TempDir
    Path dir;

    @Test
    void everyMetricAndLabelTheDashboardQueriesIsExported() throws Exception {
        Path dashboard = root().resolve("deploy/grafana/sluice-dashboard.json");
        @SuppressWarnings("unchecked")
        Map<String, Object> json = (Map<String, Object>)
                new Load(LoadSettings.builder().build()).loadFromString(Files.readString(dashboard));
        List<String> queries = new ArrayList<>();
        collectQueries(json.get("panels"), queries);
        assertThat(queries).hasSizeGreaterThan(10);

        String scrape = scrapeAfterTraffic();
        List<String> problems = new ArrayList<>();
        for (String query : queries) {
            Set<String> metrics = new HashSet<>();
            Matcher m = METRIC.matcher(query);
            while (m.find()) {
                metrics.add(m.group(1));
            }
            if (metrics.isEmpty()) {
                problems.add("names no metric: " + query);
            }
            Set<String> labels = new HashSet<>();
            Matcher l = MATCHER.matcher(query);
            while (l.find()) {
                labels.add(l.group(1));
            }
            Matcher b = BY.matcher(query);
            while (b.find()) {
                for (String label : b.group(1).split(",")) {
                    labels.add(label.strip());
                }
            }
            labels.removeAll(ADDED);
            for (String metric : metrics) {
                List<String> samples = scrape.lines()
                        .filter(line -> line.startsWith(metric + "{") || line.startsWith(metric + " "))
                        .toList();
                if (samples.isEmpty()) {
                    problems.add(metric + " is not exported (" + query + ")");
                    continue;
                }
                for (String label : labels) {
                    if (samples.stream().noneMatch(s -> s.contains(label + "=\""))) {
                        problems.add(metric + " has no label '" + label + "' (" + query + ")");
                    }
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    private static void collectQueries(Object node, List<String> into) {
        if (node instanceof Map<?, ?> map) {
            if (map.get("expr") instanceof String expr) {
                into.add(expr);
            }
            map.values().forEach(v -> collectQueries(v, into));
        } else if (node instanceof List<?> list) {
            list.forEach(v -> collectQueries(v, into));
        }
    }

    private String scrapeAfterTraffic() throws Exception {
        try (DemoUpstreams upstreams = DemoUpstreams.start("127.0.0.1", 0)) {
            Path file = Files.writeString(dir.resolve("gateway.yaml"), """
          server: { host: 127.0.0.1, port: 0 }
          admin: { host: 127.0.0.1, port: 0 }
          upstreams:
            catalog: { url: "%s" }
            people:  { url: "%s" }
          routes:
            - id: page
              match: { path: "/page/{id}", methods: [GET] }
              compose:
                parts:
                  product:  { upstream: catalog, path: "/products/{id}" }
                  customer: { upstream: people,  path: "/customers/{id}" }
            - id: catalog
              match: { path: "/products/**" }
              proxy: { upstream: catalog }
            - id: closed
              match: { path: "/closed/**" }
              proxy: { upstream: catalog }
              filters: [ { ip-filter: { deny: [127.0.0.1] } } ]
          """.formatted(
                            upstreams.urls().get("products"), upstreams.urls().get("customers")));
            AtomicReference<String> scrape = new AtomicReference<>();
            CliRunner.Result result = CliRunner.run(
                    session -> {
                        var gateway = session.gatewayUrl().orElseThrow();
                        var admin = session.adminUrl().orElseThrow();
                        assertThat(Http.get(gateway, "/page/77").statusCode()).isEqualTo(200);
                        assertThat(Http.get(gateway, "/products/1001").statusCode())
                                .isEqualTo(200);
                        assertThat(Http.get(gateway, "/nowhere").statusCode()).isEqualTo(404);
                        assertThat(Http.get(gateway, "/closed/1").statusCode())
                                .as("a policy refusal")
                                .isEqualTo(403);
                        // The GC pause meter exists once the JVM has delivered a collection's
                        // notification, which it does on its own thread after the pause: collect,
                        // then wait for the meter to be scraped rather than assume it is there.
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                        String body;
                        do {
                            System.gc();
                            body = Http.get(admin, "/metrics").body();
                        } while (!body.contains("jvm_gc_pause_seconds_sum") && System.nanoTime() < deadline && pause());
                        scrape.set(body);
                    },
                    "run",
                    "-c",
                    file.toString(),
                    "--engine",
                    "reactive");
            assertThat(result.exitCode()).as(result.err()).isZero();
            return scrape.get();
        }
    }

    private static boolean pause() {
        try {
            Thread.sleep(100);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static Path root() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("sluice")) && Files.isDirectory(d.resolve("deploy"))) {
                return d;
            }
        }
        throw new IllegalStateException(
                "no repository root above " + Path.of("").toAbsolutePath());
    }
}
