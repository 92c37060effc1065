package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Optional;

/**
 * The admin listener (health, metrics, routes). Present only when {@code admin:} is configured.
 *
 * @param host bind address (default {@code 127.0.0.1})
 * @param port admin port (default 9090; 0 picks a free one)
 * @param drainDelay on stop, how long {@code /health/ready} answers 503 while the gateway still
 *     serves, so that a load balancer stops sending before the gateway stops accepting (default 0)
 * @param token the bearer token every endpoint but {@code /health/live} and {@code /health/ready}
 *     requires ({@code admin.auth.token}, from {@code ${VAR}} or {@code secret-file}), when set
 * @param tls TLS on the admin listener ({@code admin.tls}, as {@code server.tls}); with {@code
 *     client-auth: require}, only clients with a certificate its {@code client-ca} signed get in
 */
public record AdminConfig(String host, int port, Duration drainDelay, Optional<String> token, Optional<TlsConfig> tls) {
    public AdminConfig {
        requireNonNull(host, "host");
        requireNonNull(drainDelay, "drainDelay");
        requireNonNull(token, "token");
        requireNonNull(tls, "tls");
    }

    /** An admin listener without a token or TLS. */
    public AdminConfig(String host, int port, Duration drainDelay) {
        this(host, port, drainDelay, Optional.empty(), Optional.empty());
    }

    /** The same listener on {@code port} (the command line's {@code --admin-port}). */
    public AdminConfig withPort(int port) {
        return new AdminConfig(host, port, drainDelay, token, tls);
    }

    /** Whether a client needs a token or a certificate its CA signed. */
    public boolean authenticates() {
        return token.isPresent()
                || tls.filter(t -> t.clientAuth() == TlsConfig.ClientAuth.REQUIRE)
                        .isPresent();
    }

    /**
     * Whether it listens only where this host alone reaches it: {@code localhost} or a loopback
     * address ({@code 127.0.0.0/8}, {@code ::1}); a name is not resolved.
     */
    public boolean loopbackOnly() {
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        return h.equals("localhost") || h.startsWith("127.") || h.equals("::1") || h.equals("0:0:0:0:0:0:0:1");
    }

    /** Never shows the token. */
    @Override
    public String toString() {
        return "AdminConfig[host=" + host + ", port=" + port + ", drainDelay=" + drainDelay + ", token="
                + (token.isPresent() ? "(set)" : "none") + ", tls=" + tls.isPresent() + "]";
    }
}
