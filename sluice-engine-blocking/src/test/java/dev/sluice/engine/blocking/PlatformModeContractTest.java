package dev.sluice.engine.blocking;

import dev.sluice.config.EngineMode;
import dev.sluice.tck.EngineContract;

/** The engine contract in {@code platform} mode. */
class PlatformModeContractTest extends EngineContract {
    @Override
    protected EngineMode mode() {
        return EngineMode.PLATFORM;
    }
}
