package dev.sluice.engine;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.GatewayConfig;
import dev.sluice.config.RouteConfig;
import dev.sluice.policy.PolicyChain;
import dev.sluice.routing.RouteTable;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * One compiled, immutable gateway: a configuration, its route table and each route's handler (the
 * engine's compiled form of a route: its plan, header rules, upstream). An engine holds the current
 * one in a {@link Holder} and reads it once per request, so a request routes and runs on one
 * snapshot from start to end; a reload swaps the holder's snapshot, and requests in flight finish
 * on the one they began with.
 *
 * @param <H> the engine's route handler
 */
public final class GatewaySnapshot<H> {

    private final GatewayConfig config;
    private final RouteTable table;
    private final Map<RouteConfig, H> handlers;
    private final Map<RouteConfig, PolicyChain> policies;

    private GatewaySnapshot(
            GatewayConfig config,
            RouteTable table,
            Map<RouteConfig, H> handlers,
            Map<RouteConfig, PolicyChain> policies) {
        this.config = config;
        this.table = table;
        this.handlers = handlers;
        this.policies = policies;
    }

    /**
     * Compiles every route of {@code config} with {@code compiler}, once.
     *
     * @param compiler the engine's handler for a route; it must not return null
     */
    public static <H> GatewaySnapshot<H> compile(GatewayConfig config, Function<RouteConfig, H> compiler) {
        requireNonNull(config, "config");
        Map<RouteConfig, H> handlers = new IdentityHashMap<>();
        Map<RouteConfig, PolicyChain> policies = new IdentityHashMap<>();
        for (RouteConfig route : config.routes()) {
            handlers.put(route, requireNonNull(compiler.apply(route), () -> "handler for route " + route.id()));
            policies.put(route, PolicyChain.of(route));
        }
        return new GatewaySnapshot<>(config, new RouteTable(config.routes()), handlers, policies);
    }

    public GatewayConfig config() {
        return config;
    }

    /** Routes a request: see {@link RouteTable#match}. */
    public RouteTable.Result match(String method, String host, String rawPath, Function<String, String> headers) {
        return table.match(method, host, rawPath, headers);
    }

    /** The handler of a route this snapshot matched. */
    public H handler(RouteTable.Result.Matched matched) {
        H handler = handlers.get(matched.route());
        if (handler == null) {
            throw new IllegalArgumentException("route " + matched.route().id() + " is not this snapshot's");
        }
        return handler;
    }

    /** The inbound policies of a route this snapshot matched ({@link PolicyChain#NONE} for none). */
    public PolicyChain policies(RouteTable.Result.Matched matched) {
        return policies.get(matched.route());
    }

    /** The current snapshot, swapped whole. */
    public static final class Holder<H> {
        private final AtomicReference<GatewaySnapshot<H>> current;

        public Holder(GatewaySnapshot<H> first) {
            this.current = new AtomicReference<>(requireNonNull(first, "first"));
        }

        /** The snapshot a new request runs on: read it once per request. */
        public GatewaySnapshot<H> current() {
            return current.get();
        }

        /** Makes {@code next} the snapshot for new requests; returns the one it replaces. */
        public GatewaySnapshot<H> swap(GatewaySnapshot<H> next) {
            return current.getAndSet(requireNonNull(next, "next"));
        }
    }
}
