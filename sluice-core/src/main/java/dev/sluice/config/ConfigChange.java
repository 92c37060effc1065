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
        limits(problems, a.limits(), b.limits());
        // the files' contents rotate live; their paths do not
        present(problems, "server.tls", a.tls(), b.tls()).ifPresent(tls -> tls(problems, tls.running(), tls.next()));
        differs(problems, "server.http2", a.http2().enabled(), b.http2().enabled());
        differs(problems, "server.request-id.response", a.responseRequestId(), b.responseRequestId());
        present(problems, "admin", running.admin(), next.admin()).ifPresent(admin -> {
            differs(problems, "admin.host", admin.running().host(), admin.next().host());
            differs(problems, "admin.port", admin.running().port(), admin.next().port());
            if (!admin.running().tls().equals(admin.next().tls())) {
                differs(
                        problems,
                        "admin.tls",
                        admin.running().tls().isPresent() ? "(set)" : "none",
                        admin.next().tls().isPresent() ? "(changed)" : "none");
            }
            if (!admin.running().token().equals(admin.next().token())) { // named, never shown
                differs(
                        problems,
                        "admin.auth.token",
                        admin.running().token().isPresent() ? "(a token)" : "none",
                        admin.next().token().isPresent() ? "(another token)" : "none");
            }
            differs(
                    problems,
                    "admin.drain-delay",
                    admin.running().drainDelay(),
                    admin.next().drainDelay());
        });
        logging(problems, running.logging(), next.logging());
        present(problems, "tracing", running.tracing(), next.tracing())
                .ifPresent(tracing -> differs(
                        problems,
                        "tracing.otlp.endpoint",
                        tracing.running().otlpEndpoint(),
                        tracing.next().otlpEndpoint()));
        // the rate limits' one connection
        present(problems, "redis", running.redis(), next.redis()).ifPresent(redis -> {
            differs(problems, "redis.url", redis.running().url(), redis.next().url());
            differs(
                    problems,
                    "redis.timeout",
                    redis.running().timeout(),
                    redis.next().timeout());
            differs(
                    problems,
                    "redis.prefix",
                    redis.running().prefix(),
                    redis.next().prefix());
        });
        return problems;
    }

    private static void limits(List<Problem> problems, ServerLimits a, ServerLimits b) {
        String at = "server.limits.";
        differs(problems, at + "max-request-line", a.maxRequestLine(), b.maxRequestLine());
        differs(problems, at + "max-header-bytes", a.maxHeaderBytes(), b.maxHeaderBytes());
        differs(problems, at + "max-headers", a.maxHeaders(), b.maxHeaders());
        differs(problems, at + "max-body", bodyText(a.maxBody()), bodyText(b.maxBody()));
        differs(problems, at + "header-timeout", a.headerTimeout(), b.headerTimeout());
        differs(problems, at + "idle-timeout", a.idleTimeout(), b.idleTimeout());
        differs(problems, at + "max-connections", a.maxConnections(), b.maxConnections());
        differs(problems, at + "max-requests", a.maxRequests(), b.maxRequests());
        differs(problems, at + "websocket-idle-timeout", a.websocketIdleTimeout(), b.websocketIdleTimeout());
        differs(problems, at + "max-read-ahead", readAheadText(a.maxReadAhead()), readAheadText(b.maxReadAhead()));
    }

    private static String bodyText(long maxBody) {
        return maxBody == ServerLimits.UNLIMITED ? "none" : Long.toString(maxBody);
    }

    private static String readAheadText(long maxReadAhead) {
        return maxReadAhead == ServerLimits.AUTO ? "auto" : Long.toString(maxReadAhead);
    }

    private static void tls(List<Problem> problems, TlsConfig a, TlsConfig b) {
        differs(
                problems,
                "server.tls.certificate",
                a.certificate().certificate(),
                b.certificate().certificate());
        differs(
                problems,
                "server.tls.key",
                a.certificate().key(),
                b.certificate().key());
        if (!a.sni().equals(b.sni())) {
            problems.add(new Problem(
                    "server.tls.sni",
                    "changed (running: " + a.sni().size() + " certificates, file: "
                            + b.sni().size() + ", or other files); " + RESTART));
        }
        differs(
                problems,
                "server.tls.client-auth",
                a.clientAuth().key(),
                b.clientAuth().key());
        differs(problems, "server.tls.client-ca", a.clientCa(), b.clientCa());
        differs(problems, "server.tls.protocols", a.protocols(), b.protocols());
    }

    private static void logging(List<Problem> problems, LoggingConfig a, LoggingConfig b) {
        differs(problems, "logging.format", a.format().key(), b.format().key());
        differs(problems, "logging.level", a.level().key(), b.level().key());
        java.util.Set<String> loggers = new java.util.TreeSet<>(a.loggers().keySet());
        loggers.addAll(b.loggers().keySet());
        for (String name : loggers) {
            differs(
                    problems,
                    "logging.loggers." + name,
                    java.util.Optional.ofNullable(a.loggers().get(name)).map(LoggingConfig.Level::key),
                    java.util.Optional.ofNullable(b.loggers().get(name)).map(LoggingConfig.Level::key));
        }
        present(problems, "logging.access", a.access(), b.access()).ifPresent(access -> {
            differs(
                    problems,
                    "logging.access.format",
                    access.running().format(),
                    access.next().format());
            differs(
                    problems,
                    "logging.access.to",
                    access.running().to(),
                    access.next().to());
            differs(
                    problems,
                    "logging.access.queue",
                    access.running().queue(),
                    access.next().queue());
        });
    }

    private static final String RESTART = "it takes effect only on a restart, so nothing of this file was applied";

    /** A section both files have, to compare key by key. */
    private record Both<T>(T running, T next) {}

    /**
     * Both sections when both files have one; a problem at {@code path} when only one has it (a
     * listener or a connection added or taken away), naming which, never its values.
     */
    private static <T> java.util.Optional<Both<T>> present(
            List<Problem> problems, String path, java.util.Optional<T> running, java.util.Optional<T> next) {
        if (running.isPresent() && next.isPresent()) {
            return java.util.Optional.of(new Both<>(running.get(), next.get()));
        }
        if (running.isPresent() != next.isPresent()) {
            problems.add(new Problem(
                    path,
                    (running.isPresent()
                                    ? "removed (running: set, file: none); "
                                    : "added (running: none, file: set); ")
                            + RESTART));
        }
        return java.util.Optional.empty();
    }

    private static void differs(List<Problem> problems, String path, Object running, Object next) {
        if (!Objects.equals(running, next)) {
            problems.add(new Problem(
                    path, "changed (running: " + describe(running) + ", file: " + describe(next) + "); " + RESTART));
        }
    }

    /** A value as the configuration file says it: {@code 9s}, {@code 250ms}, a URL without its password. */
    private static String describe(Object value) {
        return switch (value) {
            case java.util.Optional<?> o -> o.map(ConfigChange::describe).orElse("none");
            case java.time.Duration d ->
                d.toMillis() % 1000 == 0 && d.toNanos() % 1_000_000 == 0
                        ? d.toSeconds() + "s"
                        : d.toNanos() % 1_000_000 == 0 ? d.toMillis() + "ms" : d.toNanos() + "ns";
            case java.net.URI u -> Redact.url(u);
            case Transport t -> t.key();
            case null -> "none";
            default -> String.valueOf(value);
        };
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
