package dev.sluice.engine;

import static java.util.Objects.requireNonNull;

import dev.sluice.compress.Compression;
import dev.sluice.config.GatewayConfig;
import dev.sluice.config.RouteConfig;
import dev.sluice.config.ServerLimits;
import dev.sluice.http.BodyLimit;
import dev.sluice.policy.InFlightLimit;
import dev.sluice.policy.PolicyChain;
import dev.sluice.policy.PolicyResources;
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
    private final Map<RouteConfig, Compiled<H>> routes;

    /**
     * A route compiled: the engine's handler, the core's policies for it (the server's {@code
     * max-requests} first, when set), the largest request body it takes ({@link BodyLimit}) and its
     * response {@link Compression} ({@link Compression#NONE} without a {@code compression} filter).
     */
    public record Compiled<H>(H handler, PolicyChain policies, long maxBody, Compression compression) {
        public Compiled {
            requireNonNull(compression, "compression");
        }

        /** A route without compression. */
        public Compiled(H handler, PolicyChain policies, long maxBody) {
            this(handler, policies, maxBody, Compression.NONE);
        }
    }

    private GatewaySnapshot(GatewayConfig config, RouteTable table, Map<RouteConfig, Compiled<H>> routes) {
        this.config = config;
        this.table = table;
        this.routes = routes;
    }

    /**
     * Compiles every route of {@code config} with {@code compiler}, once, with no shared policy
     * resources (a {@code store: redis} rate limit cannot compile).
     *
     * @param compiler the engine's handler for a route; it must not return null
     */
    public static <H> GatewaySnapshot<H> compile(GatewayConfig config, Function<RouteConfig, H> compiler) {
        return compile(config, PolicyResources.none(), compiler);
    }

    /**
     * Compiles every route of {@code config} with {@code compiler}, once. The policies draw on
     * {@code resources}, which the engine keeps for the gateway's life (across reloads) and closes
     * when the gateway stops: its Redis connection, and the rate limits whose filters a reload left
     * unchanged, buckets and all.
     *
     * @param compiler the engine's handler for a route; it must not return null
     */
    public static <H> GatewaySnapshot<H> compile(
            GatewayConfig config, PolicyResources resources, Function<RouteConfig, H> compiler) {
        requireNonNull(config, "config");
        requireNonNull(resources, "resources");
        Map<RouteConfig, Compiled<H>> routes = new IdentityHashMap<>();
        ServerLimits limits = config.server().limits();
        InFlightLimit inFlight = limits.maxRequests() > 0 ? new InFlightLimit(limits.maxRequests()) : null;
        for (RouteConfig route : config.routes()) {
            H handler = requireNonNull(compiler.apply(route), () -> "handler for route " + route.id());
            PolicyChain policies = PolicyChain.of(route, resources);
            if (inFlight != null) {
                policies = policies.after(inFlight);
            }
            routes.put(route, new Compiled<>(handler, policies, BodyLimit.of(route, limits), Compression.of(route)));
        }
        resources.compiled();
        return new GatewaySnapshot<>(config, new RouteTable(config.routes()), routes);
    }

    public GatewayConfig config() {
        return config;
    }

    /** Routes a request: see {@link RouteTable#match}. */
    public RouteTable.Result match(String method, String host, String rawPath, Function<String, String> headers) {
        return table.match(method, host, rawPath, headers);
    }

    /** Routes a request with its raw query (or null): see {@link RouteTable#match}. */
    public RouteTable.Result match(
            String method, String host, String rawPath, String rawQuery, Function<String, String> headers) {
        return table.match(method, host, rawPath, rawQuery, headers);
    }

    /** Whether a route matches on cookies: see {@link RouteTable#readsCookies}. */
    public boolean readsCookies() {
        return table.readsCookies();
    }

    /** A route this snapshot matched, compiled: its handler and policies, in one look-up. */
    public Compiled<H> route(RouteTable.Result.Matched matched) {
        Compiled<H> route = routes.get(matched.route());
        if (route == null) {
            throw new IllegalArgumentException("route " + matched.route().id() + " is not this snapshot's");
        }
        return route;
    }

    /** The handler of a route this snapshot matched. */
    public H handler(RouteTable.Result.Matched matched) {
        return route(matched).handler();
    }

    /** The inbound policies of a route this snapshot matched ({@link PolicyChain#NONE} for none). */
    public PolicyChain policies(RouteTable.Result.Matched matched) {
        return route(matched).policies();
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
