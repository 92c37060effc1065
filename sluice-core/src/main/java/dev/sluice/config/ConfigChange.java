package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What a reload may change, decided once for every engine. Routes and upstreams change live; the
 * listener, the engine, its threads and limits, the admin listener, logging and the rate limits'
 * {@code redis:} store are fixed when the
 * process starts, so a file that changes them is refused as a whole (the running configuration
 * stays) with every such key named: a reload never applies half a file.
 *
 * <p>Upstreams whose settings are unchanged keep their connection pools (and pacing); a new or
 * changed one gets a fresh pool; a removed or changed one's old pool is retired: it serves the
 * requests that began before the swap, then closes.
 *
 * @param kept upstreams whose pools carry over unchanged
 * @param started upstreams that need a new pool (new, or changed)
 * @param retired upstreams whose old pool must be retired (removed, or changed)
 */
public record ConfigChange(Set<String> kept, Set<String> started, Set<String> retired) {

    public ConfigChange {
        kept = Set.copyOf(kept);
        started = Set.copyOf(started);
        retired = Set.copyOf(retired);
    }

    /**
     * The change from {@code running} to {@code next}.
     *
     * @throws ConfigException listing every key that only a restart can change
     */
    public static ConfigChange between(GatewayConfig running, GatewayConfig next, String source)
            throws ConfigException {
        requireNonNull(running, "running");
        requireNonNull(next, "next");
        List<Problem> problems = restartOnly(running, next);
        if (!problems.isEmpty()) {
            throw new ConfigException(source, problems);
        }
        Set<String> kept = new LinkedHashSet<>();
        Set<String> started = new LinkedHashSet<>();
        Set<String> retired = new LinkedHashSet<>();
        for (UpstreamConfig upstream : next.upstreams().values()) {
            UpstreamConfig before = running.upstreams().get(upstream.name());
            if (upstream.equals(before)) {
                kept.add(upstream.name());
            } else {
                started.add(upstream.name());
                if (before != null) {
                    retired.add(upstream.name());
                }
            }
        }
        for (String name : running.upstreams().keySet()) {
            if (!next.upstreams().containsKey(name)) {
                retired.add(name);
            }
        }
        return new ConfigChange(kept, started, retired);
    }

    /** The keys {@code next} changes that take effect only on a restart; empty when none. */
    public static List<Problem> restartOnly(GatewayConfig running, GatewayConfig next) {
        List<Problem> problems = new ArrayList<>();
        ServerConfig a = running.server();
        ServerConfig b = next.server();
        differs(problems, "server.host", a.host(), b.host());
        differs(problems, "server.port", a.port(), b.port());
        differs(problems, "server.engine", a.engine().key(), b.engine().key());
        differs(problems, "server.platform-threads", a.platformThreads(), b.platformThreads());
        differs(problems, "server.fanout-threads", a.fanoutThreads(), b.fanoutThreads());
        differs(problems, "server.shutdown-grace", a.shutdownGrace(), b.shutdownGrace());
        differs(problems, "server.read-ahead", a.readAhead(), b.readAhead());
        differs(problems, "server.transport", a.transport(), b.transport());
        differs(problems, "server.limits", a.limits(), b.limits());
        differs(problems, "server.tls", a.tls(), b.tls()); // the files' contents rotate live; their paths do not
        differs(problems, "server.http2", a.http2().enabled(), b.http2().enabled());
        differs(problems, "admin", running.admin(), next.admin());
        differs(problems, "logging", running.logging(), next.logging());
        differs(problems, "tracing", running.tracing(), next.tracing());
        differs(problems, "redis", running.redis(), next.redis()); // the rate limits' one connection
        return problems;
    }

    private static void differs(List<Problem> problems, String path, Object running, Object next) {
        if (!Objects.equals(running, next)) {
            problems.add(new Problem(
                    path,
                    "changed (running: " + describe(running) + ", file: " + describe(next)
                            + "); it takes effect only on a restart, so nothing of this file was applied"));
        }
    }

    private static String describe(Object value) {
        return value instanceof java.util.Optional<?> o ? o.map(String::valueOf).orElse("none") : String.valueOf(value);
    }

    /**
     * The engine's pools after this change: the kept ones as they are, a new one (from {@code
     * start}) for every started upstream, and the running pools to retire. When {@code apply} (which
     * compiles and swaps the snapshot onto the new pools) fails, the new pools are discarded and the
     * running ones stay.
     *
     * @param running the engine's pools by upstream name
     * @param next the configuration being applied
     * @param start makes the pool of an upstream
     * @param apply swaps the engine onto the new pools
     * @param discard frees a new pool that was never used
     * @return the new pools by name, and the running ones to retire
     */
    public <P> Swapped<P> swap(
            Map<String, P> running,
            GatewayConfig next,
            Function<UpstreamConfig, P> start,
            Consumer<Map<String, P>> apply,
            Consumer<P> discard) {
        Map<String, P> pools = new LinkedHashMap<>();
        List<P> fresh = new ArrayList<>();
        try {
            for (UpstreamConfig upstream : next.upstreams().values()) {
                P pool = kept.contains(upstream.name()) ? running.get(upstream.name()) : null;
                if (pool == null) {
                    pool = start.apply(upstream);
                    fresh.add(pool);
                }
                pools.put(upstream.name(), pool);
            }
            apply.accept(pools);
        } catch (RuntimeException e) { // nothing swapped: the new pools go, the running ones stay
            fresh.forEach(discard);
            throw e;
        }
        List<P> retiring = new ArrayList<>();
        for (String name : retired) {
            P old = running.get(name);
            if (old != null) {
                retiring.add(old);
            }
        }
        return new Swapped<>(pools, retiring);
    }

    /** What {@link #swap} left: the pools now in use, and the old ones to retire. */
    public record Swapped<P>(Map<String, P> pools, List<P> retired) {}
}
