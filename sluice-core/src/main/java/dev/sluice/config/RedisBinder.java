package dev.sluice.config;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/** Binds {@code redis:}, the shared store of rate limits. */
final class RedisBinder {

    private RedisBinder() {}

    static Optional<RedisConfig> redis(Mapping root) {
        if (!root.has("redis")) {
            return Optional.empty();
        }
        Optional<Mapping> section = root.mapping("redis", "a mapping with url, timeout and prefix");
        if (section.isEmpty()) {
            return Optional.empty();
        }
        Mapping m = section.get();
        m.allowOnly("url", "timeout", "prefix");
        int before = m.problems().size();
        String expected = "a URL such as redis://127.0.0.1:6379, redis://:password@host:6379/0, rediss://host:6380";
        Optional<URI> url = m.requiredString("url", expected).flatMap(text -> {
            Optional<URI> parsed = redisUrl(text);
            if (parsed.isEmpty()) {
                m.problem("url", "'" + Redact.url(text) + "' (expected: " + expected + ")");
            }
            return parsed;
        });
        Duration timeout = m.duration("timeout", RedisConfig.DEFAULT_TIMEOUT);
        String prefix = m.string("prefix", "a key prefix such as 'sluice:rl:'").orElse(RedisConfig.DEFAULT_PREFIX);
        if (url.isEmpty() || m.problems().size() != before) {
            return Optional.empty();
        }
        return Optional.of(new RedisConfig(url.get(), timeout, prefix));
    }

    /**
     * A Redis URL the shared store can use: {@code redis} or {@code rediss}, a host, a valid port. (Unix
     * sockets need a native Netty transport Lettuce does not find here, so they are not offered.)
     */
    private static Optional<URI> redisUrl(String text) {
        URI uri;
        try {
            uri = new URI(text);
        } catch (java.net.URISyntaxException e) {
            return Optional.empty();
        }
        String scheme = uri.getScheme();
        if (scheme == null) {
            return Optional.empty();
        }
        return switch (scheme) {
            case "redis", "rediss" ->
                uri.getHost() != null && uri.getPort() <= 65535 && (uri.getPort() > 0 || uri.getPort() == -1)
                        ? Optional.of(uri)
                        : Optional.empty();
            default -> Optional.empty();
        };
    }
}
