package dev.sluice.engine;

import dev.sluice.config.EngineMode;
import dev.sluice.config.GatewayConfig;
import dev.sluice.observe.GatewayObserver;
import java.util.ServiceLoader;
import java.util.Set;

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
    RunningGateway start(GatewayConfig config, GatewayObserver observer) throws Exception;

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
