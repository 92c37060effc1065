package com.acme.tenant;

import dev.sluice.policy.Decision;
import dev.sluice.policy.InboundPolicy;
import dev.sluice.policy.UpstreamEdits;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Lets a request through only when its {@code X-Tenant} header names an allowed tenant, and tells
 * the upstream that tenant's plan in {@code X-Tenant-Plan} (a client's own {@code X-Tenant-Plan} is
 * never forwarded: {@link UpstreamEdits} drops the client's copy of every header it sets). Anything
 * else is {@code 403} with the gateway's JSON error body. Later policies of the route read the tenant
 * as the attribute {@code tenant}.
 *
 * <p>Each decision is made once, when the policy is: a request costs one header read and one look-up.
 */
final class TenantPolicy implements InboundPolicy {

    static final String TENANT = "X-Tenant";
    static final String PLAN = "X-Tenant-Plan";

    private static final Decision NO_TENANT = new Decision.Reject(
            403, "forbidden", "this route needs an " + TENANT + " header naming your tenant", Map.of());
    private static final Decision NOT_ALLOWED =
            new Decision.Reject(403, "forbidden", "this tenant is not allowed on this route", Map.of());

    private final Map<String, Decision> admitted = new HashMap<>(); // by tenant; read-only once made

    /** @param plans the plan of every allowed tenant */
    TenantPolicy(Map<String, String> plans) {
        plans.forEach((tenant, plan) -> admitted.put(
                tenant,
                Decision.Proceed.with(
                        Map.of("tenant", tenant), UpstreamEdits.of(Map.of(PLAN, plan), List.of(), List.of()))));
    }

    @Override
    public Decision admit(Inbound request) {
        String tenant = request.header(TENANT);
        if (tenant == null) {
            return NO_TENANT;
        }
        Decision decision = admitted.get(tenant);
        return decision != null ? decision : NOT_ALLOWED; // the refusal never echoes what the client sent
    }
}
