package dev.sluice.engine;

import dev.sluice.config.EngineMode;
import dev.sluice.config.GatewayConfig;
import dev.sluice.observe.GatewayObserver;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * An engine moves bytes and waits; everything else lives in the core. Engines register through
 * {@link ServiceLoader} ({@code META-INF/services/dev.sluice.engine.Engine}).
 */
public interface Engine {

    /** The modes this engine runs. */
    Set<EngineMode> modes();

    /**
     * Starts a gateway for {@code config} in {@code config.server().engine()} mode and returns once it
     * accepts connections.
     */
    default RunningGateway start(GatewayConfig config) throws Exception {
        return start(config, GatewayObserver.NONE);
    }

    /**
     * Starts a gateway as {@link #start(GatewayConfig)} does, telling {@code observer} of every
     * request and every composition part.
     */
    default RunningGateway start(GatewayConfig config, GatewayObserver observer) throws Exception {
        return start(config, observer, System::nanoTime);
    }

    /**
     * Starts a gateway as {@link #start(GatewayConfig, GatewayObserver)} does, with the core's upstream
     * decisions in time ({@link dev.sluice.upstream.UpstreamGuard}: a breaker's open time, an
     * endpoint's ejection) on {@code ticker}: {@code System::nanoTime}, or a test's, which then moves
     * time on instead of waiting. Sockets' timeouts stay on the transport's own clock.
     *
     * @param ticker a monotonic clock in nanoseconds
     */
    RunningGateway start(GatewayConfig config, GatewayObserver observer, LongSupplier ticker) throws Exception;

    /**
     * The engine on the class path that runs {@code mode}.
     *
     * @throws IllegalStateException when none does
     */
    static Engine forMode(EngineMode mode) {
        for (Engine engine : ServiceLoader.load(Engine.class)) {
            if (engine.modes().contains(mode)) {
                return engine;
            }
        }
        throw new IllegalStateException("engine: no engine on the class path runs '" + mode.key() + "'");
    }
}
