package dev.sluice.upstream;

import dev.sluice.config.ProxyTarget;
import dev.sluice.config.RouteConfig;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.routing.WeightedChoice;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * What a proxy route is made of, the one decision both engines ask when they compile one and then
 * build each piece in their own types: a route without {@code backends:} or {@code mirror:} is its
 * proxy alone (nothing added on its path); with {@code backends:}, a proxy per side, in the
 * backends' order, run as the core's {@link WeightedChoice} picks; with {@code mirror:}, the copier
 * around either, so a request is copied once, whichever side answers it.
 */
public final class TrafficPlan {

    private TrafficPlan() {}

    /** An engine's copier: {@code sides} run behind the copies {@code mirror} decides, sent to {@code upstream}. */
    @FunctionalInterface
    public interface Mirrored<R> {
        R around(Mirror mirror, String upstream, R sides);
    }

    /**
     * The route {@code proxy} compiles to.
     *
     * @param toOne the engine's proxy route to one upstream: the target's own, or one side's ({@link
     *     ProxyTarget#side})
     * @param weighted the engine's route that runs the side the choice picks, the sides in the backends' order
     * @param mirrored the engine's copier
     */
    public static <R> R of(
            RouteConfig route,
            ProxyTarget proxy,
            GatewayObserver observer,
            Function<ProxyTarget, R> toOne,
            BiFunction<WeightedChoice, List<R>, R> weighted,
            Mirrored<R> mirrored) {
        R sides = proxy.backends().isEmpty()
                ? toOne.apply(proxy)
                : weighted.apply(
                        WeightedChoice.of(proxy.backends().get()),
                        proxy.backends().get().sides().stream()
                                .map(side -> toOne.apply(proxy.side(side.upstream())))
                                .toList());
        if (proxy.mirror().isEmpty()) {
            return sides;
        }
        return mirrored.around(
                Mirror.of(proxy.mirror().get(), route.id(), observer),
                proxy.mirror().get().upstream(),
                sides);
    }
}
