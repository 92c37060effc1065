package dev.sluice.engine.reactive;

import dev.sluice.config.EngineMode;
import dev.sluice.config.Transport;
import dev.sluice.tck.EngineContract;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The engine contract on Java NIO ({@code server.transport: nio}): what the reactive engine runs on
 * where io_uring is not allowed (a container's default seccomp profile, for one). {@link
 * ReactiveModeContractTest} runs it on {@code auto}, which is io_uring wherever the kernel allows it.
 */
@ExtendWith(LeakGuard.class)
class ReactiveNioModeContractTest extends EngineContract {

    @Override
    protected EngineMode mode() {
        return EngineMode.REACTIVE;
    }

    @Override
    protected Transport transport() {
        return Transport.NIO;
    }
}
