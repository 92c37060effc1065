package dev.sluice.engine.blocking;

import dev.sluice.config.EngineMode;
import dev.sluice.tck.EngineContract;

/** The engine contract in {@code virtual} mode. */
class VirtualModeContractTest extends EngineContract {
    @Override
    protected EngineMode mode() {
        return EngineMode.VIRTUAL;
    }
}
