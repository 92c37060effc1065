package dev.sluice.engine.reactive;

import dev.sluice.config.ProxyTarget;
import dev.sluice.config.RouteConfig;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.routing.WeightedChoice;
import dev.sluice.upstream.Mirror;
import java.util.Map;

/**
 * What a proxy route compiles to: a {@link ProxyRoute}, or with {@code backends:} a {@link
 * WeightedRoute} over one per side, and with {@code mirror:} a {@link MirroredRoute} around either.
 * A route without them is the plain {@link ProxyRoute}: nothing added on its path.
 */
final class TrafficRoute {

    private TrafficRoute() {}

    /** A proxy route: to one upstream, to weighted sides the core picks among, with a mirror or not. */
    static GatewayHandler.ReactiveRoute of(
            RouteConfig route, ProxyTarget proxy, Map<String, Upstream> upstreams, GatewayObserver observer) {
        GatewayHandler.ReactiveRoute sides;
        if (proxy.backends().isEmpty()) {
            sides = new ProxyRoute(route, proxy, upstreams.get(proxy.upstream()), observer)::handle;
        } else { // a side per backend; the core picks
            sides = new WeightedRoute(
                    WeightedChoice.of(proxy.backends().get()),
                    proxy.backends().get().sides().stream()
                            .map(side -> proxy.side(side.upstream()))
                            .map(side -> (GatewayHandler.ReactiveRoute)
                                    new ProxyRoute(route, side, upstreams.get(side.upstream()), observer)::handle)
                            .toArray(GatewayHandler.ReactiveRoute[]::new));
        }
        if (proxy.mirror().isEmpty()) {
            return sides;
        }
        return new MirroredRoute( // the core decides each copy
                Mirror.of(proxy.mirror().get(), route.id(), observer),
                sides,
                proxy,
                upstreams.get(proxy.mirror().get().upstream()),
                dev.sluice.http.HeaderRules.of(route),
                route.id(),
                observer);
    }
}
