package dev.sluice.lab;

import java.net.URI;
import java.util.Map;

/**
 * The gateway configurations the lab writes into its results (one per scenario), in Sluice's YAML.
 * Pools are sized for the scenarios' user counts so the gateway, not its pool limits, is measured.
 */
public final class GatewayYaml {

    private GatewayYaml() {}

    /** Upstreams (every one given) and the routes the scenarios load. */
    public static String demoRoutes(Map<String, URI> upstreams) {
        return demoRoutes(upstreams, 200);
    }

    /** As {@link #demoRoutes(Map)} with {@code platformThreads} request threads in platform mode. */
    public static String demoRoutes(Map<String, URI> upstreams, int platformThreads) {
        return demoRoutes(upstreams, platformThreads, "");
    }

    /**
     * As {@link #demoRoutes(Map, int)}, with {@code slowFilters} (a YAML filter list item, such as
     * {@code "- concurrency: { max: 16 }"}, or "") on seed 003's slow composition.
     */
    public static String demoRoutes(Map<String, URI> upstreams, int platformThreads, String slowFilters) {
        StringBuilder sb = new StringBuilder("""
        # Written by sluice lab: the routes the scenarios load, pointed at the lab's upstreams.
        server:
          host: 127.0.0.1
          port: 0
        """);
        sb.append("  platform-threads: ").append(platformThreads).append("\nupstreams:\n");
        for (Map.Entry<String, URI> e : upstreams.entrySet()) {
            sb.append("  ")
                    .append(e.getKey())
                    .append(":\n    url: \"")
                    .append(e.getValue())
                    .append("\"\n")
                    .append(
                            "    max-connections: 2048\n    max-pending: 8192\n    acquire-timeout: 30s\n    read-timeout: 30s\n");
            if (e.getKey().equals("limited")) {
                sb.append("    pace: { permits: 1, per: 200ms }\n");
            }
        }
        sb.append("routes:\n");
        if (upstreams.containsKey("products")) {
            sb.append("""
            # The paper's scenario: three APIs (16, 5 and 7 KB) called concurrently, streamed as they arrive.
            - id: compose
              match: { path: /compose, methods: [GET] }
              compose:
                timeout: 30s
                parts:
                  products:  { upstream: products,  path: /products }
                  customers: { upstream: customers, path: /customers/42 }
                  reviews:   { upstream: reviews,   path: /reviews }
          """);
        }
        if (upstreams.containsKey("delay")) {
            sb.append("""
            # Seed 004: the 30 ms delay API three times, in parallel ...
            - id: compose-delay
              match: { path: /compose-delay, methods: [GET] }
              compose:
                timeout: 30s
                parts:
                  d1: { upstream: delay, path: "/delay?index=1" }
                  d2: { upstream: delay, path: "/delay?index=2" }
                  d3: { upstream: delay, path: "/delay?index=3" }
            # ... and one after the other: seed 004's "Blocking" baseline.
            - id: compose-delay-sequential
              match: { path: /compose-delay-sequential, methods: [GET] }
              compose:
                fanout: sequential
                order: declared
                timeout: 30s
                parts:
                  d1: { upstream: delay, path: "/delay?index=1" }
                  d2: { upstream: delay, path: "/delay?index=2" }
                  d3: { upstream: delay, path: "/delay?index=3" }
          """);
        }
        if (upstreams.containsKey("blocking")) {
            sb.append("""
            # Seed 001: each request waits 5 s on the upstream (blocking I/O).
            - id: blocking
              match: { path: /blocking, methods: [GET] }
              proxy: { upstream: blocking }
          """);
        }
        if (upstreams.containsKey("limited") && upstreams.containsKey("delay")) {
            String filters = slowFilters.isEmpty() ? "" : "  filters:\n      " + slowFilters + "\n  ";
            sb.append("""
            # Seed 003: a parallelisable API 5 times and a rate-limited API (1 call / 200 ms, paced) 4 times.
            - id: slow-composition
              match: { path: /slow-composition, methods: [GET] }
            %s  compose:
                timeout: 120s
                parts:
                  a1: { upstream: delay, path: "/delay?index=1&ms=200" }
                  a2: { upstream: delay, path: "/delay?index=2&ms=200" }
                  a3: { upstream: delay, path: "/delay?index=3&ms=200" }
                  a4: { upstream: delay, path: "/delay?index=4&ms=200" }
                  a5: { upstream: delay, path: "/delay?index=5&ms=200" }
                  l1: { upstream: limited, path: /limited }
                  l2: { upstream: limited, path: /limited }
                  l3: { upstream: limited, path: /limited }
                  l4: { upstream: limited, path: /limited }
          """.formatted(filters));
        }
        if (upstreams.containsKey("sizes")) {
            sb.append("""
            # Seed 002: a plain proxy of N-byte bodies.
            - id: bytes
              match: { path: "/bytes/**" }
              proxy: { upstream: sizes }
          """);
        }
        return sb.toString();
    }
}
