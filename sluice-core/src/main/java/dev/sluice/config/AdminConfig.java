package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * The admin listener (health, metrics, routes). Present only when {@code admin:} is configured.
 *
 * @param host bind address (default {@code 127.0.0.1})
 * @param port admin port (default 9090; 0 picks a free one)
 * @param drainDelay on stop, how long {@code /health/ready} answers 503 while the gateway still
 *     serves, so that a load balancer stops sending before the gateway stops accepting (default 0)
 */
public record AdminConfig(String host, int port, Duration drainDelay) {
    public AdminConfig {
        requireNonNull(host, "host");
        requireNonNull(drainDelay, "drainDelay");
    }
}
