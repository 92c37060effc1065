package dev.sluice.tck;

import dev.sluice.policy.InboundPolicy;
import dev.sluice.spi.PolicyFactory;
import dev.sluice.spi.PolicySettings;

/**
 * {@code tck-fails}: a team's policy with a bug, for {@link PolicySpiContract}. It throws on every
 * request, its exception's message quoting the request's {@code X-Secret} header (which the gateway
 * must not log).
 */
public final class FailingPolicyFactory implements PolicyFactory {

    @Override
    public String name() {
        return "tck-fails";
    }

    @Override
    public InboundPolicy create(PolicySettings settings) {
        settings.allowOnly();
        return request -> {
            throw new IllegalStateException("cannot decide about " + request.header("X-Secret"));
        };
    }
}
