package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ComposeTarget.OnError;
import dev.sluice.config.ComposeTarget.Order;
import dev.sluice.config.UpstreamProtocol;
import java.time.Duration;
import java.util.AbstractMap.SimpleEntry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Composition parts whose upstream is declared {@code protocol: h2c}: each part is an HTTP/2 stream on
 * the upstream's h2 client, its answer spliced like an HTTP/1.1 part's, its failure in {@code _meta}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class H2CompositionContract extends ContractFixture {

    private static final String H2C = "h2c";

    private H2cUpstream h2c;

    @BeforeAll
    void startH2c() {
        h2c = H2cUpstream.start();
    }

    @AfterAll
    void stopH2c() {
        h2c.close();
    }

    private TestGateway.Builder withH2c() {
        return gateway()
                .upstream(Routes.upstream(H2C, h2c.url())
                        .connectTimeout(Duration.ofSeconds(5))
                        .readTimeout(Duration.ofSeconds(20))
                        .protocol(UpstreamProtocol.H2C));
    }

    @Test
    void partsOnAnH2cUpstreamAreSplicedWhole() {
        try (TestGateway gw = withH2c()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .order(Order.DECLARED)
                                .part("small", H2C, "/json?100")
                                .part("big", H2C, "/json?200000")
                                .part("local", APP, "/json/20"))
                .start()) {
            Composed.of(gw.wire().get("/page"))
                    .assertSpliced(
                            List.of(
                                    Map.entry("small", GeneratedBody.json(100).bytes()),
                                    Map.entry("big", GeneratedBody.json(200000).bytes()),
                                    Map.entry("local", GeneratedBody.json(20).bytes())),
                            List.of("small", "big", "local"));
        }
    }

    @Test
    void aFailingH2cPartIsNullWithItsStatusInMeta() {
        try (TestGateway gw = withH2c()
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .order(Order.DECLARED)
                                .onError(OnError.PARTIAL)
                                .part("ok", H2C, "/json?10")
                                .part("missing", H2C, "/absent"))
                .start()) {
            Composed composed = Composed.of(gw.wire().get("/page"))
                    .assertSpliced(
                            List.of(
                                    Map.entry("ok", GeneratedBody.json(10).bytes()),
                                    new SimpleEntry<>("missing", null)),
                            List.of("ok", "missing"));
            assertThat(composed.meta("parts", "missing", "status")).hasToString("404");
        }
    }
}
