package dev.sluice.engine.blocking;

import dev.sluice.config.EngineMode;
import dev.sluice.tck.EngineContract;

/** The engine contract in {@code virtual} mode. */
class VirtualModeContractTest extends EngineContract {
    @Override
    protected EngineMode mode() {
        return EngineMode.VIRTUAL;
    }

    /**
     * gRPC and HTTP/2 upstreams, this engine's only: the reactive engine refuses {@code h2}/{@code h2c}
     * upstreams until its client is built, so the group is not in {@link EngineContract} yet.
     */
    @org.junit.jupiter.api.Nested
    class Grpc extends dev.sluice.tck.GrpcContract {
        @Override
        protected EngineMode mode() {
            return VirtualModeContractTest.this.mode();
        }
    }
}
