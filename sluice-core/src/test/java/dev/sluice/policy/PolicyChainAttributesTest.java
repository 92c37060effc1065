package dev.sluice.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What policies hand on through the chain: attributes to later policies, edits to the engine. */
class PolicyChainAttributesTest {

    private static final InboundPolicy.Inbound REQUEST =
            GivenRequest.from("127.0.0.1").withQuery("a=1");

    private static final InboundPolicy AUTHENTICATES = request -> new Decision.Proceed(
            Decision.Permit.NONE,
            Map.of("claim:sub", "alice"),
            UpstreamEdits.of(Map.of("x-user-id", "alice"), List.of(), Set.of()));

    /** Proceeds only when an earlier policy established the subject, setting a header of its own. */
    private static final InboundPolicy READS_SUBJECT =
            request -> "alice".equals(request.attribute("claim:sub")) && "a=1".equals(request.query())
                    ? new Decision.Proceed(
                            Decision.Permit.NONE,
                            Map.of("api-key", "ci"),
                            UpstreamEdits.of(Map.of("x-tier", "gold"), List.of("x-api-key"), Set.of("api_key")))
                    : new Decision.Reject(429, "limited", "no subject", Map.of());

    @Test
    void aLaterPolicyReadsTheAttributesOfAnEarlierOneAndTheEditsCombine() {
        Decision d = new PolicyChain(new InboundPolicy[] {AUTHENTICATES, READS_SUBJECT}).admit(REQUEST);
        assertThat(d).isInstanceOf(Decision.Proceed.class);
        Decision.Proceed p = (Decision.Proceed) d;
        assertThat(p.attributes()).containsEntry("claim:sub", "alice").containsEntry("api-key", "ci");
        assertThat(p.edits().set()).containsEntry("x-user-id", "alice").containsEntry("x-tier", "gold");
        assertThat(p.edits().removes("X-Api-Key")).isTrue();
        assertThat(p.edits().removes("x-user-id")).isTrue();
        assertThat(p.edits().query("api_key=k&a=1")).isEqualTo("a=1");

        assertThat(new PolicyChain(new InboundPolicy[] {READS_SUBJECT, AUTHENTICATES}).admit(REQUEST))
                .as("in the other order the subject is not known yet")
                .isInstanceOf(Decision.Reject.class);
    }

    @Test
    void attributesPassAPendingPolicyToo() throws Exception {
        InboundPolicy later =
                request -> new Decision.Pending(CompletableFuture.supplyAsync(() -> AUTHENTICATES.admit(request)));
        Decision d = new PolicyChain(new InboundPolicy[] {later, READS_SUBJECT}).admit(REQUEST);
        assertThat(d).isInstanceOf(Decision.Pending.class);
        Decision decided =
                ((Decision.Pending) d).decision().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(decided).isInstanceOf(Decision.Proceed.class);
        assertThat(((Decision.Proceed) decided).edits().set()).containsEntry("x-user-id", "alice");
    }

    @Test
    void aChainWhosePoliciesAddNothingProceedsFreely() {
        InboundPolicy nothing = request -> Decision.Proceed.FREELY;
        assertThat(new PolicyChain(new InboundPolicy[] {nothing, nothing}).admit(REQUEST))
                .isSameAs(Decision.Proceed.FREELY);
        assertThat(Decision.Proceed.with(Map.of(), UpstreamEdits.NONE)).isSameAs(Decision.Proceed.FREELY);
        assertThat(UpstreamEdits.of(Map.of(), List.of(), Set.of())).isSameAs(UpstreamEdits.NONE);
        assertThat(UpstreamEdits.NONE.query("a=1&b=2")).isEqualTo("a=1&b=2");
        assertThat(UpstreamEdits.NONE.removes("x-anything")).isFalse();
    }
}
