package dev.sluice.tck;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.AdminConfig;
import dev.sluice.config.EngineMode;
import dev.sluice.config.FilterConfig;
import dev.sluice.config.GatewayConfig;
import dev.sluice.config.RouteConfig;
import dev.sluice.config.ServerConfig;
import dev.sluice.config.Target;
import dev.sluice.config.Transport;
import dev.sluice.config.UpstreamConfig;
import dev.sluice.engine.Engine;
import dev.sluice.engine.RunningGateway;
import dev.sluice.observe.GatewayObserver;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/** A gateway started in-process by {@code Engine.forMode(mode).start(config)} on 127.0.0.1 and port 0. */
public final class TestGateway implements AutoCloseable {

    private final RunningGateway running;
    private final AtomicBoolean closed = new AtomicBoolean();
    private HttpClient http;

    private TestGateway(RunningGateway running) {
        this.running = running;
    }

    public static Builder builder(EngineMode mode) {
        return new Builder(mode);
    }

    /** The socket transport it runs on: {@link RunningGateway#transport()}. */
    public String transport() {
        return running.transport();
    }

    public int port() {
        return running.port();
    }

    /** The gateway's part cache: {@link RunningGateway#partCache()}, which every engine has. */
    public dev.sluice.compose.PartCache partCache() {
        return running.partCache().orElseThrow(() -> new IllegalStateException("partCache: none (expected: one)"));
    }

    /** The gateway's read-ahead budget: {@link RunningGateway#readAheadBudget()}, which every engine has. */
    public dev.sluice.compose.ReadAheadBudget readAheadBudget() {
        return running.readAheadBudget()
                .orElseThrow(() -> new AssertionError("the engine reports no read-ahead budget (expected: one)"));
    }

    /** The upstream guards of the running configuration: {@link RunningGateway#guards()}. */
    public List<dev.sluice.upstream.UpstreamGuard> guards() {
        return running.guards();
    }

    /** The guard of upstream {@code name}. */
    public dev.sluice.upstream.UpstreamGuard guard(String name) {
        return guards().stream()
                .filter(g -> g.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no guard for upstream " + name + " (expected: one)"));
    }

    /** {@code http://127.0.0.1:<port><target>}. */
    public URI uri(String target) {
        return URI.create("http://127.0.0.1:" + port() + target);
    }

    /** {@code https://127.0.0.1:<port><target>}, for a gateway with {@code server.tls}. */
    public URI httpsUri(String target) {
        return URI.create("https://127.0.0.1:" + port() + target);
    }

    /** {@code 127.0.0.1:<port>}, the Host a client sends. */
    public String authority() {
        return "127.0.0.1:" + port();
    }

    /**
     * A {@code java.net.http} client (HTTP/1.1) for this gateway, made on first use. {@link #close()}
     * closes it, and with it its keep-alive connections, before the gateway.
     */
    public synchronized HttpClient http() {
        if (http == null) {
            http = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(5))
                    .build();
        }
        return http;
    }

    public WireClient wire() {
        return WireClient.to(port());
    }

    /** Closes the gateway once; later calls do nothing. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            synchronized (this) {
                if (http != null) {
                    http.shutdownNow();
                }
            }
            running.close();
        }
    }

    /** The configuration of a test gateway, built from the records. */
    public static final class Builder {
        private final EngineMode mode;
        private final Map<String, UpstreamConfig> upstreams = new LinkedHashMap<>();
        private final List<RouteConfig> routes = new ArrayList<>();
        private int readAhead = 16384;
        private Duration shutdownGrace = Duration.ofSeconds(1);
        private Transport transport = Transport.AUTO;
        private dev.sluice.config.ServerLimits limits = dev.sluice.config.ServerLimits.defaults();
        private GatewayObserver observer = GatewayObserver.NONE;
        private Optional<dev.sluice.config.RedisConfig> redis = Optional.empty();
        private Optional<dev.sluice.config.TlsConfig> tls = Optional.empty();
        private dev.sluice.config.Http2Settings http2 = dev.sluice.config.Http2Settings.defaults();
        private java.util.function.LongSupplier ticker = System::nanoTime;

        private Builder(EngineMode mode) {
            this.mode = requireNonNull(mode, "mode");
        }

        public Builder upstream(String name, URI url) {
            return upstream(Routes.upstream(name, url));
        }

        public Builder upstream(Routes.UpstreamSpec upstream) {
            UpstreamConfig config = upstream.build();
            upstreams.put(config.name(), config);
            return this;
        }

        public Builder route(String id, Routes.MatchSpec match, Routes.ProxySpec proxy, FilterConfig... filters) {
            return route(id, match, proxy.build(), filters);
        }

        public Builder route(String id, Routes.MatchSpec match, Routes.ComposeSpec compose, FilterConfig... filters) {
            return route(id, match, compose.build(), filters);
        }

        public Builder route(String id, Routes.MatchSpec match, Target target, FilterConfig... filters) {
            routes.add(new RouteConfig(id, match.build(), target, List.of(filters)));
            return this;
        }

        /** {@code server.read-ahead}: how far a composition part may read ahead of the client. */
        public Builder readAhead(int bytes) {
            this.readAhead = bytes;
            return this;
        }

        /** {@code server.transport}: the socket transport. */
        public Builder transport(Transport transport) {
            this.transport = requireNonNull(transport, "transport");
            return this;
        }

        /** {@code server.shutdown-grace}: how long in-flight requests may finish on close. */
        /** Who hears of every request and composition part. */
        public Builder observer(GatewayObserver observer) {
            this.observer = requireNonNull(observer, "observer");
            return this;
        }

        /**
         * The core's time for upstream decisions (a breaker's open time, an endpoint's ejection):
         * {@code System::nanoTime} unless a test gives its own {@link ManualTicker} and moves it on.
         */
        public Builder ticker(java.util.function.LongSupplier ticker) {
            this.ticker = requireNonNull(ticker, "ticker");
            return this;
        }

        /** {@code server.limits}: sizes, timeouts, connections, requests in flight. */
        public Builder limits(dev.sluice.config.ServerLimits limits) {
            this.limits = requireNonNull(limits, "limits");
            return this;
        }

        public Builder shutdownGrace(Duration grace) {
            this.shutdownGrace = requireNonNull(grace, "grace");
            return this;
        }

        /** The top-level {@code redis:} section, for rate limits with {@code store: redis}. */
        public Builder redis(dev.sluice.config.RedisConfig redis) {
            this.redis = Optional.of(redis);
            return this;
        }

        /** {@code server.tls}: TLS on the listener. */
        public Builder tls(dev.sluice.config.TlsConfig tls) {
            this.tls = Optional.of(tls);
            return this;
        }

        private boolean requestIdOnAnswers = true;

        /** {@code server.http2}: HTTP/2 on the listener (on by default, as in a configuration file). */
        public Builder http2(dev.sluice.config.Http2Settings http2) {
            this.http2 = requireNonNull(http2, "http2");
            return this;
        }

        /** {@code server.request-id.response}: whether every answer carries its X-Request-Id (default true). */
        public Builder requestIdOnAnswers(boolean on) {
            this.requestIdOnAnswers = on;
            return this;
        }

        public GatewayConfig config() {
            ServerConfig server = new ServerConfig(
                    "127.0.0.1",
                    0,
                    mode,
                    200,
                    200,
                    shutdownGrace,
                    readAhead,
                    transport,
                    limits,
                    tls,
                    http2,
                    requestIdOnAnswers);
            return new GatewayConfig(
                    server,
                    Optional.<AdminConfig>empty(),
                    upstreams,
                    routes,
                    dev.sluice.config.LoggingConfig.defaults(),
                    redis);
        }

        /** Starts the gateway; it accepts connections when this returns. */
        public TestGateway start() {
            GatewayConfig config = config();
            try {
                return new TestGateway(Engine.forMode(mode).start(config, observer, ticker));
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(
                        "gateway: " + mode.key() + " engine did not start (expected: a running gateway)", e);
            }
        }
    }
}
