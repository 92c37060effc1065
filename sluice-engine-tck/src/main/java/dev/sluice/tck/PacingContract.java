package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ComposeTarget.Order;
import dev.sluice.config.Pace;
import dev.sluice.http.UpstreamFailure;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

/** A paced upstream gets at most {@code permits} calls started per window; the wait counts against timeouts. */
public abstract class PacingContract extends ContractFixture {

    private Routes.UpstreamSpec paced(int permits, Duration per) {
        return Routes.upstream("paced", upstream.url()).pace(new Pace(permits, per));
    }

    @Test
    void callsToAPacedUpstreamAreSpreadOverWindows() {
        String run = UUID.randomUUID().toString();
        try (TestGateway gw = gateway()
                .upstream(paced(1, Duration.ofMillis(400)))
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .order(Order.DECLARED)
                                .part("a", "paced", "/json/10?tag=" + run + "a")
                                .part("b", "paced", "/json/11?tag=" + run + "b")
                                .part("c", "paced", "/json/12?tag=" + run + "c"))
                .start()) {
            long sent = System.nanoTime();
            Composed.of(gw.wire().get("/page"))
                    .assertSpliced(
                            List.of(
                                    Map.entry("a", GeneratedBody.json(10).bytes()),
                                    Map.entry("b", GeneratedBody.json(11).bytes()),
                                    Map.entry("c", GeneratedBody.json(12).bytes())),
                            List.of("a", "b", "c"));
            List<Long> starts = Stream.of("a", "b", "c")
                    .map(p -> upstream.timing(run + p).orElseThrow().startNanos())
                    .sorted()
                    .toList();
            // One permit per 400 ms: the calls leave the gateway no earlier than 0, 400 and 800 ms after
            // the request was sent. Measured where they arrive: a delay on the way (a new connection on
            // a loaded machine) only makes an arrival later, so these bounds hold however slow the
            // machine, where the gaps between arrivals would not (a late first call narrows the first).
            assertThat(Duration.ofNanos(starts.get(1) - sent))
                    .as("the second call waited for its slot")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(400 - 5));
            assertThat(Duration.ofNanos(starts.get(2) - sent))
                    .as("the third call waited for the slot after")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(800 - 5));
        }
    }

    @Test
    void waitingForAPermitCountsAgainstTheRouteTimeout() {
        try (TestGateway gw = gateway()
                .upstream(paced(1, Duration.ofSeconds(20)))
                .route("p", on("/p/**"), proxy("paced").stripPrefix("/p").timeout(Duration.ofMillis(500)))
                .start()) {
            assertThat(gw.wire().get("/p/json/10").status()).isEqualTo(200);
            WireResponse waited = gw.wire().get("/p/json/10");
            assertError(waited, 504, UpstreamFailure.TIMEOUT.code());
            assertThat(waited.totalMillis())
                    .as("the 500 ms route timeout ends the wait for the next permit, 20 s away")
                    .isLessThan(10_000);
        }
    }

    @Test
    void waitingForAPermitCountsAgainstThePartTimeout() {
        try (TestGateway gw = gateway()
                .upstream(paced(1, Duration.ofSeconds(30)))
                .route(
                        "page",
                        on("/page"),
                        compose()
                                .part("a", "paced", "/json/10", Duration.ofSeconds(1))
                                .part("b", "paced", "/json/10", Duration.ofSeconds(1)))
                .start()) {
            WireResponse response = gw.wire().get("/page");
            assertThat(response.totalMillis())
                    .as("the 1 s part timeouts end the wait for the next permit, 30 s away")
                    .isLessThan(10_000);
            Composed composed = Composed.of(response);
            assertThat(composed.meta("failed"))
                    .as("one part got the permit, the other timed out waiting")
                    .asInstanceOf(InstanceOfAssertFactories.LIST)
                    .hasSize(1);
            String late = String.valueOf(((List<?>) composed.meta("failed")).getFirst());
            assertThat(composed.part(late)).isEqualTo(Json.NULL);
            assertThat(composed.part(late.equals("a") ? "b" : "a")).isInstanceOf(String.class);
        }
    }
}
