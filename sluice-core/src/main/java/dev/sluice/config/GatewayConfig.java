package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A whole, validated gateway configuration. Built by {@link ConfigLoader} from YAML, or directly.
 *
 * @param upstreams upstreams by name, in declared order
 * @param routes routes in declared order; the first match wins
 * @param logging the log's format and levels
 * @param redis the Redis that rate limits with {@code store: redis} share, when configured
 */
public record GatewayConfig(
        ServerConfig server,
        Optional<AdminConfig> admin,
        Map<String, UpstreamConfig> upstreams,
        List<RouteConfig> routes,
        LoggingConfig logging,
        Optional<RedisConfig> redis,
        Optional<TracingConfig> tracing) {

    public GatewayConfig {
        requireNonNull(server, "server");
        requireNonNull(redis, "redis");
        requireNonNull(tracing, "tracing");
        requireNonNull(admin, "admin");
        requireNonNull(logging, "logging");
        upstreams = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(upstreams));
        routes = List.copyOf(routes);
    }

    /** A configuration without {@code tracing:}. */
    public GatewayConfig(
            ServerConfig server,
            Optional<AdminConfig> admin,
            Map<String, UpstreamConfig> upstreams,
            List<RouteConfig> routes,
            LoggingConfig logging,
            Optional<RedisConfig> redis) {
        this(server, admin, upstreams, routes, logging, redis, Optional.empty());
    }

    /** A configuration without {@code redis:}. */
    public GatewayConfig(
            ServerConfig server,
            Optional<AdminConfig> admin,
            Map<String, UpstreamConfig> upstreams,
            List<RouteConfig> routes,
            LoggingConfig logging) {
        this(server, admin, upstreams, routes, logging, Optional.empty());
    }

    /** A configuration with the default {@link LoggingConfig}. */
    public GatewayConfig(
            ServerConfig server,
            Optional<AdminConfig> admin,
            Map<String, UpstreamConfig> upstreams,
            List<RouteConfig> routes) {
        this(server, admin, upstreams, routes, LoggingConfig.defaults());
    }

    public UpstreamConfig upstream(String name) {
        UpstreamConfig upstream = upstreams.get(name);
        if (upstream == null) {
            throw new IllegalArgumentException("upstream: '" + name + "' (expected: a declared upstream)");
        }
        return upstream;
    }

    /**
     * The same configuration with its admin listener on {@code port} (the CLI's --admin-port): the
     * file's {@code admin:} settings, or the defaults (127.0.0.1, no token) when it has none.
     */
    public GatewayConfig withAdminPort(int port) {
        AdminConfig on = admin.orElse(new AdminConfig("127.0.0.1", port, java.time.Duration.ZERO));
        return new GatewayConfig(server, Optional.of(on.withPort(port)), upstreams, routes, logging, redis, tracing);
    }

    /** The same configuration with another engine mode and port (the CLI's --engine and --port). */
    public GatewayConfig with(EngineMode engine, int port) {
        return new GatewayConfig(server.with(engine, port), admin, upstreams, routes, logging, redis, tracing);
    }
}
