package dev.sluice.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Binds {@code upstreams:}, every problem by its path ({@code upstreams.users.pace.per}). */
final class UpstreamBinder {

    private UpstreamBinder() {}

    /** Binds {@code upstreams:}; every name is added to {@code declared}, even when its settings are bad. */
    static Map<String, UpstreamConfig> upstreams(Mapping root, Set<String> declared, Path base) {
        Map<String, UpstreamConfig> upstreams = new LinkedHashMap<>();
        Optional<Mapping> section = root.mapping("upstreams", "a mapping of upstream name to settings");
        if (section.isEmpty()) {
            return upstreams;
        }
        for (Map.Entry<String, Object> e : section.get().entries()) {
            String name = e.getKey();
            declared.add(name);
            String path = section.get().child(name);
            if (!ConfigLoader.isName(name)) {
                root.problems().add(new Problem(path, "'" + name + "' (expected: " + ConfigLoader.NAME_EXPECTED + ")"));
            }
            Mapping.of(e.getValue(), path, "a mapping with url and pool settings", root.problems())
                    .flatMap(m -> upstream(name, m, base))
                    .ifPresent(u -> upstreams.put(name, u));
        }
        return upstreams;
    }

    private static Optional<UpstreamConfig> upstream(String name, Mapping m, Path base) {
        m.allowOnly(
                "url",
                "endpoints",
                "balance",
                "health-check",
                "outlier-detection",
                "retry",
                "circuit-breaker",
                "max-connections",
                "connect-timeout",
                "read-timeout",
                "acquire-timeout",
                "max-pending",
                "idle-timeout",
                "max-lifetime",
                "tls",
                "pace",
                "protocol",
                "max-streams-per-connection");
        int before = m.problems().size();
        Optional<List<URI>> endpoints = ResilienceBinder.endpoints(m);
        UpstreamConfig d = UpstreamConfig.of(name, URI.create("http://localhost"));
        int maxConnections = m.integer("max-connections", d.maxConnections(), 1, Integer.MAX_VALUE, "an integer > 0");
        Duration connect = m.duration("connect-timeout", d.connectTimeout());
        Duration read = m.duration("read-timeout", d.readTimeout());
        Duration acquire = m.duration("acquire-timeout", d.acquireTimeout());
        int maxPending = m.integer("max-pending", d.maxPending(), 0, Integer.MAX_VALUE, "an integer >= 0");
        Duration idle = m.duration("idle-timeout", d.idleTimeout());
        Optional<Duration> maxLifetime = m.duration("max-lifetime");
        Optional<UpstreamTlsConfig> tls = UpstreamTlsBinder.bind(m, endpoints, base);
        Optional<UpstreamProtocol> protocol = protocol(m, endpoints);
        int maxStreams = m.integer(
                "max-streams-per-connection",
                UpstreamConfig.DEFAULT_MAX_STREAMS,
                1,
                Integer.MAX_VALUE,
                "an integer > 0");
        Optional<Pace> pace =
                m.mapping("pace", "a mapping such as {permits: 1, per: 200ms}").flatMap(UpstreamBinder::pace);
        // bound even when the endpoints are bad, so that every problem is listed at once
        Optional<UpstreamResilience> resilience =
                ResilienceBinder.bind(m, endpoints.orElse(List.of(URI.create("http://localhost"))));
        if (endpoints.isEmpty() || resilience.isEmpty() || m.problems().size() != before) {
            return Optional.empty();
        }
        URI url = endpoints.get().getFirst();
        return Optional.of(new UpstreamConfig(
                name,
                url,
                maxConnections,
                connect,
                read,
                acquire,
                maxPending,
                idle,
                pace,
                resilience.get(),
                tls,
                maxLifetime,
                protocol.orElse(UpstreamProtocol.HTTP_1_1),
                maxStreams));
    }

    /** {@code protocol}: {@code http/1.1} unless given; {@code h2} only for https endpoints, {@code h2c} for http. */
    private static Optional<UpstreamProtocol> protocol(Mapping m, Optional<List<URI>> endpoints) {
        Optional<String> text = m.string("protocol", "http/1.1, h2 or h2c");
        if (text.isEmpty()) {
            return Optional.of(UpstreamProtocol.HTTP_1_1);
        }
        Optional<UpstreamProtocol> protocol = UpstreamProtocol.fromKey(text.get());
        if (protocol.isEmpty()) {
            m.problem("protocol", "'" + text.get() + "' (expected: http/1.1, h2 or h2c)");
            return Optional.empty();
        }
        for (URI endpoint : endpoints.orElse(List.of())) {
            Optional<String> mismatch = protocol.get().mismatch(endpoint);
            if (mismatch.isPresent()) {
                m.problem("protocol", mismatch.get());
                return Optional.empty();
            }
        }
        return protocol;
    }

    private static Optional<Pace> pace(Mapping m) {
        m.allowOnly("permits", "per");
        boolean hasPermits = m.require("permits", "an integer > 0");
        boolean hasPer = m.require("per", Quantities.DURATION_EXPECTED);
        Optional<Integer> permits = m.integer("permits", 1, Integer.MAX_VALUE, "an integer > 0");
        Optional<Duration> per = m.duration("per");
        if (!hasPermits || !hasPer || permits.isEmpty() || per.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Pace(permits.get(), per.get()));
    }

    /** An upstream endpoint's URL; {@code key} names it in a problem ({@code url}, {@code endpoints[1]}). */
    static Optional<URI> url(String key, String text, Mapping m) {
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            m.problem(
                    key,
                    "'" + Redact.url(text) + "' is not a URL: " + e.getReason()
                            + " (expected: an http:// or https:// URL such as http://127.0.0.1:8081)");
            return Optional.empty();
        }
        String scheme = uri.getScheme();
        String problem = null;
        if (!"http".equalsIgnoreCase(scheme) && !"https".equalsIgnoreCase(scheme)) {
            problem = "an http:// or https:// URL such as http://127.0.0.1:8081";
        } else if (uri.getHost() == null || uri.getHost().isEmpty()) {
            problem = "a URL with a host";
        } else if (uri.getPort() > 65535) {
            problem = "a URL with a port 1..65535";
        } else if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            problem = "a URL without query or fragment";
        } else if (uri.getRawUserInfo() != null) {
            problem = "a URL without user info";
        }
        if (problem != null) {
            m.problem(key, "'" + Redact.url(text) + "' (expected: " + problem + ")");
            return Optional.empty();
        }
        return Optional.of(uri);
    }
}
