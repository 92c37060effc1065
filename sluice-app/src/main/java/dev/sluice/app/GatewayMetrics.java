package dev.sluice.app;

import static java.util.Objects.requireNonNull;

import dev.sluice.compose.PartCache;
import dev.sluice.compose.ReadAheadBudget;
import dev.sluice.engine.PoolStats;
import dev.sluice.engine.RunningGateway;
import dev.sluice.observe.ClientProtocolError;
import dev.sluice.observe.ExchangeEvent;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.observe.MirrorEvent;
import dev.sluice.observe.PartEvent;
import dev.sluice.observe.UpstreamEvent;
import dev.sluice.upstream.Endpoint;
import dev.sluice.upstream.UpstreamGuard;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The gateway's metrics (docs/METRICS.md), fed by the core's observer seam, so every engine reports
 * the same meters: one timer per route, method, status class and outcome, one per upstream and call
 * outcome, one per composition part's time to first byte, counters of part outcomes and policy
 * refusals, whether the gateway can serve, and the JVM's and process's own.
 * Meters are looked up in a map keyed by their tags (no Micrometer id built per event).
 */
final class GatewayMetrics implements GatewayObserver {

    /** Latency buckets of {@code sluice_requests_seconds}: from 1 ms to 10 s, as Envoy's defaults span. */
    private static final Duration[] BUCKETS = {
        Duration.ofMillis(1),
        Duration.ofMillis(5),
        Duration.ofMillis(10),
        Duration.ofMillis(25),
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofMillis(250),
        Duration.ofMillis(500),
        Duration.ofSeconds(1),
        Duration.ofMillis(2500),
        Duration.ofSeconds(5),
        Duration.ofSeconds(10)
    };

    private record RequestKey(String route, String method, int statusClass, boolean aborted) {}

    private record PartKey(String route, String upstream, String outcome) {}

    private record UpstreamKey(String upstream, String outcome) {}

    private record FirstByteKey(String route, String upstream) {}

    private record RefusalKey(String route, String policy, int status) {}

    private record GrpcKey(String route, int status) {}

    private final java.util.concurrent.ConcurrentHashMap<MirrorEvent, Counter> mirrors =
            new java.util.concurrent.ConcurrentHashMap<>();

    private final MeterRegistry registry;
    private final MultiGauge pools;
    private final MultiGauge endpointsUp;
    private final MultiGauge breakersOpen;
    private final ConcurrentHashMap<String, Boolean> guardCounters = new ConcurrentHashMap<>();
    private volatile Supplier<RunningGateway> gateway = () -> null;
    private final ConcurrentHashMap<RequestKey, Timer> requests = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<PartKey, Counter> parts = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<UpstreamKey, Timer> calls = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<FirstByteKey, Timer> firstBytes = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<RefusalKey, Counter> refusals = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<GrpcKey, Counter> grpcCalls = new ConcurrentHashMap<>();

    private final java.util.Map<ClientProtocolError, Counter> protocolErrors =
            new java.util.concurrent.ConcurrentHashMap<>();

    GatewayMetrics(MeterRegistry registry) {
        this.registry = requireNonNull(registry, "registry");
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        this.pools = MultiGauge.builder("sluice.upstream.connections")
                .description("upstream connection pools: connections in use and idle, calls waiting for one")
                .register(registry);
        this.endpointsUp = MultiGauge.builder("sluice.upstream.endpoint.up")
                .description("1 while an upstream endpoint is in the rotation: its health checks pass and"
                        + " outlier detection has not ejected it")
                .register(registry);
        this.breakersOpen = MultiGauge.builder("sluice.upstream.endpoint.breaker.open")
                .description("1 while an upstream endpoint's circuit breaker is open (calls skip it), else 0")
                .register(registry);
    }

    /**
     * Reads the pools' counts into {@code sluice_upstream_connections}, one row per upstream and state
     * (an upstream a reload removed disappears): before each scrape, never on the request path.
     */
    void readPools() {
        RunningGateway g = gateway.get();
        if (g == null) {
            return;
        }
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        for (PoolStats pool : g.pools()) {
            rows.add(MultiGauge.Row.of(Tags.of("upstream", pool.upstream(), "state", "in_use"), pool.inUse()));
            rows.add(MultiGauge.Row.of(Tags.of("upstream", pool.upstream(), "state", "idle"), pool.idle()));
            rows.add(MultiGauge.Row.of(Tags.of("upstream", pool.upstream(), "state", "pending"), pool.pending()));
        }
        pools.register(rows, true);
        List<MultiGauge.Row<?>> up = new ArrayList<>();
        List<MultiGauge.Row<?>> open = new ArrayList<>();
        for (UpstreamGuard guard : g.guards()) {
            for (Endpoint e : guard.endpoints()) {
                Tags tags = Tags.of("upstream", guard.name(), "endpoint", e.authority());
                up.add(MultiGauge.Row.of(tags, e.isHealthy() && !e.isEjected() ? 1 : 0));
                open.add(MultiGauge.Row.of(tags, e.breakerState().equals("OPEN") ? 1 : 0));
            }
            String name = guard.name();
            if (guardCounters.putIfAbsent(name, Boolean.TRUE) == null) {
                FunctionCounter.builder(
                                "sluice.upstream.retries", this, m -> m.guardCount(name, UpstreamGuard::retries))
                        .description("retries begun by the upstream's retry policy (a reload that replaces"
                                + " the upstream starts it again)")
                        .tag("upstream", name)
                        .register(registry);
                FunctionCounter.builder(
                                "sluice.upstream.retries.over.budget",
                                this,
                                m -> m.guardCount(name, UpstreamGuard::retriesOverBudget))
                        .description("retries the retry budget refused: the failed try's answer was relayed")
                        .tag("upstream", name)
                        .register(registry);
                FunctionCounter.builder(
                                "sluice.upstream.circuit.open",
                                this,
                                m -> m.guardCount(name, UpstreamGuard::refusedByBreakers))
                        .description("calls refused at once because every endpoint's circuit breaker was open")
                        .tag("upstream", name)
                        .register(registry);
            }
        }
        endpointsUp.register(up, true);
        breakersOpen.register(open, true);
    }

    /** One count of upstream {@code name}'s current guard; 0 once it is gone. */
    private double guardCount(String name, java.util.function.ToLongFunction<UpstreamGuard> count) {
        RunningGateway g = gateway.get();
        if (g == null) {
            return 0;
        }
        for (UpstreamGuard guard : g.guards()) {
            if (guard.name().equals(name)) {
                return count.applyAsLong(guard);
            }
        }
        return 0;
    }

    /**
     * {@code sluice_up}: 1 while the gateway can serve ({@link RunningGateway#failure()} is empty);
     * and the gateway whose pools {@link #readPools()} reads.
     */
    void watch(Supplier<RunningGateway> gateway) {
        this.gateway = gateway;
        Gauge.builder("sluice.up", () -> {
                    RunningGateway g = gateway.get();
                    return g != null && g.failure().isEmpty() ? 1 : 0;
                })
                .description("1 while the gateway can serve, 0 when an engine failure was detected")
                .register(registry);
        Gauge.builder("sluice.read.ahead.held", this, m -> m.readAhead(ReadAheadBudget::held))
                .description("bytes compositions have read from their upstreams and not yet written to their"
                        + " clients, taken from the read-ahead budget (server.limits.max-read-ahead)")
                .baseUnit("bytes")
                .register(registry);
        Gauge.builder("sluice.read.ahead.limit", this, m -> m.readAhead(ReadAheadBudget::capacity))
                .description("the read-ahead budget: bytes all compositions together may hold"
                        + " (server.limits.max-read-ahead)")
                .baseUnit("bytes")
                .register(registry);
        Gauge.builder("sluice.read.ahead.waiting", this, m -> m.readAhead(ReadAheadBudget::waiting))
                .description("composition parts waiting, unread, for bytes of the spent read-ahead budget")
                .register(registry);
        FunctionCounter.builder("sluice.part.cache.hits", this, m -> m.partCache(PartCache::hits))
                .description("composition parts answered from the part cache, their upstream not called")
                .register(registry);
        FunctionCounter.builder("sluice.part.cache.misses", this, m -> m.partCache(PartCache::misses))
                .description("lookups of parts with cache: that found no fresh answer")
                .register(registry);
        FunctionCounter.builder("sluice.part.cache.evictions", this, m -> m.partCache(PartCache::evictions))
                .description("part cache entries removed past their freshness or for room (max-part-cache)")
                .register(registry);
        Gauge.builder("sluice.part.cache.size", this, m -> m.partCache(PartCache::bytes))
                .description("what the part cache holds (server.limits.max-part-cache bounds it)")
                .baseUnit("bytes")
                .register(registry);
    }

    /** One reading of the running gateway's part cache, at scrape time; 0 without one. */
    private double partCache(java.util.function.ToLongFunction<PartCache> reading) {
        RunningGateway g = gateway.get();
        return g == null ? 0 : g.partCache().map(reading::applyAsLong).orElse(0L);
    }

    /** One reading of the running gateway's read-ahead budget, at scrape time; 0 without one. */
    private double readAhead(java.util.function.ToLongFunction<ReadAheadBudget> reading) {
        RunningGateway g = gateway.get();
        return g == null ? 0 : g.readAheadBudget().map(reading::applyAsLong).orElse(0L);
    }

    @Override
    public void mirror(MirrorEvent event) {
        mirrors.computeIfAbsent(
                        event,
                        e -> Counter.builder("sluice.mirror.not.copied")
                                .description(
                                        "requests a route's mirror would have copied but did not, or not whole: dropped"
                                                + " (max-in-flight copies outstanding) or body_too_large (longer than max-body)")
                                .tag("route", e.route())
                                .tag("upstream", e.upstream())
                                .tag("reason", e.outcome().label())
                                .register(registry))
                .increment();
    }

    @Override
    public void clientProtocolError(ClientProtocolError kind) {
        protocolErrors
                .computeIfAbsent(
                        kind,
                        k -> Counter.builder("sluice.client.protocol.errors")
                                .description(
                                        "client protocol errors (a TLS handshake failed, plain HTTP on a TLS port, "
                                                + "a renegotiation refused, an h2 protocol error…), by kind")
                                .tag("kind", k.tag())
                                .register(registry))
                .increment();
    }

    @Override
    public void exchange(ExchangeEvent event) {
        RequestKey key = new RequestKey(
                event.route().isEmpty() ? "(none)" : event.route(),
                event.method(),
                event.status() / 100,
                event.aborted());
        requests.computeIfAbsent(
                        key,
                        k -> Timer.builder("sluice.requests")
                                .description(
                                        "requests answered by the gateway, by route, method, status class and outcome")
                                .tag("route", k.route())
                                .tag("method", k.method())
                                .tag("status", k.statusClass() + "xx")
                                .tag("outcome", k.aborted() ? "aborted" : "answered")
                                .serviceLevelObjectives(BUCKETS)
                                .register(registry))
                .record(event.durationNanos(), TimeUnit.NANOSECONDS);
        if (!event.refusedBy().isEmpty()) {
            refusals.computeIfAbsent(
                            new RefusalKey(key.route(), event.refusedBy(), event.status()),
                            k -> Counter.builder("sluice.policy.refusals")
                                    .description(
                                            "requests a route's policy refused, and heads refused before routing, by route, policy and status")
                                    .tag("route", k.route())
                                    .tag("policy", k.policy())
                                    .tag("status", Integer.toString(k.status()))
                                    .register(registry))
                    .increment();
        }
        if (event.grpcStatus() >= 0) { // a gRPC call: the grpc-status its client got
            grpcCalls
                    .computeIfAbsent(
                            new GrpcKey(key.route(), event.grpcStatus()),
                            k -> Counter.builder("sluice.grpc.calls")
                                    .description("gRPC calls by route and the grpc-status their clients got")
                                    .tag("route", k.route())
                                    .tag("grpc_status", Integer.toString(k.status()))
                                    .register(registry))
                    .increment();
        }
    }

    @Override
    public void upstream(UpstreamEvent event) {
        calls.computeIfAbsent(
                        new UpstreamKey(event.upstream(), event.outcome().label()),
                        k -> Timer.builder("sluice.upstream.calls")
                                .description("upstream calls by upstream and outcome, timed to the status line"
                                        + " (or the failure)")
                                .tag("upstream", k.upstream())
                                .tag("outcome", k.outcome())
                                .serviceLevelObjectives(BUCKETS)
                                .register(registry))
                .record(event.latencyNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void part(PartEvent event) {
        if (event.firstByteNanos() >= 0) {
            firstBytes
                    .computeIfAbsent(
                            new FirstByteKey(event.route(), event.upstream()),
                            k -> Timer.builder("sluice.composition.part.first.byte")
                                    .description("composition parts' time from their start to their upstream's"
                                            + " status line")
                                    .tag("route", k.route())
                                    .tag("upstream", k.upstream())
                                    .serviceLevelObjectives(BUCKETS)
                                    .register(registry))
                    .record(event.firstByteNanos(), TimeUnit.NANOSECONDS);
        }
        PartKey key = new PartKey(event.route(), event.upstream(), event.kind().label());
        parts.computeIfAbsent(
                        key,
                        k -> Counter.builder("sluice.composition.parts")
                                .description(
                                        "composition parts by route, upstream and outcome (ok, or why the part is null)")
                                .tag("route", k.route())
                                .tag("upstream", k.upstream())
                                .tag("outcome", k.outcome())
                                .register(registry))
                .increment();
    }
}
