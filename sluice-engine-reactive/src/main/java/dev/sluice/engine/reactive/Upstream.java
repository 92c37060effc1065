package dev.sluice.engine.reactive;

import dev.sluice.config.UpstreamConfig;
import dev.sluice.upstream.Pacer;
import dev.sluice.upstream.UpstreamGuard;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.resolver.AddressResolverGroup;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.EventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import reactor.netty.resources.LoopResources;

/**
 * One upstream: its connection pools ({@link Lane}s) on the gateway's event loops, bounded by {@code
 * max-connections}, {@code max-pending}, {@code acquire-timeout} and {@code idle-timeout}, and its
 * {@link Pacer} when it is paced.
 *
 * <p>The client is Netty's HTTP codec and a small pool of this engine's own, not Reactor Netty's
 * {@code HttpClient}: a composition makes three upstream exchanges per request, and Reactor Netty's
 * per-exchange machinery (its pool's acquire, its connect observers, its receive flux) was a fifth of
 * the gateway's CPU on {@code /compose} (README, design section).
 *
 * <p>Every connection carries a {@link ReadStall} handler that enforces {@code read-timeout}: armed
 * when a request has been sent, it fails the exchange when the upstream sends nothing for that long
 * while the gateway is waiting for bytes.
 */
final class Upstream {

    /** Per-loop pools only when each loop can still have this many connections of its own. */
    static final int MIN_CONNECTIONS_PER_LANE = 8;

    private final UpstreamConfig config;
    private final UpstreamGuard guard;
    private final Endpoint[] endpoints; // by the guard's endpoint index
    private final Pacer pacer; // null when the upstream is not paced
    private final String basePath;
    private H2Upstream h2; // protocol: h2c, else null

    /** Its HTTP/2 client when it is spoken to over h2c, else null (its lanes speak HTTP/1.1). */
    H2Upstream h2() {
        return h2;
    }

    /** One endpoint's lanes. */
    private record Endpoint(Lane[] all, Lane shared, Map<EventExecutor, Lane> lanes, String authority) {}

    /** Its lanes' counts added: for the pool gauges, off the event loops. */
    dev.sluice.engine.PoolStats pool() {
        dev.sluice.engine.PoolStats sum = new dev.sluice.engine.PoolStats(config.name(), 0, 0, 0);
        for (Endpoint e : endpoints) {
            for (Lane lane : e.all()) {
                sum = sum.plus(lane.stats(config.name()));
            }
        }
        return sum;
    }

    private Upstream(UpstreamConfig config, UpstreamGuard guard, Endpoint[] endpoints) {
        this.config = config;
        this.guard = guard;
        this.endpoints = endpoints;
        this.pacer = config.pace().map(Pacer::new).orElse(null);
        this.basePath = config.basePath();
    }

    /**
     * Makes the lanes of each endpoint, and the upstream's {@link UpstreamGuard}. An IP literal is the
     * address as it is; a name is resolved for each new connection by {@code names} (the gateway's DNS
     * resolver, made only when some upstream has a name).
     *
     * <p>With enough connections ({@value #MIN_CONNECTIONS_PER_LANE} per event loop or more), every
     * event loop gets a lane of its own, {@code max-connections} and {@code max-pending} shared out
     * evenly: a request then always gets a connection that lives on its own loop, and its upstream
     * bytes never hop threads. Smaller pools stay one lane, so that {@code max-connections: 1} means
     * one connection.
     */
    static Upstream create(
            UpstreamConfig config,
            LoopResources loops,
            boolean nativeIo,
            AddressResolverGroup<InetSocketAddress> names,
            io.netty.channel.group.ChannelGroup channels,
            java.util.function.LongSupplier ticker) {
        EventLoopGroup group = loops.onServer(nativeIo);
        Class<? extends Channel> type = loops.onChannelClass(SocketChannel.class, group);
        List<EventLoop> executors = new ArrayList<>();
        group.forEach(executor -> executors.add((EventLoop) executor));
        int laneCount = config.maxConnections() >= MIN_CONNECTIONS_PER_LANE * executors.size() ? executors.size() : 1;
        int count = config.resilience().endpoints().size();
        Endpoint[] endpoints = new Endpoint[count];
        dev.sluice.tls.UpstreamTls tls = config.tls()
                .map(t -> dev.sluice.tls.UpstreamTls.create(t, "upstreams." + config.name() + ".tls"))
                .orElse(null); // one context for the upstream: its endpoints' connections share its sessions
        long maxLifetime = config.maxLifetime().map(Duration::toNanos).orElse(Long.MAX_VALUE);
        for (int e = 0; e < count; e++) {
            UpstreamConfig endpoint = config.endpoint(e);
            byte[] literal = NetUtil.createByteArrayFromIpAddressString(endpoint.host());
            InetSocketAddress address;
            AddressResolverGroup<InetSocketAddress> resolver = null; // Bootstrap's default: never asked here
            if (literal != null) {
                address = new InetSocketAddress(ipAddress(literal), endpoint.port());
            } else {
                address = InetSocketAddress.createUnresolved(endpoint.host(), endpoint.port());
                resolver = names;
            }
            Lane[] all = new Lane[laneCount];
            Map<EventExecutor, Lane> lanes = new IdentityHashMap<>();
            for (int i = 0; i < laneCount; i++) {
                all[i] = new Lane(
                        executors.get(i),
                        type,
                        address,
                        resolver,
                        millis(config.connectTimeout()),
                        config.readTimeout().toNanos(),
                        share(config.maxConnections(), laneCount),
                        share(config.maxPending(), laneCount),
                        config.acquireTimeout().toNanos(),
                        config.idleTimeout().toNanos(),
                        maxLifetime,
                        tls,
                        endpoint.host(),
                        channels);
                if (laneCount > 1) {
                    lanes.put(executors.get(i), all[i]);
                }
            }
            endpoints[e] = new Endpoint(all, all[0], lanes, endpoint.authority());
        }
        Upstream made = new Upstream(config, UpstreamGuard.start(config, ticker), endpoints);
        if (config.protocol().multiplexed()) {
            made.h2 = new H2Upstream(made, loops, nativeIo, channels);
        }
        return made;
    }

    private static java.net.InetAddress ipAddress(byte[] literal) {
        try {
            return java.net.InetAddress.getByAddress(literal);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException("an IP literal of " + literal.length + " bytes", e);
        }
    }

    /** Whether some endpoint of {@code config} is a name to resolve, not an IP literal. */
    static boolean hasName(UpstreamConfig config) {
        for (java.net.URI url : config.resilience().endpoints()) {
            if (NetUtil.createByteArrayFromIpAddressString(url.getHost()) == null) {
                return true;
            }
        }
        return false;
    }

    private static int share(int total, int lanes) {
        return lanes == 1 ? total : (total + lanes - 1) / lanes;
    }

    private static int millis(Duration duration) {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, duration.toMillis()));
    }

    /** The lane of {@code endpoint} for a caller on {@code loop}: its own loop's, or the shared one. */
    Lane lane(dev.sluice.upstream.Endpoint endpoint, EventExecutor loop) {
        Endpoint e = endpoints[endpoint.index()];
        if (e.lanes().isEmpty()) {
            return e.shared();
        }
        Lane lane = e.lanes().get(loop);
        return lane != null ? lane : e.shared();
    }

    /** The core's decisions about this upstream's calls: endpoint, breaker, retries. */
    UpstreamGuard guard() {
        return guard;
    }

    UpstreamConfig config() {
        return config;
    }

    String name() {
        return config.name();
    }

    /** The base path without a trailing slash (may be empty). */
    String basePath() {
        return basePath;
    }

    /** The Host header value for a call to {@code endpoint}. */
    String authority(dev.sluice.upstream.Endpoint endpoint) {
        return endpoints[endpoint.index()].authority();
    }

    /** Reserves a start slot: nanoseconds to wait before the call may start (0 when unpaced). */
    long reserveStart() {
        return pacer == null ? 0 : pacer.reserve();
    }

    /** A reload retired it: every lane drains ({@link Lane#drain}). */
    void drain() {
        for (Endpoint e : endpoints) {
            for (Lane lane : e.all()) {
                try {
                    lane.drain();
                } catch (java.util.concurrent.RejectedExecutionException loopGone) {
                    // its event loop stopped (an Error ended it): its connections went with it
                }
            }
        }
    }

    /** Closes the idle connections; busy ones close with their exchanges, or with the event loops. */
    void dispose() {
        guard.close();
        if (h2 != null) {
            h2.dispose();
        }
        for (Endpoint e : endpoints) {
            for (Lane lane : e.all()) {
                try {
                    lane.close();
                } catch (java.util.concurrent.RejectedExecutionException loopGone) {
                    // its event loop stopped (an Error ended it): its connections went with it
                }
            }
        }
    }
}
