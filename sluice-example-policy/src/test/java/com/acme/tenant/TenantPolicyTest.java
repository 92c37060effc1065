package com.acme.tenant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.policy.Decision;
import dev.sluice.policy.InboundPolicy;
import dev.sluice.spi.PolicySettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The policy alone, from its settings; the engine contract (PolicySpiContract) runs it in every mode. */
class TenantPolicyTest {

    private static InboundPolicy policy(Map<String, ?> settings) {
        return new TenantPolicyFactory().create(PolicySettings.of(settings));
    }

    /** A request with only {@code X-Tenant} (or none). */
    private record Request(String tenant) implements InboundPolicy.Inbound {
        @Override
        public String method() {
            return "GET";
        }

        @Override
        public String path() {
            return "/";
        }

        @Override
        public String header(String name) {
            return name.equalsIgnoreCase(TenantPolicy.TENANT) ? tenant : null;
        }

        @Override
        public String route() {
            return "r";
        }

        @Override
        public String query() {
            return null;
        }

        @Override
        public String clientAddress() {
            return "127.0.0.1";
        }
    }

    @Test
    void anAllowedTenantProceedsWithItsPlanAndOthersAre403() {
        InboundPolicy policy = policy(Map.of("allowed", List.of("acme", "globex"), "plans", Map.of("acme", "gold")));

        Decision acme = policy.admit(new Request("acme"));
        assertThat(acme).isInstanceOf(Decision.Proceed.class);
        assertThat(((Decision.Proceed) acme).edits().set()).containsExactly(Map.entry("X-Tenant-Plan", "gold"));
        assertThat(((Decision.Proceed) acme).attributes()).containsEntry("tenant", "acme");
        assertThat(((Decision.Proceed) policy.admit(new Request("globex")))
                        .edits()
                        .set())
                .containsExactly(Map.entry("X-Tenant-Plan", "standard"));

        for (String tenant : new String[] {null, "initech", "ACME"}) {
            Decision refused = policy.admit(new Request(tenant));
            assertThat(refused).as("tenant %s", tenant).isInstanceOf(Decision.Reject.class);
            assertThat(((Decision.Reject) refused).status()).isEqualTo(403);
        }
    }

    @Test
    void badSettingsNameTheirKey() {
        assertThatThrownBy(() -> policy(Map.of()))
                .isInstanceOfSatisfying(
                        PolicySettings.Invalid.class, e -> assertThat(e.key()).isEqualTo("allowed"));
        assertThatThrownBy(() -> policy(Map.of("allowed", List.of("acme"), "plans", Map.of("globex", "gold"))))
                .isInstanceOfSatisfying(
                        PolicySettings.Invalid.class, e -> assertThat(e.key()).isEqualTo("plans.globex"));
        assertThatThrownBy(() -> policy(Map.of("allowed", List.of("acme"), "plan", "gold")))
                .isInstanceOfSatisfying(
                        PolicySettings.Invalid.class, e -> assertThat(e.key()).isEqualTo("plan"));
    }
}
