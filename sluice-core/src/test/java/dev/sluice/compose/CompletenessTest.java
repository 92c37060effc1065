package dev.sluice.compose;

import static dev.sluice.compose.CompositionPlanTest.JSON;
import static dev.sluice.compose.CompositionPlanTest.part;
import static dev.sluice.compose.CompositionPlanTest.steps;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ComposeTarget;
import dev.sluice.config.ComposeTarget.Fanout;
import dev.sluice.config.ComposeTarget.OnError;
import dev.sluice.config.ComposeTarget.Order;
import dev.sluice.config.PartConfig;
import dev.sluice.config.Requirements;
import dev.sluice.http.UpstreamFailure;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code status-from}, {@code require} and {@code X-Sluice-Completed}, decided by the plan on a hand-moved clock. */
class CompletenessTest {

    long now = -5_000 * CompositionPlanTest.MS;

    CompositionPlan plan(Requirements requirements, PartConfig... parts) {
        ComposeTarget target = new ComposeTarget(
                Fanout.PARALLEL,
                Order.ARRIVAL,
                OnError.PARTIAL,
                Duration.ofSeconds(2),
                false,
                List.of(parts),
                List.of(ComposeTarget.Delivery.JSON),
                requirements);
        return new CompositionPlan(
                "",
                target,
                new JsonSplice(target.parts().stream().map(PartConfig::name).toList()),
                100,
                () -> now,
                dev.sluice.observe.GatewayObserver.NONE,
                null,
                ComposeTarget.Delivery.JSON,
                PartRequest.withoutBasePaths(target.parts()).expand(java.util.Map.of(), java.util.Map.of(), ""));
    }

    static Requirements statusFrom(String part) {
        return new Requirements(Optional.of(part), List.of());
    }

    static Requirements require(String... parts) {
        return new Requirements(Optional.empty(), List.of(parts));
    }

    /** Parts a and b, no requirements: b answers first, and its bytes commit the head. */
    CompositionPlan committedWithPartB() {
        CompositionPlan plan = plan(Requirements.NONE, part("a"), part("b"));
        steps(plan);
        plan.answered(1, 200, JSON);
        plan.received(1, 10);
        assertThat(steps(plan)).containsExactly("COMMIT", "OPEN(1)", "RELAY(1)");
        return plan;
    }

    @Test
    void withoutRequirementsTheHeadGoesWithTheFirstReadyPartAndCompletenessFollowsInATrailer() {
        CompositionPlan plan = committedWithPartB();
        assertThat(plan.status()).isEqualTo(200);
        assertThat(plan.completedHeader()).as("part a may still fail").isNull();
        assertThat(plan.completedInTrailer("trailers")).isTrue();
        assertThat(plan.completedInTrailer(null)).as("no TE: no trailer").isFalse();
        plan.ended(1);
        plan.answered(0, 404, JSON);
        assertThat(steps(plan)).containsExactly("NULL(0)", "FINISH");
        assertThat(plan.completedTrailer()).isEqualTo("false");
    }

    /** What {@link CompositionPlan#commitFields} sets and adds, as "set Name: value" / "add Name: value", and its answer. */
    static List<String> commitFields(CompositionPlan plan, String te) {
        List<String> fields = new java.util.ArrayList<>();
        dev.sluice.http.HeaderRules rules = dev.sluice.http.HeaderRules.of(List.of(
                new dev.sluice.config.FilterConfig.ResponseHeaders(java.util.Map.of("Vary", "Origin"), List.of())));
        boolean trailer = plan.commitFields(
                rules, te, (n, v) -> fields.add("set " + n + ": " + v), (n, v) -> fields.add("add " + n + ": " + v));
        fields.add("trailer " + trailer);
        return fields;
    }

    @Test
    void theHeadsFieldsAreTheRoutesThenCompletenessOrItsTrailerForAClientThatTakesOne() {
        CompositionPlan plan = committedWithPartB();
        assertThat(commitFields(plan, "trailers"))
                .containsExactlyInAnyOrder(
                        "set Content-Type: application/json",
                        "set Vary: Origin",
                        "set Trailer: X-Sluice-Completed",
                        "trailer true");
        assertThat(commitFields(plan, "gzip"))
                .as("no trailers taken: completeness is in _meta alone")
                .containsExactlyInAnyOrder("set Content-Type: application/json", "set Vary: Origin", "trailer false");

        CompositionPlan known = plan(statusFrom("a"), part("a"), part("b"));
        steps(known);
        known.answered(0, 404, JSON);
        steps(known);
        assertThat(commitFields(known, "trailers"))
                .containsExactlyInAnyOrder(
                        "set Content-Type: application/json",
                        "set Vary: Origin",
                        "set X-Sluice-Completed: false",
                        "trailer false");
    }

    @Test
    void statusFromHoldsTheHeadForItsPartAndTakesItsUpstreamStatus() {
        CompositionPlan plan = plan(statusFrom("a"), part("a"), part("b"));
        steps(plan);
        plan.answered(1, 200, JSON);
        plan.received(1, 10);
        assertThat(steps(plan)).as("waits for a's head").isEmpty();
        plan.answered(0, 404, JSON);
        assertThat(steps(plan)).containsExactly("COMMIT", "OPEN(1)", "RELAY(1)");
        assertThat(plan.status()).isEqualTo(404);
        assertThat(plan.completedHeader()).isEqualTo("false");
        plan.ended(1);
        assertThat(steps(plan)).containsExactly("NULL(0)", "FINISH");
    }

    @Test
    void statusFromAPartThatTimedOutIs504AndOneThatCouldNotBeReachedIs502() {
        CompositionPlan timedOut = plan(statusFrom("a"), part("a"), part("b"));
        steps(timedOut);
        timedOut.failed(0, UpstreamFailure.READ_TIMEOUT, 0);
        timedOut.answered(1, 200, JSON);
        timedOut.received(1, 10);
        steps(timedOut);
        assertThat(timedOut.status()).isEqualTo(504);

        CompositionPlan refused = plan(statusFrom("a"), part("a"), part("b"));
        steps(refused);
        refused.failed(0, UpstreamFailure.REFUSED, 0);
        steps(refused);
        assertThat(refused.status()).isEqualTo(502);
    }

    @Test
    void statusFromAPartThatSucceededIs200() {
        CompositionPlan plan = plan(statusFrom("a"), part("a"), part("b"));
        steps(plan);
        plan.answered(0, 200, JSON);
        plan.received(0, 10);
        assertThat(steps(plan)).containsExactly("COMMIT", "OPEN(0)", "RELAY(0)");
        assertThat(plan.status()).isEqualTo(200);
    }

    @Test
    void aRequiredPartFailingBeforeTheHeadAnswersItsStatusInstead() {
        CompositionPlan plan = plan(require("a"), part("a"), part("b"));
        steps(plan);
        plan.answered(1, 200, JSON);
        plan.received(1, 10);
        assertThat(steps(plan)).isEmpty();
        plan.answered(0, 503, JSON);
        assertThat(steps(plan)).containsExactly("FAIL");
        assertThat(plan.failureStatus()).isEqualTo(503);
        assertThat(new String(plan.errorBody(), StandardCharsets.UTF_8))
                .contains("\"error\":\"part_failed\"")
                .contains("part 'a'");
    }

    @Test
    void aRequiredPartFailingAfterTheHeadAbortsTheResponse() {
        CompositionPlan plan = plan(require("a"), part("a"), part("b"));
        steps(plan);
        plan.answered(0, 200, JSON);
        plan.answered(1, 200, JSON);
        plan.received(1, 10);
        assertThat(steps(plan)).containsExactly("COMMIT", "OPEN(1)", "RELAY(1)");
        plan.ended(1);
        assertThat(plan.ended(0)).as("an empty body fails the part").isFalse();
        assertThat(steps(plan)).containsExactly("ABORT");
        assertThat(plan.abortReason()).contains("part 'a'").contains("required");
    }

    @Test
    void whenEveryPartIsRequiredCompletenessIsKnownAtTheHead() {
        CompositionPlan plan = plan(require("a", "b"), part("a"), part("b"));
        steps(plan);
        plan.answered(0, 200, JSON);
        plan.answered(1, 200, JSON);
        plan.received(1, 10);
        assertThat(steps(plan)).containsExactly("COMMIT", "OPEN(1)", "RELAY(1)");
        assertThat(plan.completedHeader()).isEqualTo("true");
    }

    @Test
    void anOptionalPartThatFailsAfterTheHeadIsNullAndTheTrailerSaysSo() {
        CompositionPlan plan = plan(require("a"), part("a"), part("b"));
        steps(plan);
        plan.answered(0, 200, JSON);
        plan.received(0, 10);
        assertThat(steps(plan)).containsExactly("COMMIT", "OPEN(0)", "RELAY(0)");
        assertThat(plan.completedHeader()).isNull();
        plan.ended(0);
        plan.failed(1, UpstreamFailure.REFUSED, 0);
        assertThat(steps(plan)).containsExactly("NULL(1)", "FINISH");
        assertThat(plan.completedTrailer()).isEqualTo("false");
    }

    @Test
    void onlyTheTrailersTokenOfTeSaysTheClientTakesTrailers() {
        assertThat(Completeness.takesTrailers("trailers")).isTrue();
        assertThat(Completeness.takesTrailers("TRAILERS")).isTrue();
        assertThat(Completeness.takesTrailers("gzip, trailers")).isTrue();
        assertThat(Completeness.takesTrailers(" trailers ,deflate")).isTrue();
        assertThat(Completeness.takesTrailers("\ttrailers\t")).isTrue();
        assertThat(Completeness.takesTrailers(null)).isFalse();
        assertThat(Completeness.takesTrailers("")).isFalse();
        assertThat(Completeness.takesTrailers("gzip")).isFalse();
        assertThat(Completeness.takesTrailers("trailer")).isFalse();
        assertThat(Completeness.takesTrailers("trailers2, xtrailers")).isFalse();
        assertThat(Completeness.takesTrailers(",,")).isFalse();
    }
}
