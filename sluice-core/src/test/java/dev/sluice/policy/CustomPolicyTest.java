package dev.sluice.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigLoader;
import dev.sluice.config.RouteConfig;
import dev.sluice.spi.TestPolicies;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A route's custom policy in its chain: made per chain, its edits carried, its failures contained. */
class CustomPolicyTest {

    private static RouteConfig route(String filters) throws Exception {
        return ConfigLoader.parse("""
                upstreams:
                  app: { url: "http://127.0.0.1:19081" }
                routes:
                  - id: r
                    match: { path: "/r/**" }
                    proxy: { upstream: app }
                    filters:
                """ + filters.indent(6), "test.yaml").routes().getFirst();
    }

    @Test
    void eachChainMakesItsOwnPolicyWhichDecidesAsWrittenAndIsNamedByItsFactory() throws Exception {
        RouteConfig route = route("- custom: { policy: test-stamp, settings: { header: X-Plan, value: gold } }");
        int before = TestPolicies.Stamp.MADE.get();
        PolicyChain chain = PolicyChain.of(route);
        PolicyChain.of(route);
        assertThat(TestPolicies.Stamp.MADE.get() - before)
                .as("one policy per chain")
                .isEqualTo(2);

        Decision passed = chain.admit(GivenRequest.from("127.0.0.1").withHeaders(Map.of("x-pass", "1")));
        assertThat(passed).isInstanceOf(Decision.Proceed.class);
        assertThat(((Decision.Proceed) passed).edits().set()).containsEntry("X-Plan", "gold");

        Decision refused = chain.admit(GivenRequest.from("127.0.0.1"));
        assertThat(refused).isInstanceOf(Decision.Reject.class);
        assertThat(((Decision.Reject) refused).policy()).isEqualTo("test-stamp");
        assertThat(((Decision.Reject) refused).status()).isEqualTo(403);
    }

    @Test
    void aThrowingPolicyIsA500RefusalAndThePermitsTakenBeforeItAreReleased() throws Exception {
        RouteConfig route = route("""
                - concurrency: { max: 1 }
                - custom: { policy: test-throws }
                """);
        PolicyChain chain = PolicyChain.of(route);
        for (int i = 0; i < 3; i++) { // with one slot, a permit kept by a failure would refuse the next 503
            Decision d = chain.admit(GivenRequest.from("127.0.0.1").withHeaders(Map.of("x-tenant", "t" + i)));
            assertThat(d).isInstanceOf(Decision.Reject.class);
            Decision.Reject r = (Decision.Reject) d;
            assertThat(r.status()).isEqualTo(500);
            assertThat(r.code()).isEqualTo("policy_failed");
            assertThat(r.policy()).isEqualTo("test-throws");
            assertThat(r.message()).doesNotContain("t" + i);
        }
    }

    @Test
    void aPolicyThatDecidesNothingIsA500Refusal() {
        InboundPolicy nothing = request -> null;
        dev.sluice.config.FilterConfig.Custom filter = new dev.sluice.config.FilterConfig.Custom(
                new dev.sluice.spi.PolicyFactory() {
                    @Override
                    public String name() {
                        return "nothing";
                    }

                    @Override
                    public InboundPolicy create(dev.sluice.spi.PolicySettings settings) {
                        return nothing;
                    }
                },
                dev.sluice.spi.PolicySettings.EMPTY);
        Decision d = CustomPolicy.of(filter, "r").admit(GivenRequest.from("127.0.0.1"));
        assertThat(d).isInstanceOf(Decision.Reject.class);
        assertThat(((Decision.Reject) d).status()).isEqualTo(500);
    }
}
