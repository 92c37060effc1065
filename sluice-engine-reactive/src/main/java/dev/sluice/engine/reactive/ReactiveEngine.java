package dev.sluice.engine.reactive;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.EngineMode;
import dev.sluice.config.GatewayConfig;
import dev.sluice.engine.Engine;
import dev.sluice.engine.RunningGateway;
import dev.sluice.observe.GatewayObserver;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * The {@code reactive} engine: a Reactor Netty {@code HttpServer}, and per upstream a pool of Netty
 * HTTP/1.1 connections of the engine's own ({@link Upstream}, {@link Lane}), all on one set of Netty
 * event loops. No request ever holds a thread while it waits.
 */
public final class ReactiveEngine implements Engine {

    @Override
    public Set<EngineMode> modes() {
        return Set.of(EngineMode.REACTIVE);
    }

    @Override
    public RunningGateway start(GatewayConfig config, GatewayObserver observer, LongSupplier ticker) throws Exception {
        requireNonNull(config, "config");
        EngineMode mode = config.server().engine();
        if (mode != EngineMode.REACTIVE) {
            throw new IllegalArgumentException("server.engine: '" + mode.key() + "' (expected: reactive)");
        }
        return ReactiveGateway.startTls(config, observer, null, requireNonNull(ticker, "ticker"));
    }
}
