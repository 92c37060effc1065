package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ComposeTarget;
import dev.sluice.config.GatewayConfig;
import dev.sluice.config.Pace;
import dev.sluice.config.ProxyTarget;
import dev.sluice.config.RouteConfig;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DemoConfigTest {

    @Test
    void theBundledConfigurationIsValidAndDeclaresEveryDemoRoute() throws Exception {
        GatewayConfig config = DemoConfig.load();
        assertThat(config.upstreams().keySet()).containsExactlyElementsOf(DemoUpstreams.NAMES);
        assertThat(config.routes())
                .extracting(RouteConfig::id)
                .containsExactly(
                        "compose",
                        "compose-delay",
                        "compose-delay-sequential",
                        "product-page",
                        "products",
                        "customers",
                        "reviews",
                        "delay",
                        "blocking",
                        "limited",
                        "api");
        for (int i = 0; i < DemoUpstreams.NAMES.size(); i++) {
            assertThat(config.upstream(DemoUpstreams.NAMES.get(i)).url())
                    .isEqualTo(URI.create("http://127.0.0.1:" + (DemoUpstreams.DEFAULT_PORT_BASE + i)));
        }
        assertThat(config.upstream("limited").pace()).contains(new Pace(1, Duration.ofMillis(250)));
    }

    @Test
    void composeIsThePapersThreePartCompositionInArrivalOrder() throws Exception {
        ComposeTarget compose =
                (ComposeTarget) DemoConfig.load().routes().getFirst().target();
        assertThat(compose.fanout()).isEqualTo(ComposeTarget.Fanout.PARALLEL);
        assertThat(compose.order()).isEqualTo(ComposeTarget.Order.ARRIVAL);
        assertThat(compose.onError()).isEqualTo(ComposeTarget.OnError.PARTIAL);
        assertThat(compose.parts())
                .extracting(p -> p.name() + "=" + p.upstream() + p.path())
                .containsExactly(
                        "products=products/products", "customer=customers/customers/42", "reviews=reviews/reviews");
    }

    @Test
    void theSequentialDelayRouteFansOutSequentially() throws Exception {
        RouteConfig route = DemoConfig.load().routes().get(2);
        assertThat(((ComposeTarget) route.target()).fanout()).isEqualTo(ComposeTarget.Fanout.SEQUENTIAL);
    }

    @Test
    void theApiRouteStripsItsPrefix() throws Exception {
        ProxyTarget api = (ProxyTarget) DemoConfig.load().routes().getLast().target();
        assertThat(api.upstream()).isEqualTo("products");
        assertThat(api.stripPrefix()).contains("/api");
    }

    @Test
    void pointedAtRewritesOnlyTheNamedUpstreamsAndKeepsTheirSettings() throws Exception {
        GatewayConfig config = DemoConfig.load();
        GatewayConfig moved = DemoConfig.pointedAt(
                config,
                Map.of("limited", URI.create("http://127.0.0.1:29086"), "unknown", URI.create("http://127.0.0.1:1")));
        assertThat(moved.upstream("limited").url()).isEqualTo(URI.create("http://127.0.0.1:29086"));
        assertThat(moved.upstream("limited").pace())
                .isEqualTo(config.upstream("limited").pace());
        assertThat(moved.upstream("products")).isEqualTo(config.upstream("products"));
        assertThat(moved.upstreams().keySet())
                .containsExactlyElementsOf(config.upstreams().keySet());
        assertThat(moved.routes()).isEqualTo(config.routes());
    }

    @Test
    void theYamlKeepsItsComments() {
        List<String> lines = DemoConfig.yaml().lines().toList();
        assertThat(lines).anyMatch(l -> l.startsWith("# Sluice demo configuration"));
    }
}
