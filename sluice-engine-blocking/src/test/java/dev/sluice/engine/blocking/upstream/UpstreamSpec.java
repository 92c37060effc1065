package dev.sluice.engine.blocking.upstream;

import dev.sluice.config.Pace;
import dev.sluice.config.UpstreamConfig;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/** An {@link UpstreamConfig} under construction, from {@link UpstreamConfig#of}'s defaults. */
final class UpstreamSpec {

    private UpstreamConfig c;

    private UpstreamSpec(UpstreamConfig config) {
        this.c = config;
    }

    static UpstreamSpec of(String name, URI url) {
        return new UpstreamSpec(UpstreamConfig.of(name, url));
    }

    UpstreamSpec connectTimeout(Duration connectTimeout) {
        c = new UpstreamConfig(
                c.name(),
                c.url(),
                c.maxConnections(),
                connectTimeout,
                c.readTimeout(),
                c.acquireTimeout(),
                c.maxPending(),
                c.idleTimeout(),
                c.pace());
        return this;
    }

    UpstreamSpec readTimeout(Duration readTimeout) {
        c = new UpstreamConfig(
                c.name(),
                c.url(),
                c.maxConnections(),
                c.connectTimeout(),
                readTimeout,
                c.acquireTimeout(),
                c.maxPending(),
                c.idleTimeout(),
                c.pace());
        return this;
    }

    UpstreamSpec pool(int maxConnections, Duration acquireTimeout, int maxPending) {
        c = new UpstreamConfig(
                c.name(),
                c.url(),
                maxConnections,
                c.connectTimeout(),
                c.readTimeout(),
                acquireTimeout,
                maxPending,
                c.idleTimeout(),
                c.pace());
        return this;
    }

    UpstreamSpec idleTimeout(Duration idleTimeout) {
        c = new UpstreamConfig(
                c.name(),
                c.url(),
                c.maxConnections(),
                c.connectTimeout(),
                c.readTimeout(),
                c.acquireTimeout(),
                c.maxPending(),
                idleTimeout,
                c.pace());
        return this;
    }

    UpstreamSpec pace(int permits, Duration per) {
        c = new UpstreamConfig(
                c.name(),
                c.url(),
                c.maxConnections(),
                c.connectTimeout(),
                c.readTimeout(),
                c.acquireTimeout(),
                c.maxPending(),
                c.idleTimeout(),
                Optional.of(new Pace(permits, per)));
        return this;
    }

    UpstreamConfig build() {
        return c;
    }
}
