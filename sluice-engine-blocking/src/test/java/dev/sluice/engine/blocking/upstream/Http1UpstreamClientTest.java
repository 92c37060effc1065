package dev.sluice.engine.blocking.upstream;

import dev.sluice.config.UpstreamConfig;

/** Sluice's own HTTP/1.1 client against the contract every upstream client meets. */
class Http1UpstreamClientTest extends UpstreamClientContract {

    @Override
    protected UpstreamClient newClient(UpstreamConfig config) {
        return new Http1UpstreamClient(config);
    }
}
