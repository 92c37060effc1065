package dev.sluice.engine.blocking.upstream;

import dev.sluice.config.UpstreamConfig;
import java.util.function.Function;

class Http1ClientGatewayTest extends ClientGatewayContract {

    @Override
    protected Function<UpstreamConfig, UpstreamClient> clients() {
        return Http1UpstreamClient::new;
    }
}
