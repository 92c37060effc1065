package dev.sluice.engine.reactive;

import dev.sluice.config.ConfigChange;
import dev.sluice.config.ConfigException;
import dev.sluice.config.GatewayConfig;
import dev.sluice.config.Http2Settings;
import dev.sluice.config.ServerConfig;
import dev.sluice.config.ServerLimits;
import dev.sluice.config.Transport;
import dev.sluice.config.UpstreamConfig;
import dev.sluice.engine.RunningGateway;
import dev.sluice.observe.ClientProtocolErrors;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.tls.ServerTls;
import dev.sluice.upstream.PoolRetirement;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ReflectiveChannelFactory;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.IdentityCipherSuiteFilter;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.resolver.AddressResolverGroup;
import io.netty.resolver.HostsFileEntriesResolver;
import io.netty.resolver.dns.DnsAddressResolverGroup;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import reactor.netty.DisposableServer;
import reactor.netty.http.HttpProtocol;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;

/**
 * A running reactive gateway: one set of event loops shared by the server and every upstream
 * client (a client connection opened while handling a request lands on that request's loop), the
 * bound server, and one connection pool per upstream.
 */
final class ReactiveGateway implements RunningGateway {

    private static final Duration RESOURCE_TIMEOUT = Duration.ofSeconds(10);

    /** A loop that ran no task for this long is stuck (no gateway task runs that long on a loop). */
    static final Duration STUCK_AFTER = Duration.ofSeconds(10);

    private final LoopResources loops;
    private final boolean nativeIo;
    private final HostsFileEntriesResolver hosts;
    private final GatewayHandler handler;
    /** The current configuration's upstreams by name; replaced whole by a reload. */
    private volatile Map<String, Upstream> upstreams;
    /** Upstreams a reload retired, not yet disposed (by a loop's timer, or with the gateway). */
    private final PoolRetirement<Upstream> retired;

    private final ChannelGroup connections;
    /**
     * Every upstream connection open, idle or busy, and the name resolvers' channels: closed, and
     * their closes awaited, before the loops stop.
     */
    private final ChannelGroup upstreamChannels;

    private final DisposableServer server;
    private final Duration grace;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Made when the first upstream named by a host name appears (at start or on a reload). */
    private volatile AddressResolverGroup<InetSocketAddress> resolver;

    private final LoopWatch watch;
    /** The listener's TLS, when {@code server.tls} is set: the core's context, rotated by its watcher. */
    private final ServerTls tls;

    private final LongSupplier ticker; // the upstream guards' time: System::nanoTime, or a test's

    private ReactiveGateway(
            LoopResources loops,
            Map<String, Upstream> upstreams,
            ChannelGroup connections,
            ChannelGroup upstreamChannels,
            DisposableServer server,
            Duration grace,
            AddressResolverGroup<InetSocketAddress> resolver,
            boolean nativeIo,
            HostsFileEntriesResolver hosts,
            GatewayHandler handler,
            ServerTls tls,
            LongSupplier ticker) {
        this.tls = tls;
        this.ticker = ticker;
        this.resolver = resolver;
        this.loops = loops;
        this.upstreams = upstreams;
        this.connections = connections;
        this.upstreamChannels = upstreamChannels;
        this.server = server;
        this.grace = grace;
        this.nativeIo = nativeIo;
        this.retired = new PoolRetirement<>(
                Upstream::drain,
                Upstream::dispose,
                (task, delay) -> loops.onServer(nativeIo).next().schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS));
        this.hosts = hosts;
        this.handler = handler;
        this.watch = new LoopWatch(loops.onServer(nativeIo), STUCK_AFTER.toSeconds(), TimeUnit.SECONDS);
    }

    static ReactiveGateway start(GatewayConfig config, GatewayObserver observer) {
        return start(config, observer, null);
    }

    /**
     * @param hosts what answers for names before DNS does (the system's hosts file when null; tests
     *     give their own)
     */
    static ReactiveGateway start(GatewayConfig config, GatewayObserver observer, HostsFileEntriesResolver hosts) {
        try {
            return startTls(config, observer, hosts, System::nanoTime);
        } catch (ConfigException | IOException e) {
            throw new IllegalStateException("server.tls: " + e.getMessage(), e);
        }
    }

    /** Starts with the listener's TLS read from {@code server.tls}, when set. */
    static ReactiveGateway startTls(
            GatewayConfig config, GatewayObserver observer, HostsFileEntriesResolver hosts, LongSupplier ticker)
            throws ConfigException, IOException {
        ServerTls tls = config.server().tls().isPresent()
                ? ServerTls.open(config.server().tls().get())
                : null;
        try {
            return start(config, observer, hosts, tls, ticker);
        } catch (RuntimeException e) {
            if (tls != null) {
                tls.close();
            }
            throw e;
        }
    }

    /**
     * Netty's TLS on the core's context: the JDK's {@code SSLEngine} with the protocols, cipher suites
     * and client authentication the core chose; the core's key manager chooses the certificate. ALPN
     * offers {@code alpn} ({@code h2} first when HTTP/2 is on; a client that names neither gets
     * HTTP/1.1).
     */
    private static SslContext sslContext(ServerTls tls, List<String> alpn) {
        ClientAuth clientAuth = switch (tls.clientAuth()) {
            case NONE -> ClientAuth.NONE;
            case OPTIONAL -> ClientAuth.OPTIONAL;
            case REQUIRE -> ClientAuth.REQUIRE;
        };
        return new JdkSslContext(
                tls.context(),
                false,
                List.of(tls.cipherSuites()),
                IdentityCipherSuiteFilter.INSTANCE,
                alpn.contains("h2")
                        ? new ApplicationProtocolConfig(
                                ApplicationProtocolConfig.Protocol.ALPN,
                                ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                                ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                                alpn)
                        : null, // HTTP/1.1 only: no ALPN
                clientAuth,
                tls.protocols(),
                false);
    }

    private static ReactiveGateway start(
            GatewayConfig config,
            GatewayObserver observer,
            HostsFileEntriesResolver hosts,
            ServerTls tls,
            LongSupplier ticker) {
        ServerConfig settings = config.server();
        int workers = Math.max(1, Runtime.getRuntime().availableProcessors());
        LoopResources loops = LoopResources.create("sluice-reactive", workers, true);
        boolean nativeIo = nativeIo(settings.transport());
        ServerLimits limits = settings.limits();
        ConnectionGuard.Connections open = new ConnectionGuard.Connections(limits.maxConnections());
        Map<String, Upstream> upstreams = new LinkedHashMap<>();
        ChannelGroup connections = new DefaultChannelGroup("sluice-reactive", GlobalEventExecutor.INSTANCE);
        ChannelGroup upstreamChannels = new DefaultChannelGroup("sluice-upstreams", GlobalEventExecutor.INSTANCE);
        AddressResolverGroup<InetSocketAddress> resolver =
                config.upstreams().values().stream().anyMatch(Upstream::hasName)
                        ? resolver(loops, nativeIo, hosts, upstreamChannels)
                        : null; // IP literals only: no resolver, no datagram channels
        GatewayHandler handler = null;
        ClientErrors clientErrors = new ClientErrors(new ClientProtocolErrors(observer));
        try {
            for (UpstreamConfig upstream : config.upstreams().values()) {
                upstreams.put(
                        upstream.name(),
                        Upstream.create(upstream, loops, nativeIo, resolver, upstreamChannels, ticker));
            }
            handler = new GatewayHandler(config, upstreams, observer, ticker);
            Http2Settings h2 = settings.http2();
            HttpServer http = HttpServer.create();
            if (tls != null) {
                SslContext ssl = sslContext(tls, h2.protocols(true));
                // a handshake not done within header-timeout is closed, as a head not whole by then is
                http = http.secure(spec -> spec.sslContext(ssl).handshakeTimeout(limits.headerTimeout()));
            }
            if (h2.enabled()) {
                http = http.protocol(tls != null ? HttpProtocol.H2 : HttpProtocol.H2C, HttpProtocol.HTTP11)
                        .http2Settings(spec -> spec.maxConcurrentStreams(h2.maxConcurrentStreams())
                                .initialWindowSize(h2.streamWindow())
                                // the header list, pseudo-headers (the path) included: both HTTP/1.1 limits
                                .maxHeaderListSize(limits.maxHeaderBytes() + limits.maxRequestLine())
                                // the rapid-reset defence: a connection past it is closed (GOAWAY)
                                .maxDecodedRstFramesPerWindow(h2.maxResetsPerWindow(), h2.resetWindowSeconds()));
            }
            DisposableServer server = http.runOn(loops, nativeIo)
                    .host(settings.host())
                    .port(settings.port())
                    .channelGroup(connections)
                    .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true) // RequestHeadCheck closes it
                    .httpRequestDecoder(decoder -> decoder
                            // the request line's limit is the core's to check on the target
                            // (RequestFraming.checkSize): room here for the method and version around it
                            .maxInitialLineLength(limits.maxRequestLine() + 64)
                            .maxHeaderSize(limits.maxHeaderBytes()))
                    .doOnChannelInit((connectionObserver, channel, remote) ->
                            ClientPipeline.install(channel.pipeline(), limits, open, observer, clientErrors))
                    .doOnConnection(connection -> ClientPipeline.installPerRequest(connection, clientErrors))
                    .handle(handler)
                    .bindNow();
            return new ReactiveGateway(
                    loops,
                    upstreams,
                    connections,
                    upstreamChannels,
                    server,
                    settings.shutdownGrace(),
                    resolver,
                    nativeIo,
                    hosts,
                    handler,
                    tls,
                    ticker);
        } catch (RuntimeException e) {
            if (handler != null) {
                handler.close();
            }
            release(upstreams.values(), upstreamChannels, loops, resolver);
            throw e;
        }
    }

    /**
     * Upstream names are resolved for each new connection, by Netty's asynchronous DNS resolver on
     * the connection's own event loop (never a blocking look-up on a loop), which caches each answer
     * for its TTL: a name whose address changes is followed by the connections opened after the
     * change. An address written as an IP literal is used as it is. Each resolver's channels join
     * {@code channels}, whose closes the stop awaits: on io_uring a UDP channel gives its armed read's
     * buffer back only when that read's cancellation completes, after its loop had stopped if nothing
     * waited for it.
     */
    private static AddressResolverGroup<InetSocketAddress> resolver(
            LoopResources loops, boolean nativeIo, HostsFileEntriesResolver hosts, ChannelGroup channels) {
        EventLoopGroup group = loops.onClient(nativeIo);
        ChannelFactory<? extends DatagramChannel> datagrams =
                new ReflectiveChannelFactory<>(loops.onChannelClass(DatagramChannel.class, group));
        ChannelFactory<? extends SocketChannel> streams =
                new ReflectiveChannelFactory<>(loops.onChannelClass(SocketChannel.class, group));
        DnsNameResolverBuilder builder = new DnsNameResolverBuilder()
                .datagramChannelFactory(() -> joined(channels, datagrams.newChannel()))
                .socketChannelFactory(() -> joined(channels, streams.newChannel()));
        if (hosts != null) {
            builder.hostsFileEntriesResolver(hosts);
        }
        return new DnsAddressResolverGroup(builder);
    }

    private static <C extends io.netty.channel.Channel> C joined(ChannelGroup channels, C channel) {
        channels.add(channel);
        return channel;
    }

    /**
     * Whether the event loops are io_uring's: for {@code auto}, wherever the kernel allows it (it may
     * not: a container's seccomp profile, {@code kernel.io_uring_disabled}, a kernel before 5.x);
     * {@code io_uring} refuses to start without it. Reactor Netty's native loops are io_uring's here,
     * since epoll's jar is not on the class path. Server and clients run on the same choice: the
     * upstream lanes are keyed by the server's event loops.
     */
    private static boolean nativeIo(Transport transport) {
        return switch (transport) {
            case NIO -> false;
            case AUTO -> IoUring.isAvailable();
            case IO_URING -> {
                if (!IoUring.isAvailable()) {
                    Throwable cause = IoUring.unavailabilityCause();
                    throw new IllegalStateException(
                            "server.transport: io_uring is not available here ("
                                    + (cause == null ? "unknown cause" : cause.getMessage())
                                    + ") (expected: auto or nio)",
                            cause);
                }
                yield true;
            }
        };
    }

    @Override
    public synchronized void reload(GatewayConfig next, ConfigChange change) {
        if (closed.get()) {
            throw new IllegalStateException("the gateway is closed");
        }
        if (resolver == null && next.upstreams().values().stream().anyMatch(Upstream::hasName)) {
            resolver = resolver(loops, nativeIo, hosts, upstreamChannels);
        }
        AddressResolverGroup<InetSocketAddress> names = resolver;
        ConfigChange.Swapped<Upstream> swapped = change.swap(
                upstreams,
                next,
                upstream -> Upstream.create(upstream, loops, nativeIo, names, upstreamChannels, ticker),
                pools -> handler.reload(next, pools),
                Upstream::dispose);
        upstreams = swapped.pools();
        retired.retire(swapped.retired());
        if (tls != null) {
            tls.reload(); // certificates the file watcher cannot see (behind a symlink, on NFS) come in on a reload too
        }
    }

    @Override
    public java.util.Optional<String> failure() {
        return closed.get() ? java.util.Optional.empty() : watch.failure();
    }

    /** The event loops, for tests that stop or block one. */
    LoopResources loops() {
        return loops;
    }

    @Override
    public java.util.List<dev.sluice.engine.PoolStats> pools() {
        return upstreams.values().stream().map(Upstream::pool).toList();
    }

    @Override
    public java.util.Optional<dev.sluice.compose.PartCache> partCache() {
        return handler.partCache();
    }

    @Override
    public java.util.Optional<dev.sluice.compose.ReadAheadBudget> readAheadBudget() {
        return java.util.Optional.of(handler.readAheadBudget());
    }

    @Override
    public java.util.List<dev.sluice.upstream.UpstreamGuard> guards() {
        return upstreams.values().stream().map(Upstream::guard).toList();
    }

    @Override
    public int port() {
        return server.port();
    }

    /**
     * {@code io_uring} or {@code nio}, read off the listening channel's class ({@code
     * IoUringServerSocketChannel}, {@code NioServerSocketChannel}): what Reactor Netty really chose.
     */
    @Override
    public String transport() {
        String name = server.channel().getClass().getSimpleName();
        return name.startsWith("IoUring") ? "io_uring" : name.startsWith("Nio") ? "nio" : name;
    }

    /**
     * Stops accepting, lets in-flight requests finish within {@code server.shutdown-grace}, closes
     * whatever is still open after it, then frees the pools and the event loops.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            server.disposeNow(grace.isZero() || grace.isNegative() ? Duration.ofMillis(1) : grace);
        } catch (RuntimeException gracePassedOrLoopGone) { // the grace passed, or a loop died under it
            // closed below
        } finally {
            // whatever is still open closes now, on its loops, before they stop: a loop that stops
            // under an open channel logs its close as a rejected task (seen on listeners offering h2c,
            // whose idle HTTP/1.1 connections could still be open after disposeNow)
            closeAll(connections, RESOURCE_TIMEOUT);
            handler.close();
            if (tls != null) {
                tls.close();
            }
            retired.closeAll(); // disposed: their lanes close on the loops, before release stops them
            release(new ArrayList<>(upstreams.values()), upstreamChannels, loops, resolver);
        }
    }

    /**
     * Closes every channel of the group and waits, up to {@code timeout} in all, until each one has
     * closed: on the channels' own close futures, not on the promises {@code close()} returns. An h2
     * connection's close promise is held by Netty's {@code Http2ConnectionHandler} for a graceful
     * shutdown (a GOAWAY, then its streams' ends) and completed only when a stream it ends itself
     * closes, or when its graceful timeout passes: a connection that closes another way (the GOAWAY's
     * write failing on a socket the client already closed, its streams then dropped) is closed at once,
     * while its promise waited out the timeout (the 10 s seen after h2 calls whose request half the
     * upstream reset, their client gone).
     */
    static void closeAll(ChannelGroup group, Duration timeout) {
        List<io.netty.channel.Channel> open = new ArrayList<>(group);
        group.close();
        long deadline = System.nanoTime() + timeout.toNanos();
        for (io.netty.channel.Channel channel : open) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !channel.closeFuture().awaitUninterruptibly(left, TimeUnit.NANOSECONDS)) {
                return; // the loops' own shutdown closes what is left
            }
        }
    }

    private static void release(
            java.util.Collection<Upstream> upstreams,
            ChannelGroup upstreamChannels,
            LoopResources loops,
            AddressResolverGroup<InetSocketAddress> resolver) {
        for (Upstream upstream : upstreams) {
            upstream.dispose(); // its idle connections, on their loops
        }
        if (resolver != null) {
            resolver.close(); // begins closing its channels, on their loops
        }
        // every upstream connection still open (busy ones too: the grace has passed) and every
        // resolver's channel closes now, and its close (on io_uring, a completion the loop waits for)
        // is done before the loops stop: a channel whose close or deregistration was still queued when
        // its loop stopped logged "Can't invoke task later as EventLoop rejected it" with a stack trace
        closeAll(upstreamChannels, RESOURCE_TIMEOUT);
        try {
            loops.disposeLater(Duration.ZERO, RESOURCE_TIMEOUT).block(RESOURCE_TIMEOUT.plusSeconds(1));
        } catch (RuntimeException stuck) { // a loop that never ends its task: the process exit ends it
            org.slf4j.LoggerFactory.getLogger(ReactiveGateway.class)
                    .warn("event loops did not stop within {}: {}", RESOURCE_TIMEOUT, stuck.toString());
        }
    }
}
