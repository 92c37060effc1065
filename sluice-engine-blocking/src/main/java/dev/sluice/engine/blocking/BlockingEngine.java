package dev.sluice.engine.blocking;

import dev.sluice.config.EngineMode;
import dev.sluice.config.GatewayConfig;
import dev.sluice.engine.Engine;
import dev.sluice.engine.RunningGateway;
import java.util.Set;

/** The blocking engine: Jetty 12 core handlers and a blocking upstream client, in {@code virtual} or {@code platform} mode. */
public final class BlockingEngine implements Engine {

  @Override
  public Set<EngineMode> modes() {
    return Set.of(EngineMode.VIRTUAL, EngineMode.PLATFORM);
  }

  @Override
  public RunningGateway start(GatewayConfig config) throws Exception {
    EngineMode mode = config.server().engine();
    if (!modes().contains(mode)) {
      throw new IllegalArgumentException("server.engine: '" + mode.key() + "' (expected: virtual or platform)");
    }
    return JettyGateway.start(config);
  }
}
