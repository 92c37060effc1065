package dev.sluice.engine.blocking;

import dev.sluice.config.ProxyTarget;
import dev.sluice.config.RouteConfig;
import dev.sluice.engine.blocking.upstream.UpstreamClient;
import dev.sluice.http.HeaderRules;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.routing.WeightedChoice;
import dev.sluice.upstream.Mirror;
import java.util.Map;
import java.util.function.Function;

/**
 * What a proxy route compiles to: a {@link ProxyRoute}, or with {@code backends:} a {@link
 * WeightedRoute} over one per side, and with {@code mirror:} a {@link MirroredRoute} around either.
 * A route without them is the plain {@link ProxyRoute}: nothing added on its path.
 */
final class TrafficRoute {

    private TrafficRoute() {}

    /** @param proxyRoute the proxy route to one upstream, for the target (or a side of it) given */
    static BlockingRoute of(
            RouteConfig route,
            ProxyTarget proxy,
            Map<String, UpstreamClient> clients,
            Function<ProxyTarget, ProxyRoute> proxyRoute,
            GatewayObserver observer) {
        BlockingRoute sides = proxy.backends().isEmpty()
                ? proxyRoute.apply(proxy)
                : new WeightedRoute( // a side per backend; the core picks
                        WeightedChoice.of(proxy.backends().get()),
                        proxy.backends().get().sides().stream()
                                .map(side -> proxyRoute.apply(proxy.side(side.upstream())))
                                .toArray(BlockingRoute[]::new));
        if (proxy.mirror().isEmpty()) {
            return sides;
        }
        return new MirroredRoute( // the core decides each copy
                Mirror.of(proxy.mirror().get(), route.id(), observer),
                sides,
                proxy,
                clients.get(proxy.mirror().get().upstream()),
                HeaderRules.of(route),
                route.id(),
                observer);
    }
}
