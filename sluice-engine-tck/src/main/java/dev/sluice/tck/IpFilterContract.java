package dev.sluice.tck;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.FilterConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code ip-filter} in every engine: the connection's peer (127.0.0.1 here) decides unless it is a
 * trusted proxy, whose X-Forwarded-For is then read from the right; a refused request is {@code 403
 * forbidden} and its upstream sees nothing.
 */
public abstract class IpFilterContract extends ContractFixture {

    @Test
    void requestsPassOrAre403ByTheirClientsAddress() {
        try (TestGateway gw = gateway()
                .route(
                        "loopback",
                        on("/in/**"),
                        proxy(APP).stripPrefix("/in"),
                        new FilterConfig.IpFilter(List.of("127.0.0.0/8"), List.of(), List.of()))
                .route(
                        "elsewhere",
                        on("/out/**"),
                        proxy(APP).stripPrefix("/out"),
                        new FilterConfig.IpFilter(List.of("10.0.0.0/8"), List.of(), List.of()))
                .route(
                        "denied",
                        on("/deny/**"),
                        proxy(APP).stripPrefix("/deny"),
                        new FilterConfig.IpFilter(List.of(), List.of("127.0.0.1"), List.of()))
                .route(
                        "proxied",
                        on("/lb/**"),
                        proxy(APP).stripPrefix("/lb"),
                        new FilterConfig.IpFilter(List.of(), List.of("203.0.113.0/24"), List.of("127.0.0.1")))
                .route(
                        "untrusted",
                        on("/direct/**"),
                        proxy(APP).stripPrefix("/direct"),
                        new FilterConfig.IpFilter(List.of(), List.of("203.0.113.0/24"), List.of()))
                .start()) {
            String run = Long.toString(System.nanoTime(), 36);
            assertThat(gw.wire().get("/in/json/2?tag=in" + run).status()).isEqualTo(200);
            assertThat(upstream.started("in" + run)).isTrue();
            assertError(gw.wire().get("/out/json/2?tag=out" + run), 403, "forbidden");
            assertError(gw.wire().get("/deny/json/2?tag=deny" + run), 403, "forbidden");
            // behind a trusted proxy (the loopback peer), the client is the X-Forwarded-For hop it added
            assertError(
                    gw.wire().send(WireRequest.get("/lb/json/2?tag=lb" + run).header("X-Forwarded-For", "203.0.113.9")),
                    403,
                    "forbidden");
            for (String refused : List.of("out", "deny", "lb")) {
                assertThat(upstream.started(refused + run))
                        .as("a refused request never reaches the upstream")
                        .isFalse();
            }
            assertThat(gw.wire()
                            .send(WireRequest.get("/lb/json/2").header("X-Forwarded-For", "203.0.113.9, 198.51.100.7"))
                            .status())
                    .as("the rightmost untrusted hop is the client")
                    .isEqualTo(200);
            // from an untrusted peer, a forged X-Forwarded-For is not believed
            assertThat(gw.wire()
                            .send(WireRequest.get("/direct/json/2").header("X-Forwarded-For", "203.0.113.9"))
                            .status())
                    .isEqualTo(200);
        }
    }
}
