package dev.sluice.config;

/**
 * The admin listener (health, routes). Present only when {@code admin:} is configured.
 *
 * @param host bind address (default {@code 127.0.0.1})
 * @param port admin port (default 9090)
 */
public record AdminConfig(String host, int port) {}
