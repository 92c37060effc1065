package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ComposeTarget.Order;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Many requests at once, proxied and composed, each with its own correct body. */
public abstract class ConcurrencyContract extends ContractFixture {

    private static final int REQUESTS = 1_000;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aThousandConcurrentRequestsAllSucceedWithTheirOwnBodies() throws Exception {
        try (TestGateway gw = TestGateway.builder(mode())
                .upstream(Routes.upstream(APP, upstream.url()).pool(256, Duration.ofSeconds(60), 10 * REQUESTS))
                .route("pass", on("/p/**"), proxy(APP).stripPrefix("/p"))
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .order(Order.DECLARED)
                                .part("a", APP, "/json/{n}")
                                .part("b", APP, "/json/{m}?chunked=1"))
                .start()) {
            List<CompletableFuture<HttpResponse<byte[]>>> futures = new ArrayList<>(REQUESTS);
            for (int i = 0; i < REQUESTS; i++) {
                futures.add(gw.http()
                        .sendAsync(
                                HttpRequest.newBuilder(gw.uri(target(i)))
                                        .timeout(Duration.ofSeconds(90))
                                        .build(),
                                HttpResponse.BodyHandlers.ofByteArray()));
            }
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(100, TimeUnit.SECONDS);
            for (int i = 0; i < REQUESTS; i++) {
                HttpResponse<byte[]> response = futures.get(i).join();
                assertThat(response.statusCode())
                        .as("status of %s: %s", target(i), text(response))
                        .isEqualTo(200);
                if (i % 2 == 0) {
                    assertThat(response.body())
                            .as("body of %s", target(i))
                            .containsExactly(GeneratedBody.binary(proxied(i)).bytes());
                } else {
                    String body = text(response);
                    assertThat(body).as("body of %s", target(i)).startsWith(expectedComposition(i));
                    assertThat(Json.at(Json.parse(body), "_meta", "failed"))
                            .as("failed parts of %s", target(i))
                            .isEqualTo(List.of());
                }
            }
        }
    }

    private static String target(int i) {
        return i % 2 == 0 ? "/p/bytes/" + proxied(i) : "/page?n=" + (10 + i) + "&m=" + (20 + 2 * i);
    }

    private static long proxied(int i) {
        return 1000 + 37L * i;
    }

    private static String expectedComposition(int i) {
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.writeBytes("{\"a\":".getBytes(StandardCharsets.UTF_8));
        expected.writeBytes(GeneratedBody.json(10 + i).bytes());
        expected.writeBytes(",\"b\":".getBytes(StandardCharsets.UTF_8));
        expected.writeBytes(GeneratedBody.json(20 + 2 * i).bytes());
        expected.writeBytes(",\"_meta\":".getBytes(StandardCharsets.UTF_8));
        return expected.toString(StandardCharsets.UTF_8);
    }
}
