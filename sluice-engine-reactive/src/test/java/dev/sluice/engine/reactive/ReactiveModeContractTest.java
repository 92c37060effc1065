package dev.sluice.engine.reactive;

import dev.sluice.config.EngineMode;
import dev.sluice.tck.EngineContract;
import org.junit.jupiter.api.extension.ExtendWith;

/** The engine contract, run against the reactive mode with BlockHound and paranoid leak detection. */
@ExtendWith(LeakGuard.class)
class ReactiveModeContractTest extends EngineContract {

    @Override
    protected EngineMode mode() {
        return EngineMode.REACTIVE;
    }
}
