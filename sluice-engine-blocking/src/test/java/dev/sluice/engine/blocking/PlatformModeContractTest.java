package dev.sluice.engine.blocking;

import dev.sluice.config.EngineMode;
import dev.sluice.tck.EngineContract;

/** The engine contract in {@code platform} mode. */
class PlatformModeContractTest extends EngineContract {
    @Override
    protected EngineMode mode() {
        return EngineMode.PLATFORM;
    }

    /**
     * gRPC and HTTP/2 upstreams, this engine's only: the reactive engine refuses {@code h2}/{@code h2c}
     * upstreams until its client is built, so the group is not in {@link EngineContract} yet.
     */
    @org.junit.jupiter.api.Nested
    class Grpc extends dev.sluice.tck.GrpcContract {
        @Override
        protected EngineMode mode() {
            return PlatformModeContractTest.this.mode();
        }
    }
}
