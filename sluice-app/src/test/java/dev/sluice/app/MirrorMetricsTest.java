package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.tck.TestUpstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A route's {@code mirror:} as {@code /metrics} shows it, in every engine mode: a body longer than
 * {@code max-body} is counted in {@code sluice_mirror_not_copied_total{reason="body_too_large"}},
 * and the copies sent (a GET, and a POST within {@code max-body}) are the mirror upstream's calls.
 */
class MirrorMetricsTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"virtual", "platform", "reactive"})
    void theMirrorsCountersAreScraped(String engine) throws Exception {
        try (TestUpstream upstream = TestUpstream.start()) {
            URI live = upstream.url(); // its /inspect/** reads a body to its end
            Path file = Files.writeString(dir.resolve("gateway.yaml"), """
          server: { host: 127.0.0.1, port: 0 }
          admin: { host: 127.0.0.1, port: 0 }
          upstreams:
            people: { endpoints: ["%s"] }
            shadow: { endpoints: ["%s"] }
          routes:
            - id: people
              match: { path: "/inspect/**" }
              proxy: { upstream: people, mirror: { upstream: shadow, max-body: 1KiB } }
          """.formatted(live, live));
            // HTTP/1.1: the JDK client would offer an h2c upgrade, which the reactive gateway
            // refuses (413) for a request with a body; HTTP/2 bodies are TrafficContract's
            HttpClient client =
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            CliRunner.Result result = CliRunner.run(
                    session -> {
                        URI gateway = session.gatewayUrl().orElseThrow();
                        URI admin = session.adminUrl().orElseThrow();
                        assertThat(Http.get(gateway, "/inspect/42").statusCode())
                                .isEqualTo(200);
                        for (int size : new int[] {100, 4096}) {
                            HttpResponse<String> posted = client.send(
                                    HttpRequest.newBuilder(URI.create(gateway + "/inspect/42"))
                                            .timeout(Duration.ofSeconds(20))
                                            .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[size]))
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString());
                            assertThat(posted.statusCode())
                                    .as("the primary answers")
                                    .isPositive();
                        }
                        String tooLarge =
                                "sluice_mirror_not_copied_total{reason=\"body_too_large\",route=\"people\",upstream=\"shadow\"} 1.0";
                        String copies = "sluice_upstream_calls_seconds_count{outcome=\"ok\",upstream=\"shadow\"} 2";
                        long deadline =
                                System.nanoTime() + Duration.ofSeconds(10).toNanos();
                        String text = Http.get(admin, "/metrics").body();
                        while (!text.contains(copies) && System.nanoTime() < deadline) {
                            Thread.onSpinWait(); // the copies end on their own; scraped again until they did
                            text = Http.get(admin, "/metrics").body();
                        }
                        assertThat(text).contains(tooLarge).contains(copies);
                    },
                    "run",
                    "-c",
                    file.toString(),
                    "--engine",
                    engine);
            assertThat(result.exitCode()).as(result.err()).isZero();
        }
    }
}
