package dev.sluice.engine.reactive;

import dev.sluice.config.UpstreamConfig;
import dev.sluice.policy.Pacer;
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
    private final Lane[] all;
    private final Lane shared; // the only lane, or the lane of a caller off the event loops
    private final Map<EventExecutor, Lane> lanes; // empty when there is one shared lane
    private final Pacer pacer; // null when the upstream is not paced
    private final String basePath;
    private final String authority;

    /** Its lanes' counts added: for the pool gauges, off the event loops. */
    dev.sluice.engine.PoolStats pool() {
        dev.sluice.engine.PoolStats sum = new dev.sluice.engine.PoolStats(config.name(), 0, 0, 0);
        for (Lane lane : all) {
            sum = sum.plus(lane.stats(config.name()));
        }
        return sum;
    }

    private Upstream(UpstreamConfig config, Lane[] all, Map<EventExecutor, Lane> lanes) {
        this.config = config;
        this.all = all;
        this.shared = all[0];
        this.lanes = lanes;
        this.pacer = config.pace().map(Pacer::new).orElse(null);
        this.basePath = config.basePath();
        this.authority = config.authority();
    }

    /**
     * Makes the lanes. An IP literal is the address as it is; a name is resolved for each new
     * connection by {@code names} (the gateway's DNS resolver, made only when some upstream has a name).
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
            AddressResolverGroup<InetSocketAddress> names) {
        byte[] literal = NetUtil.createByteArrayFromIpAddressString(config.host());
        InetSocketAddress address;
        AddressResolverGroup<InetSocketAddress> resolver = null; // Bootstrap's default: never asked here
        if (literal != null) {
            address = new InetSocketAddress(ipAddress(literal), config.port());
        } else {
            address = InetSocketAddress.createUnresolved(config.host(), config.port());
            resolver = names;
        }
        EventLoopGroup group = loops.onServer(nativeIo);
        Class<? extends Channel> type = loops.onChannelClass(SocketChannel.class, group);
        List<EventLoop> executors = new ArrayList<>();
        group.forEach(executor -> executors.add((EventLoop) executor));
        int laneCount = config.maxConnections() >= MIN_CONNECTIONS_PER_LANE * executors.size() ? executors.size() : 1;
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
                    config.idleTimeout().toNanos());
            if (laneCount > 1) {
                lanes.put(executors.get(i), all[i]);
            }
        }
        return new Upstream(config, all, lanes);
    }

    private static java.net.InetAddress ipAddress(byte[] literal) {
        try {
            return java.net.InetAddress.getByAddress(literal);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException("an IP literal of " + literal.length + " bytes", e);
        }
    }

    /** Whether {@code host} is a name to resolve, not an IP literal. */
    static boolean isName(String host) {
        return NetUtil.createByteArrayFromIpAddressString(host) == null;
    }

    private static int share(int total, int lanes) {
        return lanes == 1 ? total : (total + lanes - 1) / lanes;
    }

    private static int millis(Duration duration) {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, duration.toMillis()));
    }

    /** The lane of a caller on {@code loop}: its own loop's, or the shared one. */
    Lane lane(EventExecutor loop) {
        if (lanes.isEmpty()) {
            return shared;
        }
        Lane lane = lanes.get(loop);
        return lane != null ? lane : shared;
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

    /** The Host header value for this upstream. */
    String authority() {
        return authority;
    }

    /** Reserves a start slot: nanoseconds to wait before the call may start (0 when unpaced). */
    long reserveStart() {
        return pacer == null ? 0 : pacer.reserve();
    }

    /** Closes the idle connections; busy ones close with their exchanges, or with the event loops. */
    void dispose() {
        for (Lane lane : all) {
            try {
                lane.close();
            } catch (java.util.concurrent.RejectedExecutionException loopGone) {
                // its event loop stopped (an Error ended it): its connections went with it
            }
        }
    }
}
