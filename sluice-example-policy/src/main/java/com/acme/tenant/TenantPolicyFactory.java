package com.acme.tenant;

import dev.sluice.policy.InboundPolicy;
import dev.sluice.spi.PolicyFactory;
import dev.sluice.spi.PolicySettings;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The factory the gateway finds ({@code META-INF/services/dev.sluice.spi.PolicyFactory}) and a route
 * names:
 *
 * <pre>
 *   - custom:
 *       policy: tenant
 *       settings:
 *         allowed: [acme, globex]          # required: the tenants this route serves
 *         plans: { acme: gold }             # optional: a tenant's plan, sent upstream as X-Tenant-Plan
 *         default-plan: standard            # optional: the plan of a tenant without one (standard)
 * </pre>
 *
 * Every setting is checked here, so a bad one is a configuration problem by path, at {@code sluice
 * check} and at a reload, never a surprise on a request.
 */
public final class TenantPolicyFactory implements PolicyFactory {

    @Override
    public String name() {
        return "tenant";
    }

    @Override
    public InboundPolicy create(PolicySettings settings) {
        settings.allowOnly("allowed", "plans", "default-plan");
        if (!settings.has("allowed")) {
            throw settings.invalid("allowed", "missing (expected: a list of tenant names)");
        }
        List<String> allowed = settings.strings("allowed");
        if (allowed.isEmpty()) {
            throw settings.invalid("allowed", "[] (expected: at least one tenant name)");
        }
        Map<String, String> plans = settings.map("plans");
        for (String tenant : plans.keySet()) {
            if (!allowed.contains(tenant)) {
                throw settings.settings("plans")
                        .invalid(tenant, "'" + tenant + "' is not in allowed (expected: one of " + allowed + ")");
            }
        }
        String defaultPlan = settings.string("default-plan").orElse("standard");
        Map<String, String> planOf = new LinkedHashMap<>();
        Set<String> tenants = new LinkedHashSet<>(allowed);
        for (String tenant : tenants) {
            planOf.put(tenant, plans.getOrDefault(tenant, defaultPlan));
        }
        return new TenantPolicy(planOf);
    }
}
