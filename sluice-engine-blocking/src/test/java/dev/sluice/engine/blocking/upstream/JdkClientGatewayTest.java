package dev.sluice.engine.blocking.upstream;

import dev.sluice.config.UpstreamConfig;
import java.util.function.Function;

class JdkClientGatewayTest extends ClientGatewayContract {

    @Override
    protected Function<UpstreamConfig, UpstreamClient> clients() {
        return JdkUpstreamClient::new;
    }
}
