package dev.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigLoader;
import dev.sluice.config.GatewayConfig;
import dev.sluice.routing.RouteTable;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class GatewaySnapshotTest {

    static GatewayConfig config(String path) throws Exception {
        return ConfigLoader.parse("""
                upstreams:
                  up: { url: "http://127.0.0.1:1" }
                routes:
                  - id: a
                    match: { path: "%s" }
                    proxy: { upstream: up }
                  - id: b
                    match: { path: "/b" }
                    proxy: { upstream: up }
                """.formatted(path), "test.yaml");
    }

    static RouteTable.Result.Matched matched(GatewaySnapshot<String> snapshot, String path) {
        return (RouteTable.Result.Matched) snapshot.match("GET", "localhost", path, name -> null);
    }

    @Test
    void everyRouteIsCompiledOnceAndFoundByItsMatch() throws Exception {
        List<String> compiled = new ArrayList<>();
        GatewaySnapshot<String> snapshot = GatewaySnapshot.compile(config("/a"), route -> {
            compiled.add(route.id());
            return "handler-" + route.id();
        });
        assertThat(compiled).containsExactly("a", "b");
        assertThat(snapshot.handler(matched(snapshot, "/a"))).isEqualTo("handler-a");
        assertThat(snapshot.handler(matched(snapshot, "/b"))).isEqualTo("handler-b");
        assertThat(snapshot.match("GET", "localhost", "/c", name -> null))
                .isInstanceOf(RouteTable.Result.NotFound.class);
    }

    @Test
    void aSwapServesNewRequestsWhileARequestInFlightKeepsItsSnapshot() throws Exception {
        GatewaySnapshot<String> first = GatewaySnapshot.compile(config("/a"), route -> "v1-" + route.id());
        GatewaySnapshot.Holder<String> holder = new GatewaySnapshot.Holder<>(first);

        GatewaySnapshot<String> inFlight = holder.current(); // a request began
        GatewaySnapshot<String> second = GatewaySnapshot.compile(config("/a2"), route -> "v2-" + route.id());
        assertThat(holder.swap(second)).isSameAs(first);

        assertThat(inFlight.handler(matched(inFlight, "/a"))).isEqualTo("v1-a");
        GatewaySnapshot<String> now = holder.current();
        assertThat(now.match("GET", "localhost", "/a", name -> null)).isInstanceOf(RouteTable.Result.NotFound.class);
        assertThat(now.handler(matched(now, "/a2"))).isEqualTo("v2-a");
    }

    @Test
    void aRouteOfAnotherSnapshotHasNoHandlerHere() throws Exception {
        GatewaySnapshot<String> first = GatewaySnapshot.compile(config("/a"), route -> "v1");
        GatewaySnapshot<String> second = GatewaySnapshot.compile(config("/a"), route -> "v2");
        RouteTable.Result.Matched fromFirst = matched(first, "/a");
        assertThatThrownBy(() -> second.handler(fromFirst)).isInstanceOf(IllegalArgumentException.class);
    }
}
