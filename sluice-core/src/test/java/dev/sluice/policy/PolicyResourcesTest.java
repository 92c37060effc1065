package dev.sluice.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigLoader;
import dev.sluice.config.GatewayConfig;
import dev.sluice.engine.GatewaySnapshot;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A reload keeps the buckets of every rate-limit filter it leaves as it was. */
class PolicyResourcesTest {

    private static GatewayConfig config(String ordersLimit) throws Exception {
        return ConfigLoader.parse("""
                upstreams:
                  app: { url: "http://127.0.0.1:1" }
                routes:
                  - id: orders
                    match: { path: "/orders/**" }
                    proxy: { upstream: app }
                    filters:
                      - rate-limit: %s
                  - id: users
                    match: { path: "/users/**" }
                    proxy: { upstream: app }
                    filters:
                      - rate-limit: { key: client-address, permits: 1, per: 1h }
                """.formatted(ordersLimit), "test.yaml");
    }

    private static int admitted(GatewaySnapshot<String> snapshot, String path, int tries) {
        var matched = (dev.sluice.routing.RouteTable.Result.Matched) snapshot.match("GET", "gw", path, h -> null);
        int admitted = 0;
        for (int i = 0; i < tries; i++) {
            Decision d = snapshot.policies(matched)
                    .admit(new RoutedRequest("GET", matched, Map.<String, String>of()::get, null, "10.0.0.1"));
            admitted += d instanceof Decision.Proceed ? 1 : 0;
        }
        return admitted;
    }

    @Test
    void aReloadKeepsTheBucketsOfUnchangedFiltersAndStartsChangedOnesFull() throws Exception {
        try (PolicyResources resources = PolicyResources.none()) {
            GatewaySnapshot<String> first = GatewaySnapshot.compile(
                    config("{ key: route, permits: 2, per: 1h }"), resources, route -> route.id());
            assertThat(admitted(first, "/orders/1", 5)).isEqualTo(2);
            assertThat(admitted(first, "/users/1", 5)).isEqualTo(1);

            GatewaySnapshot<String> same = GatewaySnapshot.compile(
                    config("{ key: route, permits: 2, per: 1h }"), resources, route -> route.id());
            assertThat(admitted(same, "/orders/1", 5))
                    .as("same filter: same bucket")
                    .isZero();
            assertThat(admitted(same, "/users/1", 5)).isZero();

            GatewaySnapshot<String> changed = GatewaySnapshot.compile(
                    config("{ key: route, permits: 3, per: 1h }"), resources, route -> route.id());
            assertThat(admitted(changed, "/orders/1", 5))
                    .as("changed filter: a new, full bucket")
                    .isEqualTo(3);
            assertThat(admitted(changed, "/users/1", 5))
                    .as("the other route's is untouched")
                    .isZero();
        }
    }
}
