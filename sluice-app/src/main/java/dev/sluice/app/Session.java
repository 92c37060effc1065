package dev.sluice.app;

import dev.sluice.config.AdminConfig;
import dev.sluice.config.GatewayConfig;
import dev.sluice.demo.DemoUpstreams;
import dev.sluice.engine.RunningGateway;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code run}, {@code demo} or {@code upstreams} started: a gateway, demo upstreams, or both.
 * Closing stops the gateway first (it lets in-flight requests finish), then the upstreams.
 */
final class Session implements AutoCloseable {

    private final Optional<GatewayConfig> config;
    private final Optional<RunningGateway> gateway;
    private final Optional<DemoUpstreams> upstreams;
    private final Optional<AdminServer> admin;
    private final Reloader reloader;
    private final java.util.List<AutoCloseable> afterGateway = new java.util.concurrent.CopyOnWriteArrayList<>();

    Session(Optional<GatewayConfig> config, Optional<RunningGateway> gateway, Optional<DemoUpstreams> upstreams) {
        this(config, gateway, upstreams, Optional.empty(), null);
    }

    /**
     * @param reloader what reloads {@code sluice run}'s file, or null (demo, upstreams)
     */
    Session(
            Optional<GatewayConfig> config,
            Optional<RunningGateway> gateway,
            Optional<DemoUpstreams> upstreams,
            Optional<AdminServer> admin,
            Reloader reloader) {
        this.config = config;
        this.gateway = gateway;
        this.upstreams = upstreams;
        this.admin = admin;
        this.reloader = reloader;
    }

    /** Closes {@code resource} once the gateway is closed (an access log: the last requests' lines). */
    void closeAfterGateway(AutoCloseable resource) {
        afterGateway.add(resource);
    }

    /** The admin listener's base URL, when one runs. */
    Optional<URI> adminUrl() {
        return admin.map(AdminServer::url);
    }

    /**
     * The gateway's base URL, such as {@code http://127.0.0.1:8080} ({@code https://} with {@code
     * server.tls}), when a gateway runs.
     */
    Optional<URI> gatewayUrl() {
        return gateway.map(g -> URI.create(config.orElseThrow().server().scheme() + "://"
                + urlHost(config.orElseThrow().server().host()) + ":" + g.port()));
    }

    /** The running gateway, when there is one. */
    Optional<RunningGateway> gateway() {
        return gateway;
    }

    /** The port the gateway is bound to, when a gateway runs. */
    Optional<Integer> port() {
        return gateway.map(RunningGateway::port);
    }

    /** The demo upstreams' URLs by name, empty when none run. */
    Map<String, URI> upstreamUrls() {
        return upstreams.map(DemoUpstreams::urls).orElse(Map.of());
    }

    /** The gateway's socket transport ({@code io_uring}, {@code nio}), when a gateway runs. */
    Optional<String> transport() {
        return gateway.map(RunningGateway::transport);
    }

    /**
     * The configuration the gateway started with, after command-line overrides (a reload changes
     * routes and upstreams only: {@link #running()} has them).
     */
    Optional<GatewayConfig> config() {
        return config;
    }

    /** The configuration new requests run on: the latest one a reload applied, else the first. */
    Optional<GatewayConfig> running() {
        return reloader != null ? Optional.of(reloader.running()) : config;
    }

    /** A wildcard bind address is reached through loopback. */
    static String urlHost(String host) {
        if (host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]")) {
            return "127.0.0.1";
        }
        return host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    @Override
    public void close() {
        admin.ifPresent(AdminServer::stopping); // not ready from now on; live until the end
        if (reloader != null) {
            reloader.close(); // no reload while stopping
        }
        Duration drain = config.flatMap(GatewayConfig::admin)
                .map(AdminConfig::drainDelay)
                .orElse(Duration.ZERO);
        if (admin.isPresent() && drain.isPositive()) { // a load balancer sees 503 and stops sending meanwhile
            try {
                Thread.sleep(drain);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            gateway.ifPresent(RunningGateway::close);
        } finally {
            for (AutoCloseable resource : afterGateway) {
                try {
                    resource.close();
                } catch (Exception e) {
                    System.err.println("sluice: closing " + resource + ": " + e);
                }
            }
            admin.ifPresent(AdminServer::close);
            upstreams.ifPresent(DemoUpstreams::close);
        }
    }
}
