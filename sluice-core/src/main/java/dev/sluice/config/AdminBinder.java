package dev.sluice.config;

import java.time.Duration;
import java.util.Optional;

/** Binds {@code admin:}, the admin listener. */
final class AdminBinder {

    private AdminBinder() {}

    /** @param base the directory {@code admin.tls}'s files are resolved against: the configuration file's */
    static Optional<AdminConfig> admin(Mapping root, java.nio.file.Path base) {
        if (!root.has("admin")) {
            return Optional.empty();
        }
        Optional<Mapping> section = root.mapping("admin", "a mapping with host and port");
        if (section.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = section.get();
        m.allowOnly("host", "port", "drain-delay", "auth", "tls");
        String host = m.string("host", "a host name or address").orElse("127.0.0.1");
        if (host.isBlank()) {
            m.problem("host", "'' (expected: a host name or address)");
        }
        int port = m.integer("port", 9090, 0, 65535, "a port 0..65535");
        Duration drainDelay = m.has("drain-delay") && "0s".equals(m.raw("drain-delay"))
                ? Duration.ZERO
                : m.duration("drain-delay", Duration.ZERO);
        Optional<String> token = m.mapping("auth", "a mapping such as {token: ${ADMIN_TOKEN}}")
                .flatMap(a -> {
                    a.allowOnly("token");
                    Optional<String> t = a.string("token", "a bearer token of at least 16 characters");
                    if (a.require("token", "a bearer token, such as ${ADMIN_TOKEN} or {secret-file: PATH}")
                            && t.isPresent()
                            && (t.get().length() < 16 || !t.get().chars().allMatch(c -> c > 0x20 && c < 0x7f))) {
                        // the token itself is never echoed
                        a.problem(
                                "token",
                                "a token of " + t.get().length()
                                        + " characters (expected: at least 16 visible ASCII characters, no spaces)");
                    }
                    return t;
                });
        Optional<TlsConfig> tls = m.mapping("tls", "a mapping with certificate and key (PEM files), as server.tls")
                .flatMap(t -> ServerTlsBinder.tls(t, base));
        return Optional.of(new AdminConfig(host, port, drainDelay, token, tls));
    }
}
