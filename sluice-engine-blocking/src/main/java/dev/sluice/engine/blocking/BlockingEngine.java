package dev.sluice.engine.blocking;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.EngineMode;
import dev.sluice.config.GatewayConfig;
import dev.sluice.config.Transport;
import dev.sluice.config.UpstreamConfig;
import dev.sluice.engine.Engine;
import dev.sluice.engine.RunningGateway;
import dev.sluice.engine.blocking.upstream.GuardedUpstreamClient;
import dev.sluice.engine.blocking.upstream.H2UpstreamClient;
import dev.sluice.engine.blocking.upstream.Http1UpstreamClient;
import dev.sluice.engine.blocking.upstream.UpstreamClient;
import dev.sluice.observe.GatewayObserver;
import java.util.Set;
import java.util.function.Function;
import java.util.function.LongSupplier;

/** The blocking engine: Jetty 12 core handlers and a blocking upstream client, in {@code virtual} or {@code platform} mode. */
public final class BlockingEngine implements Engine {

    private final Function<LongSupplier, Function<UpstreamConfig, UpstreamClient>> clients;

    /**
     * The engine as the service loader makes it: upstream calls on Sluice's own HTTP/1.1 client (or
     * Jetty's HTTP/2 client for {@code protocol: h2 | h2c}), a pool per endpoint, under the core's {@link dev.sluice.upstream.UpstreamGuard}.
     */
    public BlockingEngine() {
        this.clients = ticker -> GuardedUpstreamClient.over(
                c -> c.protocol().multiplexed() ? new H2UpstreamClient(c) : new Http1UpstreamClient(c), ticker);
    }

    /**
     * An engine with another upstream client, for measuring clients against each other.
     *
     * @param clients makes the client (and its pool) for one upstream
     */
    public BlockingEngine(Function<UpstreamConfig, UpstreamClient> clients) {
        requireNonNull(clients, "clients");
        this.clients = ticker -> clients;
    }

    @Override
    public Set<EngineMode> modes() {
        return Set.of(EngineMode.VIRTUAL, EngineMode.PLATFORM);
    }

    @Override
    public RunningGateway start(GatewayConfig config, GatewayObserver observer, LongSupplier ticker) throws Exception {
        EngineMode mode = config.server().engine();
        if (!modes().contains(mode)) {
            throw new IllegalArgumentException("server.engine: '" + mode.key() + "' (expected: virtual or platform)");
        }
        if (config.server().transport() == Transport.IO_URING) {
            throw new IllegalArgumentException(
                    "server.transport: 'io_uring' needs engine 'reactive' (expected: auto or nio for engine '"
                            + mode.key() + "')");
        }
        return JettyGateway.start(config, clients.apply(requireNonNull(ticker, "ticker")), observer, ticker);
    }
}
