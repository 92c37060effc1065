package dev.sluice.engine.blocking.upstream;

import dev.sluice.config.UpstreamConfig;
import java.util.function.Function;

class JettyClientGatewayTest extends ClientGatewayContract {

    @Override
    protected Function<UpstreamConfig, UpstreamClient> clients() {
        return JettyUpstreamClient::new;
    }
}
