package dev.sluice.engine.blocking;

import dev.sluice.config.ConfigChange;
import dev.sluice.config.EngineMode;
import dev.sluice.config.GatewayConfig;
import dev.sluice.config.Http2Settings;
import dev.sluice.config.ServerConfig;
import dev.sluice.config.ServerLimits;
import dev.sluice.config.TlsConfig;
import dev.sluice.config.UpstreamConfig;
import dev.sluice.engine.RunningGateway;
import dev.sluice.engine.blocking.upstream.UpstreamClient;
import dev.sluice.observe.ClientProtocolErrors;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.tls.ServerTls;
import dev.sluice.upstream.PoolRetirement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.eclipse.jetty.alpn.server.ALPNServerConnectionFactory;
import org.eclipse.jetty.http.HttpCompliance;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.http2.RateControl;
import org.eclipse.jetty.http2.WindowRateControl;
import org.eclipse.jetty.http2.frames.ContinuationFrame;
import org.eclipse.jetty.http2.server.AbstractHTTP2ServerConnectionFactory;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A Jetty 12 server (core handlers, no servlet layer) running the gateway in {@code virtual} or
 * {@code platform} mode. The two modes differ only in the threads that run requests and parts.
 *
 * <pre>
 *   mode      request threads                   part (fan-out) threads
 *   virtual   a virtual thread per request      a virtual thread per part
 *   platform  pool of server.platform-threads   pool of server.fanout-threads
 * </pre>
 */
final class JettyGateway implements RunningGateway {

    private final Server server;
    private final ServerConnector connector;
    private final ExecutorService fanout;
    private final ScheduledThreadPoolExecutor timer;
    private final Function<UpstreamConfig, UpstreamClient> clientFactory;
    private final GatewayHandler handler;
    /** The current configuration's clients by upstream name; replaced whole by a reload. */
    private volatile Map<String, UpstreamClient> clients;
    /** Clients a reload retired, not yet closed (closed by the timer, or with the gateway). */
    private final PoolRetirement<UpstreamClient> retired;

    private volatile boolean closed;
    /** The listener's TLS, when {@code server.tls} is set: the core's context, rotated by its watcher. */
    private final ServerTls tls;

    private JettyGateway(
            GatewayConfig config,
            Function<UpstreamConfig, UpstreamClient> clientFactory,
            GatewayObserver observer,
            ServerTls tls,
            java.util.function.LongSupplier ticker) {
        this.tls = tls;
        ServerConfig sc = config.server();
        QueuedThreadPool pool;
        if (sc.engine() == EngineMode.VIRTUAL) {
            pool = new QueuedThreadPool(16, 4);
            pool.setVirtualThreadsExecutor(Executors.newThreadPerTaskExecutor(
                    Thread.ofVirtual().name("sluice-request-", 0).factory()));
            fanout = Executors.newThreadPerTaskExecutor(
                    Thread.ofVirtual().name("sluice-part-", 0).factory());
        } else {
            pool = new QueuedThreadPool(sc.platformThreads() + 4, Math.min(8, sc.platformThreads()));
            ThreadPoolExecutor parts = new ThreadPoolExecutor(
                    sc.fanoutThreads(),
                    sc.fanoutThreads(),
                    60,
                    TimeUnit.SECONDS,
                    new LinkedBlockingQueue<>(),
                    Thread.ofPlatform().name("sluice-part-", 0).daemon(true).factory());
            parts.allowCoreThreadTimeOut(true);
            fanout = parts;
        }
        pool.setName("sluice");
        server = new Server(pool);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        http.setSendDateHeader(false);
        // no per-connection header cache: ~30-60 KB of heap on every client connection (a trie that Jetty
        // keeps per HttpParser), which at 1,000 connections was most of a 96 MB heap
        http.setHeaderCacheSize(0);
        // room for every upstream head the client accepts (ResponseHeadCheck.MAX_HEAD_BYTES) plus what
        // the gateway adds; Jetty's 8 KB default would fail a relayed 10 KB head with its own 500
        http.setResponseHeaderSize(2 * dev.sluice.http.ResponseHeadCheck.MAX_HEAD_BYTES);
        // every path reaches GatewayHandler raw: sluice-core's RequestPath decides what is normalised and
        // what is refused, with the contract's JSON 400, the same in every engine (Jetty's DEFAULT compliance
        // would answer some of them itself, with an HTML page, and let others such as "/a/../b" through)
        http.setUriCompliance(UriCompliance.UNSAFE);
        // heads read as Netty reads them in the reactive engine: a bare LF ending a line is refused (RFC
        // 9112 2.2 lets a server take it; two parsers that disagree on it are how requests get smuggled),
        // and a folded field value (obs-fold) is one line joined by a space (RFC 9112 5.2's other choice)
        http.setHttpCompliance(HttpCompliance.RFC9110
                .without("SLUICE_CLIENTS", HttpCompliance.Violation.LF_HEADER_TERMINATION)
                .with("SLUICE_CLIENTS", HttpCompliance.Violation.MULTILINE_FIELD_VALUE));
        ServerLimits limits = sc.limits();
        // Jetty counts the request line and the header block together: room for both limits, and the
        // core checks the target's own (RequestFraming.checkSize), as Netty's decoder counts them apart
        http.setRequestHeaderSize(limits.maxHeaderBytes() + limits.maxRequestLine());
        if (tls != null) { // the request's scheme is https (X-Forwarded-Proto); no SNI-to-Host check (see below)
            http.addCustomizer(new SecureRequestCustomizer(false, false, -1, false));
        }
        http.addCustomizer(new AuthorityAsHost());
        http.addCustomizer(StrictHttp2.closedStreamsStayClosed());
        timer = new ScheduledThreadPoolExecutor(
                1, Thread.ofPlatform().name("sluice-timer").daemon(true).factory());
        timer.setRemoveOnCancelPolicy(true);
        retired = new PoolRetirement<>(
                UpstreamClient::drain,
                UpstreamClient::close,
                (task, delay) -> timer.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS));
        HeadTimedConnection.Factory http1 =
                new HeadTimedConnection.Factory(http, timer, limits.headerTimeout(), observer);
        connector = new ServerConnector(
                server, 1, -1, connectionFactories(sc.http2(), tls, http, http1, new ClientProtocolErrors(observer)));
        connector.setHost(sc.host());
        connector.setPort(sc.port());
        connector.setAcceptQueueSize(1024);
        // how long an h2 request without a length may wait for its first DATA frame
        connector.addBean(new Http2RequestBody.Wait(limits.headerTimeout()));
        // silent while the gateway waits for the client (next request, body, room to write): closed
        connector.setIdleTimeout(limits.idleTimeout().toMillis());
        server.addConnector(connector);
        // at max-connections the connector stops accepting until one closes (Tomcat's maxConnections)
        server.addBean(new NetworkConnectionLimit(limits.maxConnections(), connector));
        this.clientFactory = clientFactory;
        Map<String, UpstreamClient> started = new LinkedHashMap<>();
        for (UpstreamConfig upstream : config.upstreams().values()) {
            started.put(upstream.name(), clientFactory.apply(upstream));
        }
        clients = started;
        handler = new GatewayHandler(config, started, fanout, timer, observer, server.getByteBufferPool(), ticker);
        GracefulHandler graceful = new GracefulHandler(handler);
        server.setHandler(graceful);
        server.setErrorHandler(new JsonErrorHandler(observer)); // the contract's JSON, never Jetty's HTML page
        server.setStopTimeout(sc.shutdownGrace().toMillis());
    }

    /**
     * What the listener speaks, in the order a connection goes through them:
     *
     * <pre>
     *   plain, http2 off   HTTP/1.1
     *   plain, http2 on    HTTP/1.1, which hands over to h2c on the h2 preface (prior knowledge)
     *                      or on Upgrade: h2c
     *   TLS,   http2 off   TLS, HTTP/1.1
     *   TLS,   http2 on    TLS, ALPN (h2, else http/1.1), then h2 or HTTP/1.1
     * </pre>
     *
     * On TLS, {@link PlainHttpRefusal} comes first: plain HTTP gets {@code 400} instead of a TLS
     * handshake; a failed handshake is counted as a client protocol error.
     */
    private static ConnectionFactory[] connectionFactories(
            Http2Settings settings,
            ServerTls tls,
            HttpConfiguration http,
            HeadTimedConnection.Factory http1,
            ClientProtocolErrors errors) {
        if (!settings.enabled()) {
            return tls == null
                    ? new ConnectionFactory[] {http1}
                    : new ConnectionFactory[] {new PlainHttpRefusal(sslFactory(tls, "http/1.1", errors), errors), http1
                    };
        }
        if (tls == null) {
            return new ConnectionFactory[] {http1, http2(settings, StrictHttp2.cleartext(http, errors))};
        }
        ALPNServerConnectionFactory alpn = new ALPNServerConnectionFactory("h2", "http/1.1");
        alpn.setDefaultProtocol("http/1.1");
        return new ConnectionFactory[] {
            new PlainHttpRefusal(sslFactory(tls, alpn.getProtocol(), errors), errors),
            alpn,
            http2(settings, StrictHttp2.overTls(http, errors)),
            http1
        };
    }

    /**
     * The core's HTTP/2 bounds on Jetty's factory. Jetty's rate control counts, per connection, the
     * frames an attacker sends for nothing (stream resets, empty DATA, PING and SETTINGS floods,
     * CONTINUATION fragments) and closes a connection past the rate: the rapid-reset defence, at the
     * core's resets per window; {@link HeaderBlockBound} adds the core's CONTINUATION bound per header
     * block. The header list, and the header block its CONTINUATIONs accumulate, are capped by {@code
     * HttpConfiguration}'s request header size, as for HTTP/1.1.
     */
    private static AbstractHTTP2ServerConnectionFactory http2(
            Http2Settings settings, AbstractHTTP2ServerConnectionFactory factory) {
        factory.setMaxConcurrentStreams(settings.maxConcurrentStreams());
        factory.setInitialStreamRecvWindow(settings.streamWindow());
        factory.setInitialSessionRecvWindow(settings.connectionWindow());
        factory.setConnectProtocolEnabled(false); // no WebSocket over h2 (RFC 8441): clients use HTTP/1.1's Upgrade
        java.time.Duration window = java.time.Duration.ofSeconds(settings.resetWindowSeconds());
        factory.setRateControlFactory(new RateControl.Factory() {
            @Override
            public RateControl newRateControl(org.eclipse.jetty.io.EndPoint endPoint) {
                return new HeaderBlockBound(new WindowRateControl(settings.maxResetsPerWindow(), window));
            }
        });
        return factory;
    }

    /**
     * {@link Http2Settings#MAX_HEADER_BLOCK_FRAMES} on Jetty, whose parser bounds a header block's
     * bytes but not its CONTINUATION frames (only the connection's rate does). The parser reports each
     * CONTINUATION to the connection's rate control (a frame that spans reads once per read, which only
     * counts it sooner); the one that would make the block longer than the bound is refused, and Jetty
     * closes the connection with GOAWAY ENHANCE_YOUR_CALM. One per connection, called by its parser,
     * one read at a time.
     */
    static final class HeaderBlockBound implements RateControl {

        private final RateControl rate;
        /** The CONTINUATIONs of the header block being parsed; its HEADERS frame is its first frame. */
        private int continuations;

        HeaderBlockBound(RateControl rate) {
            this.rate = rate;
        }

        @Override
        public boolean onEvent(Object event) {
            if (event instanceof ContinuationFrame continuation) {
                if (++continuations >= Http2Settings.MAX_HEADER_BLOCK_FRAMES) {
                    return false;
                }
                if (continuation.isEndHeaders()) {
                    continuations = 0;
                }
            }
            return rate.onEvent(event);
        }
    }

    /** Jetty's TLS factory: {@link RenegotiationRefusal}, which also counts failed handshakes. */
    private static SslConnectionFactory sslFactory(ServerTls tls, String next, ClientProtocolErrors errors) {
        return new RenegotiationRefusal(sslContextFactory(tls), next, errors);
    }

    /**
     * Jetty's TLS on the core's context: the protocols, cipher suites and client authentication the
     * core chose, exactly (Jetty's own inclusions and exclusions cleared); the certificate is chosen by
     * the core's key manager, so Jetty's SNI host check, which only knows key stores, is off.
     */
    private static SslContextFactory.Server sslContextFactory(ServerTls tls) {
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        ssl.setSslContext(tls.context());
        ssl.setExcludeProtocols();
        ssl.setIncludeProtocols(tls.protocols());
        ssl.setExcludeCipherSuites();
        ssl.setIncludeCipherSuites(tls.cipherSuites());
        ssl.setUseCipherSuitesOrder(true);
        ssl.setRenegotiationAllowed(false);
        ssl.setSniRequired(false);
        ssl.setNeedClientAuth(tls.clientAuth() == TlsConfig.ClientAuth.REQUIRE);
        ssl.setWantClientAuth(tls.clientAuth() == TlsConfig.ClientAuth.OPTIONAL);
        return ssl;
    }

    /** @param ticker local rate limits' clock (the engine's start parameter) */
    static JettyGateway start(
            GatewayConfig config,
            Function<UpstreamConfig, UpstreamClient> clients,
            GatewayObserver observer,
            java.util.function.LongSupplier ticker)
            throws Exception {
        ServerTls tls = config.server().tls().isPresent()
                ? ServerTls.open(config.server().tls().get())
                : null;
        JettyGateway gateway;
        try {
            gateway = new JettyGateway(config, clients, observer, tls, ticker);
        } catch (RuntimeException e) {
            if (tls != null) {
                tls.close();
            }
            throw e;
        }
        try {
            gateway.server.start();
        } catch (Exception e) {
            gateway.close();
            throw e;
        }
        return gateway;
    }

    @Override
    public java.util.List<dev.sluice.engine.PoolStats> pools() {
        return clients.values().stream()
                .flatMap(client -> client.pool().stream())
                .toList();
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
        return clients.values().stream()
                .filter(c -> c instanceof dev.sluice.engine.blocking.upstream.GuardedUpstreamClient)
                .map(c -> ((dev.sluice.engine.blocking.upstream.GuardedUpstreamClient) c).guard())
                .toList();
    }

    @Override
    public int port() {
        return connector.getLocalPort();
    }

    /** Jetty's selectors and the JDK's sockets are Java NIO. */
    @Override
    public String transport() {
        return "nio";
    }

    /** Jetty recovers from a failed request or selector itself; a server that stopped cannot serve. */
    @Override
    public java.util.Optional<String> failure() {
        return closed || server.isRunning()
                ? java.util.Optional.empty()
                : java.util.Optional.of("the Jetty server is " + server.getState());
    }

    @Override
    public synchronized void reload(GatewayConfig next, ConfigChange change) {
        if (closed) {
            throw new IllegalStateException("the gateway is closed");
        }
        ConfigChange.Swapped<UpstreamClient> swapped =
                change.swap(clients, next, clientFactory, pools -> handler.reload(next, pools), UpstreamClient::close);
        clients = swapped.pools();
        retired.retire(swapped.retired());
        if (tls != null) {
            tls.reload(); // certificates the file watcher cannot see (behind a symlink, on NFS) come in on a reload too
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.stop();
        } catch (Exception ignored) {
            // stopping is best effort: what follows frees the rest
        } finally {
            fanout.shutdownNow();
            timer.shutdownNow();
            clients.values().forEach(UpstreamClient::close);
            retired.closeAll();
            if (handler != null) {
                handler.closeResources();
            }
            if (tls != null) {
                tls.close();
            }
        }
    }
}
