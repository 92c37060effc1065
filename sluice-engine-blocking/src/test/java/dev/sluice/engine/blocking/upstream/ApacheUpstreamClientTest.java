package dev.sluice.engine.blocking.upstream;

import dev.sluice.config.UpstreamConfig;
import dev.sluice.http.UpstreamFailure;

/** The default client against the same contract as the alternatives. */
class ApacheUpstreamClientTest extends UpstreamClientContract {

    @Override
    protected UpstreamClient newClient(UpstreamConfig config) {
        return new ApacheUpstreamClient(config);
    }

    /** Apache reports a cancelled call as a reset; the engine turns it into a timeout either way. */
    @Override
    protected UpstreamFailure cancelledFailure() {
        return UpstreamFailure.RESET;
    }
}
