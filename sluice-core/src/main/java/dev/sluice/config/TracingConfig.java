package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.net.URI;

/**
 * Span export ({@code tracing:}): one span per request, the gateway's own in the client's W3C trace,
 * sent to an OpenTelemetry collector over OTLP/HTTP. Present only when configured.
 *
 * @param otlpEndpoint the URL spans are POSTed to, such as {@code http://collector:4318/v1/traces}
 */
public record TracingConfig(URI otlpEndpoint) {
    public TracingConfig {
        requireNonNull(otlpEndpoint, "otlpEndpoint");
    }

    /** Without the URL's password: a reload's refusal names this section ({@link ConfigChange}). */
    @Override
    public String toString() {
        return "TracingConfig[otlpEndpoint=" + Redact.url(otlpEndpoint) + "]";
    }
}
