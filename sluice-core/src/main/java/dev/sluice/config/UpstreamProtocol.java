package dev.sluice.config;

import java.net.URI;
import java.util.Locale;
import java.util.Optional;

/**
 * What an upstream's connections speak ({@code upstreams.<name>.protocol}): HTTP/1.1, a connection per
 * exchange in flight, or HTTP/2, many streams multiplexed on each connection, chosen by ALPN over TLS
 * ({@code h2}, an {@code https://} upstream) or spoken by prior knowledge in clear text ({@code h2c},
 * an {@code http://} upstream). gRPC needs HTTP/2: its trailers have no HTTP/1.1 carrier to an upstream.
 */
public enum UpstreamProtocol {
    HTTP_1_1("http/1.1"),
    H2("h2"),
    H2C("h2c");

    private final String key;

    UpstreamProtocol(String key) {
        this.key = key;
    }

    /** The configuration spelling: {@code http/1.1}, {@code h2}, {@code h2c}. */
    public String key() {
        return key;
    }

    /** Whether its connections carry HTTP/2 streams. */
    public boolean multiplexed() {
        return this != HTTP_1_1;
    }

    public static Optional<UpstreamProtocol> fromKey(String key) {
        String lower = key.toLowerCase(Locale.ROOT);
        for (UpstreamProtocol p : values()) {
            if (p.key.equals(lower)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /**
     * Why this protocol cannot reach {@code url}, or empty when it can: {@code h2} needs TLS to choose it
     * by ALPN, {@code h2c} is clear text.
     */
    public Optional<String> mismatch(URI url) {
        boolean https = UpstreamConfig.isHttps(url);
        if (this == H2 && !https) {
            return Optional.of("'h2' for " + url + " (expected: h2c for an http:// upstream, h2 needs https://)");
        }
        if (this == H2C && https) {
            return Optional.of("'h2c' for " + url + " (expected: h2 for an https:// upstream, h2c is clear text)");
        }
        return Optional.empty();
    }
}
