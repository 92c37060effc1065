package dev.sluice.spi;

import dev.sluice.policy.InboundPolicy;

/**
 * Makes a team's own {@link InboundPolicy} from its settings: registered in a jar's {@code
 * META-INF/services/dev.sluice.spi.PolicyFactory} and found by {@link java.util.ServiceLoader}, as
 * Spring Cloud Gateway finds a {@code GatewayFilterFactory} and Kong a plugin. A route names it by
 * {@link #name()}: {@code - custom: {policy: tenant, settings: {allowed: [acme]}}}.
 *
 * <p>{@link #create} is called when a configuration is loaded or checked ({@code sluice check}), to
 * validate the settings, and again for every snapshot the engine compiles from it (at start and at
 * every reload): a policy instance belongs to one snapshot, and a reload's new settings take effect
 * in new instances while requests in flight finish on the old ones. So {@code create} must be cheap
 * and open nothing that needs closing; the factory itself is made once per load and must have a
 * public no-argument constructor.
 */
public interface PolicyFactory {

    /**
     * The name a configuration calls the policy by ({@code custom.policy}); also what observers call
     * it when it refuses (the {@code policy} label of {@code sluice_policy_refusals_total}): a short
     * name such as {@code tenant}, unique on the class path (two factories of one name are a problem
     * for a file that names it).
     */
    String name();

    /**
     * The policy for one route, from the settings of its {@code custom} filter. Bad settings are
     * reported by throwing what {@link PolicySettings} throws ({@link PolicySettings#require}, {@link
     * PolicySettings#invalid}): the configuration is refused with the key's path, among its other
     * problems. The policy's {@link InboundPolicy#admit} runs on the request's thread or event loop
     * and must never block (what must wait returns a {@link dev.sluice.policy.Decision.Pending}).
     */
    InboundPolicy create(PolicySettings settings);
}
