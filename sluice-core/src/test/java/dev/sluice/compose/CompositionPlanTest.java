package dev.sluice.compose;

import static dev.sluice.compose.CompositionPlan.Step.ABORT;
import static dev.sluice.compose.CompositionPlan.Step.COMMIT;
import static dev.sluice.compose.CompositionPlan.Step.FAIL;
import static dev.sluice.compose.CompositionPlan.Step.FINISH;
import static dev.sluice.compose.CompositionPlan.Step.OPEN;
import static dev.sluice.compose.CompositionPlan.Step.RELAY;
import static dev.sluice.compose.CompositionPlan.Step.STOP;
import static dev.sluice.compose.CompositionPlan.Step.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.compose.CompositionPlan.Step;
import dev.sluice.config.ComposeTarget;
import dev.sluice.config.ComposeTarget.Fanout;
import dev.sluice.config.ComposeTarget.OnError;
import dev.sluice.config.ComposeTarget.Order;
import dev.sluice.config.PartConfig;
import dev.sluice.http.UpstreamFailure;
import dev.sluice.routing.PathTemplate;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The composition's decisions, driven event by event on a hand-moved clock. */
class CompositionPlanTest {

    static final long MS = 1_000_000;
    static final String JSON = "application/json";

    long now = -5_000 * MS; // far from zero, as System.nanoTime may be

    CompositionPlan plan(Fanout fanout, Order order, OnError onError, PartConfig... parts) {
        ComposeTarget target = new ComposeTarget(fanout, order, onError, Duration.ofSeconds(2), false, List.of(parts));
        JsonSplice splice =
                new JsonSplice(target.parts().stream().map(PartConfig::name).toList());
        return new CompositionPlan(
                "",
                target,
                splice,
                100,
                () -> now,
                dev.sluice.observe.GatewayObserver.NONE,
                null,
                ComposeTarget.Delivery.JSON,
                PartRequest.withoutBasePaths(target.parts()).expand(Map.of(), Map.of(), ""));
    }

    static PartConfig part(String name) {
        return new PartConfig(name, "up", PathTemplate.parse("/" + name), false, Optional.empty());
    }

    static PartConfig optional(String name) {
        return new PartConfig(name, "up", PathTemplate.parse("/" + name), true, Optional.empty());
    }

    static PartConfig timed(String name, long ms) {
        return new PartConfig(name, "up", PathTemplate.parse("/" + name), false, Optional.of(Duration.ofMillis(ms)));
    }

    /** Every step up to the next WAIT, as "STEP" or "STEP(i)". */
    static List<String> steps(CompositionPlan plan) {
        List<String> out = new ArrayList<>();
        for (Step s = plan.next(); s != WAIT; s = plan.next()) {
            out.add(s == COMMIT || s == FAIL || s == FINISH || s == ABORT ? s.name() : s + "(" + plan.part() + ")");
            if (s == RELAY) {
                plan.relayed(plan.part(), 10); // each test buffers 10 bytes at a time
            }
        }
        return out;
    }

    @Test
    void parallelPartsStartAtOnceAndAreRelayedInArrivalOrder() {
        CompositionPlan plan = plan(Fanout.PARALLEL, Order.ARRIVAL, OnError.PARTIAL, part("a"), part("b"));
        assertThat(steps(plan)).containsExactly("START(0)", "START(1)");

        assertThat(plan.answered(1, 200, JSON)).isTrue();
        assertThat(steps(plan)).isEmpty(); // answered, no bytes: nothing to write yet
        plan.received(1, 10);
        assertThat(steps(plan)).containsExactly("COMMIT", "OPEN(1)", "RELAY(1)");
        plan.ended(1);
        plan.answered(0, 200, JSON);
        plan.received(0, 10);
        plan.ended(0);
        assertThat(steps(plan)).containsExactly("OPEN(0)", "RELAY(0)", "FINISH");
        assertThat(new String(plan.meta(), StandardCharsets.UTF_8)).contains("\"failed\":[]");
        assertThat(plan.next()).isEqualTo(WAIT);
        assertThat(plan.received(0, 1)).as("over: no more bytes wanted").isFalse();
    }

    @Test
    void theFirstKeyOpensTheObject() {
        CompositionPlan plan = plan(Fanout.PARALLEL, Order.ARRIVAL, OnError.PARTIAL, part("a"), part("b"));
        steps(plan);
        plan.answered(1, 200, JSON);
        plan.received(1, 10);
        assertThat(plan.next()).isEqualTo(COMMIT);
        assertThat(plan.next()).isEqualTo(OPEN);
        assertThat(plan.first()).isTrue();
        assertThat(new String(plan.key(), StandardCharsets.UTF_8)).isEqualTo("{\"b\":");
    }

    @Test
    void declaredOrderWaitsForTheNextDeclaredPart() {
        CompositionPlan plan = plan(Fanout.PARALLEL, Order.DECLARED, OnError.PARTIAL, part("a"), part("b"));
        steps(plan);
        plan.answered(1, 200, JSON);
        plan.received(1, 10);
        plan.ended(1);
        assertThat(steps(plan)).isEmpty();
        plan.answered(0, 200, JSON);
        plan.received(0, 10);
        assertThat(steps(plan)).containsExactly("COMMIT", "OPEN(0)", "RELAY(0)");
        plan.ended(0);
        assertThat(steps(plan)).containsExactly("OPEN(1)", "RELAY(1)", "FINISH");
    }

    @Test
    void sequentialPartsStartOneAfterAnotherAndSkipAPartThatAlreadyFailed() {
        CompositionPlan plan =
                plan(Fanout.SEQUENTIAL, Order.ARRIVAL, OnError.PARTIAL, part("a"), timed("b", 50), part("c"));
        assertThat(steps(plan)).containsExactly("START(0)");
        now += 60 * MS; // b's own deadline passes while a is still being fetched
        assertThat(steps(plan)).isEmpty(); // b was never started: nothing to stop, and a blocks the declared order
        plan.answered(0, 200, JSON);
        plan.received(0, 10);
        plan.ended(0);
        assertThat(steps(plan)).containsExactly("START(2)", "COMMIT", "OPEN(0)", "RELAY(0)", "NULL(1)");
    }

    @Test
    void aRejectedAnswerIsNullAndListedInMeta() {
        CompositionPlan plan = plan(Fanout.PARALLEL, Order.ARRIVAL, OnError.PARTIAL, part("a"), part("b"));
        steps(plan);
        assertThat(plan.answered(0, 500, JSON)).isFalse();
        assertThat(plan.answered(1, 200, "text/html")).isFalse();
        assertThat(steps(plan)).containsExactly("COMMIT", "NULL(0)", "NULL(1)", "FINISH");
        String meta = new String(plan.meta(), StandardCharsets.UTF_8);
        assertThat(meta).contains("\"error\":\"upstream status 500\"", "\"status\":500", "\"failed\":[\"a\",\"b\"]");
    }

    @Test
    void anEmptyBodyIsNull() {
        CompositionPlan plan = plan(Fanout.PARALLEL, Order.ARRIVAL, OnError.PARTIAL, part("a"));
        steps(plan);
        plan.answered(0, 200, JSON);
        plan.ended(0);
        assertThat(steps(plan)).containsExactly("COMMIT", "NULL(0)", "FINISH");
        assertThat(new String(plan.meta(), StandardCharsets.UTF_8)).contains("empty body");
    }

    @Test
    void failFastAnswersTheFirstRequiredFailureBeforeCommitting() {
        CompositionPlan plan =
                plan(Fanout.PARALLEL, Order.ARRIVAL, OnError.FAIL, optional("opt"), part("a"), part("b"));
        steps(plan);
        plan.failed(0, UpstreamFailure.REFUSED, 0); // optional: does not fail the response
        plan.answered(1, 200, JSON);
        plan.received(1, 10);
        assertThat(steps(plan)).isEmpty(); // b has not answered
        plan.failed(2, UpstreamFailure.READ_TIMEOUT, 0);
        assertThat(steps(plan)).containsExactly("FAIL");
        assertThat(plan.failureStatus()).isEqualTo(504);
        assertThat(plan.failureCode()).isEqualTo("part_timeout");
        assertThat(new String(plan.errorBody(), StandardCharsets.UTF_8)).contains("part 'b': upstream read timeout");
    }

    @Test
    void failFastCommitsOnceEveryPartAnswered() {
        CompositionPlan plan = plan(Fanout.PARALLEL, Order.ARRIVAL, OnError.FAIL, part("a"), part("b"));
        steps(plan);
        plan.answered(0, 200, JSON);
        assertThat(steps(plan)).isEmpty();
        plan.answered(1, 200, JSON);
        assertThat(steps(plan)).containsExactly("COMMIT");
        plan.failed(1, UpstreamFailure.RESET, 0); // after the commit: null, not a 502
        plan.received(0, 10);
        plan.ended(0);
        assertThat(steps(plan)).containsExactly("NULL(1)", "OPEN(0)", "RELAY(0)", "FINISH");
    }

    @Test
    void sequentialFailFastCommitsWhenAPartsReadAheadIsFull() {
        CompositionPlan plan = plan(Fanout.SEQUENTIAL, Order.ARRIVAL, OnError.FAIL, part("a"), part("b"));
        steps(plan);
        plan.answered(0, 200, JSON);
        plan.received(0, 50);
        assertThat(steps(plan)).isEmpty();
        plan.received(0, 50); // 100 bytes: the read-ahead is full, and b cannot start before a ends
        assertThat(steps(plan)).startsWith("COMMIT", "OPEN(0)", "RELAY(0)").hasSize(12); // 10 bytes a RELAY
    }

    @Test
    void parallelFailFastWaitsEvenWhenAReadAheadIsFull() {
        CompositionPlan plan = plan(Fanout.PARALLEL, Order.ARRIVAL, OnError.FAIL, part("a"), part("b"));
        steps(plan);
        plan.answered(0, 200, JSON);
        plan.received(0, 100);
        assertThat(steps(plan)).isEmpty();
    }

    @Test
    void aPartTimesOutAtItsOwnDeadlineAndItsCallIsStopped() {
        CompositionPlan plan = plan(Fanout.PARALLEL, Order.ARRIVAL, OnError.PARTIAL, timed("a", 100), part("b"));
        steps(plan);
        assertThat(plan.waitNanos()).isEqualTo(100 * MS);
        now += 100 * MS;
        assertThat(steps(plan)).containsExactly("STOP(0)", "COMMIT", "NULL(0)");
        assertThat(plan.waitNanos()).isEqualTo(1_900 * MS); // b: the route's deadline
        plan.answered(0, 200, JSON); // too late
        assertThat(plan.received(0, 10)).isFalse();
    }

    @Test
    void aPassOfStepsIsJudgedAtTheTimeTheEngineGives() {
        CompositionPlan plan = plan(Fanout.PARALLEL, Order.ARRIVAL, OnError.PARTIAL, timed("a", 100), part("b"));
        steps(plan);
        long pass = plan.now();
        now += 100 * MS; // the clock moved during the pass: its steps still see the pass's time
        assertThat(plan.next(pass)).isEqualTo(WAIT);
        assertThat(plan.next(plan.now())).isEqualTo(STOP);
        assertThat(plan.part()).isZero();
    }

    @Test
    void aPartWhoseBodyArrivedIsNotTimedOut() {
        CompositionPlan plan = plan(Fanout.PARALLEL, Order.DECLARED, OnError.PARTIAL, part("a"), timed("b", 100));
        steps(plan);
        plan.answered(1, 200, JSON);
        plan.received(1, 10);
        plan.ended(1);
        now += 150 * MS;
        assertThat(steps(plan)).isEmpty(); // a has not answered; b is whole and waits for its turn
        plan.answered(0, 200, JSON);
        plan.received(0, 10);
        plan.ended(0);
        assertThat(steps(plan)).containsExactly("COMMIT", "OPEN(0)", "RELAY(0)", "OPEN(1)", "RELAY(1)", "FINISH");
    }

    @Test
    void aDeadlinePassingWhileAPartIsRelayedAbortsTheResponse() {
        CompositionPlan plan = plan(Fanout.PARALLEL, Order.ARRIVAL, OnError.PARTIAL, part("a"));
        steps(plan);
        plan.answered(0, 200, JSON);
        plan.received(0, 10);
        assertThat(steps(plan)).containsExactly("COMMIT", "OPEN(0)", "RELAY(0)");
        now += 2_000 * MS;
        assertThat(steps(plan)).containsExactly("ABORT");
        assertThat(plan.abortReason()).isEqualTo("part 'a': timeout after 10 bytes were relayed");
        assertThat(plan.next()).isEqualTo(WAIT);
    }

    @Test
    void aFailureAfterBytesWereRelayedAbortsTheResponse() {
        CompositionPlan plan = plan(Fanout.PARALLEL, Order.ARRIVAL, OnError.PARTIAL, part("a"));
        steps(plan);
        plan.answered(0, 200, JSON);
        plan.received(0, 10);
        steps(plan);
        plan.failed(0, UpstreamFailure.RESET, 0);
        assertThat(steps(plan)).containsExactly("ABORT");
        assertThat(plan.abortReason()).contains("upstream connection reset after bytes were relayed");
    }

    @Test
    void validationHoldsASmallBodyUntilItIsWholeAndNullsInvalidJson() {
        ComposeTarget target = new ComposeTarget(
                Fanout.PARALLEL, Order.ARRIVAL, OnError.PARTIAL, Duration.ofSeconds(2), true, List.of(part("a")));
        CompositionPlan plan = new CompositionPlan(
                "",
                target,
                new JsonSplice(List.of("a")),
                100,
                () -> now,
                dev.sluice.observe.GatewayObserver.NONE,
                null,
                ComposeTarget.Delivery.JSON,
                PartRequest.withoutBasePaths(target.parts()).expand(Map.of(), Map.of(), ""));
        steps(plan);
        plan.answered(0, 200, JSON);
        byte[] body = "{\"x\":".getBytes(StandardCharsets.UTF_8);
        plan.validator(0).feed(body, 0, body.length);
        assertThat(plan.received(0, body.length)).isTrue();
        assertThat(steps(plan)).isEmpty(); // not whole, read-ahead not full: not ready
        plan.ended(0); // the body stopped there: invalid
        assertThat(steps(plan)).containsExactly("COMMIT", "NULL(0)", "FINISH");
        assertThat(new String(plan.meta(), StandardCharsets.UTF_8)).contains("invalid JSON");
    }

    @Test
    void theRouteDeadlineNullsEveryPartNotYetRelayed() {
        CompositionPlan plan = plan(Fanout.PARALLEL, Order.ARRIVAL, OnError.PARTIAL, part("a"), part("b"));
        steps(plan);
        plan.answered(0, 200, JSON);
        now += 2_000 * MS;
        assertThat(steps(plan)).containsExactly("STOP(0)", "STOP(1)", "COMMIT", "NULL(0)", "NULL(1)", "FINISH");
        assertThat(plan.waitNanos()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void theObserverHearsOfEveryPartAsItSettlesAndOfThoseAFailureCutShort() {
        List<dev.sluice.observe.PartEvent> events = new ArrayList<>();
        dev.sluice.observe.GatewayObserver observer = new dev.sluice.observe.GatewayObserver() {
            @Override
            public void part(dev.sluice.observe.PartEvent event) {
                events.add(event);
            }
        };
        ComposeTarget target = new ComposeTarget(
                Fanout.PARALLEL, Order.ARRIVAL, OnError.PARTIAL, Duration.ofSeconds(2), false, List.of(part("a")));
        CompositionPlan plan = new CompositionPlan(
                "page",
                target,
                new JsonSplice(List.of("a")),
                100,
                () -> now,
                observer,
                null,
                ComposeTarget.Delivery.JSON,
                PartRequest.withoutBasePaths(target.parts()).expand(Map.of(), Map.of(), ""));
        steps(plan);
        plan.answered(0, 200, JSON);
        plan.received(0, 10);
        plan.ended(0);
        steps(plan);
        assertThat(events).hasSize(1);
        assertThat(events.get(0).route()).isEqualTo("page");
        assertThat(events.get(0).upstream()).isEqualTo("up");
        assertThat(events.get(0).outcome().isOk()).isTrue();
        assertThat(events.get(0).outcome().bytes()).isEqualTo(10);

        events.clear();
        target = new ComposeTarget(
                Fanout.PARALLEL,
                Order.ARRIVAL,
                OnError.FAIL,
                Duration.ofSeconds(2),
                false,
                List.of(part("a"), part("b")));
        plan = new CompositionPlan(
                "page",
                target,
                new JsonSplice(List.of("a", "b")),
                100,
                () -> now,
                observer,
                null,
                ComposeTarget.Delivery.JSON,
                PartRequest.withoutBasePaths(target.parts()).expand(Map.of(), Map.of(), ""));
        steps(plan);
        plan.answered(0, 200, JSON);
        plan.failed(1, UpstreamFailure.REFUSED, 0);
        assertThat(steps(plan)).containsExactly("FAIL");
        assertThat(events)
                .extracting(e -> e.outcome().name() + ": " + e.outcome().error().orElse("ok"))
                .containsExactly("a: not relayed: the response failed", "b: upstream refused the connection");
    }

    static PartConfig chained(String name, String path, String after) {
        return new PartConfig(
                name,
                "up",
                PathTemplate.parsePart(path),
                false,
                Optional.empty(),
                Optional.empty(),
                Optional.ofNullable(after),
                PartConfig.DEFAULT_MAX_VALUE,
                Optional.empty());
    }

    /** Feeds {@code json} through part {@code i}'s tap, as an engine does with the bytes it buffers. */
    static void tapped(CompositionPlan plan, int i, String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        plan.tap(i).feed(bytes, 0, bytes.length);
        plan.received(i, bytes.length);
    }

    @Test
    void aChainedPartStartsOnceItsValueHasStreamedPastWithTheValueEncodedInItsTarget() {
        CompositionPlan plan = plan(
                Fanout.PARALLEL,
                Order.ARRIVAL,
                OnError.PARTIAL,
                part("product"),
                chained("reviews", "/reviews/{product:/name}?ids={product:/ids}", "product"));
        assertThat(plan.tap(1))
                .as("nobody waits for reviews' values: nothing scans it")
                .isNull();
        assertThat(steps(plan)).containsExactly("START(0)");
        plan.answered(0, 200, JSON);
        tapped(plan, 0, "{\"name\": \"a/b c\", \"ids\": [1,  "); // 10 bytes per RELAY
        assertThat(steps(plan)).containsExactly("COMMIT", "OPEN(0)", "RELAY(0)", "RELAY(0)", "RELAY(0)");
        tapped(plan, 0, "\"x&y\"],   ");
        assertThat(plan.next()).isEqualTo(Step.START); // before product ends, and before its bytes are relayed
        assertThat(plan.part()).isEqualTo(1);
        assertThat(plan.target()).isEqualTo("/reviews/a%2Fb%20c?ids=1%2Cx%26y");
        assertThat(steps(plan)).containsExactly("RELAY(0)");
        tapped(plan, 0, "\"n\": 1}   ");
        plan.ended(0);
        plan.answered(1, 200, JSON);
        plan.received(1, 10);
        plan.ended(1);
        assertThat(steps(plan)).containsExactly("RELAY(0)", "OPEN(1)", "RELAY(1)", "FINISH");
    }

    @Test
    void aMissingValueOrAFailedEarlierPartMakesTheChainedPartNullWithItsReason() {
        CompositionPlan plan = plan(
                Fanout.PARALLEL,
                Order.DECLARED,
                OnError.PARTIAL,
                part("product"),
                chained("reviews", "/reviews?ids={product:/ids}", null),
                chained("stock", "/stock", "product"),
                part("other"),
                chained("later", "/later?x={other:/x}", "other"));
        assertThat(steps(plan)).containsExactly("START(0)", "START(3)");
        plan.answered(0, 200, JSON);
        tapped(plan, 0, "{\"id\": 1}");
        assertThat(steps(plan)).containsExactly("COMMIT", "OPEN(0)", "RELAY(0)");
        plan.ended(0);
        assertThat(steps(plan)).containsExactly("START(2)", "NULL(1)"); // stock waited for product's end
        plan.answered(3, 503, JSON);
        plan.answered(2, 200, JSON);
        plan.received(2, 10);
        plan.ended(2);
        assertThat(steps(plan)).containsExactly("OPEN(2)", "RELAY(2)", "NULL(3)", "NULL(4)", "FINISH");
        String meta = new String(plan.meta(), StandardCharsets.UTF_8);
        assertThat(meta).contains("\"reviews\":{\"status\":0").contains("no value at 'product:/ids'");
        assertThat(meta).contains("part 'other' failed: upstream status 503");
    }

    static PartConfig collection(String name, String path, String each, int max, int concurrency) {
        return new PartConfig(
                name,
                "up",
                PathTemplate.parsePart(path),
                false,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                PartConfig.DEFAULT_MAX_VALUE,
                Optional.of(new PartConfig.Collection(each, max, concurrency, false)));
    }

    /** The bytes the steps up to the next WAIT write, each RELAY standing for 10 bytes ("#"). */
    static String written(CompositionPlan plan, List<String> steps) {
        StringBuilder out = new StringBuilder();
        for (Step s = plan.next(); s != WAIT; s = plan.next()) {
            steps.add(s == COMMIT || s == FINISH ? s.name() : s + "(" + plan.part() + ")");
            switch (s) {
                case START -> steps.set(steps.size() - 1, "START(" + plan.part() + " " + plan.target() + ")");
                case OPEN -> out.append(new String(plan.key(), StandardCharsets.UTF_8));
                case NULL ->
                    out.append(new String(plan.key(), StandardCharsets.UTF_8)).append("null");
                case CLOSE -> out.append(new String(plan.closer(), StandardCharsets.UTF_8));
                case RELAY -> {
                    out.append('#');
                    plan.relayed(plan.part(), 10);
                }
                default -> {}
            }
        }
        return out.toString();
    }

    @Test
    void aCollectionPartFansOutOverAnArrayWithinItsConcurrencyAndRelaysOneArrayInOrder() {
        CompositionPlan plan = plan(
                Fanout.PARALLEL,
                Order.DECLARED,
                OnError.PARTIAL,
                part("product"),
                collection("related", "/r/{each}", "product:/ids", 3, 2));
        assertThat(plan.slots()).isEqualTo(5);
        assertThat(plan.configured(4)).isEqualTo(1);
        List<String> steps = new ArrayList<>();
        assertThat(written(plan, steps)).isEmpty();
        assertThat(steps).containsExactly("START(0 /product)");
        plan.answered(0, 200, JSON);
        steps.clear();
        tapped(plan, 0, "{\"ids\": [\"a b\", 2, 3, 4]} ");
        assertThat(written(plan, steps)).isEqualTo("{\"product\":###");
        assertThat(steps).startsWith("START(2 /r/a%20b)", "START(3 /r/2)", "COMMIT"); // 2 at once: concurrency
        plan.ended(0);
        plan.answered(2, 500, JSON); // the first element fails: the third starts
        steps.clear();
        assertThat(written(plan, steps)).isEqualTo(",\"related\":[null");
        assertThat(steps).startsWith("START(4 /r/3)");
        plan.answered(4, 200, JSON);
        plan.received(4, 10);
        plan.ended(4);
        assertThat(written(plan, List.of())).isEmpty(); // the second element is next in the array's order
        plan.answered(3, 200, JSON);
        plan.received(3, 10);
        plan.ended(3);
        steps.clear();
        assertThat(written(plan, steps)).isEqualTo(",#,#]");
        assertThat(steps).endsWith("CLOSE(1)", "FINISH");
        String meta = new String(plan.meta(), StandardCharsets.UTF_8);
        assertThat(meta)
                .contains("\"related\":{\"status\":200")
                .contains("\"elements\":[{\"status\":500")
                .contains("\"error\":\"upstream status 500\"}")
                .contains("\"skipped\":1")
                .contains("\"failed\":[]");
    }

    @Test
    void eachElementsCallIsToldToTheObserverAndItsPartOnce() {
        List<String> told = new ArrayList<>();
        dev.sluice.observe.GatewayObserver observer = new dev.sluice.observe.GatewayObserver() {
            @Override
            public void part(dev.sluice.observe.PartEvent event) {
                told.add("part " + event.outcome().name());
            }

            @Override
            public void upstream(dev.sluice.observe.UpstreamEvent event) {
                told.add("call " + event.status());
            }
        };
        ComposeTarget target = new ComposeTarget(
                Fanout.PARALLEL,
                Order.ARRIVAL,
                OnError.PARTIAL,
                Duration.ofSeconds(2),
                false,
                List.of(part("list"), collection("items", "/i/{each}", "list:/ids", 5, 5)));
        CompositionPlan plan = new CompositionPlan(
                "page",
                target,
                new JsonSplice(List.of("list", "items")),
                100,
                () -> now,
                observer,
                null,
                ComposeTarget.Delivery.JSON,
                PartRequest.withoutBasePaths(target.parts()).expand(Map.of(), Map.of(), ""));
        steps(plan);
        plan.answered(0, 200, JSON);
        tapped(plan, 0, "[1, 2]    "); // a pointer into an array, not an object: no value
        plan.ended(0);
        steps(plan);
        assertThat(told).containsExactly("part list", "call 200", "part items");
        assertThat(new String(plan.meta(), StandardCharsets.UTF_8)).contains("no value at 'list:/ids'");

        told.clear();
        plan = new CompositionPlan(
                "page",
                target,
                new JsonSplice(List.of("list", "items")),
                100,
                () -> now,
                observer,
                null,
                ComposeTarget.Delivery.JSON,
                PartRequest.withoutBasePaths(target.parts()).expand(Map.of(), Map.of(), ""));
        steps(plan);
        plan.answered(0, 200, JSON);
        tapped(plan, 0, "{\"ids\":[1,2]}");
        plan.ended(0);
        plan.answered(2, 503, JSON);
        plan.answered(3, 200, JSON);
        plan.received(3, 10);
        plan.ended(3);
        steps(plan);
        assertThat(told).containsExactly("part list", "call 200", "call 503", "call 200", "part items");
    }

    static PartConfig shaped(String name, String take) {
        return new PartConfig(
                name,
                "up",
                PathTemplate.parse("/" + name),
                false,
                Optional.empty(),
                Optional.of(new PartConfig.Shaping(List.of(), List.of(), java.util.Map.of(), Optional.of(take), 64)));
    }

    /** Feeds {@code json} through part {@code i}'s shaper, as an engine does, and reports what came out. */
    static int feed(CompositionPlan plan, int i, String json) {
        byte[] in = json.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[in.length + 64];
        int used = plan.shaper(i).shape(in, 0, in.length, out, 0, out.length);
        assertThat(used).isEqualTo(in.length);
        plan.received(i, plan.shaper(i).produced());
        return plan.shaper(i).produced();
    }

    @Test
    void aShapedPartCountsWhatItsShaperKeepsAndAnAbsentPointerMakesItNull() {
        CompositionPlan plan =
                plan(Fanout.PARALLEL, Order.DECLARED, OnError.PARTIAL, shaped("a", "/x"), shaped("b", "/y"));
        assertThat(plan.validator(0)).as("a shaped part's shaper validates").isNull();
        steps(plan);
        plan.answered(0, 200, JSON);
        plan.answered(1, 200, JSON);
        assertThat(feed(plan, 0, "{\"x\": [1, 2], \"z\": 3}")).as("[1, 2]").isEqualTo(6);
        assertThat(feed(plan, 1, "{\"x\": 1}")).isZero();
        assertThat(steps(plan)).as("held until whole, as a validated part").isEmpty();
        plan.ended(0);
        plan.ended(1);
        assertThat(steps(plan)).containsExactly("COMMIT", "OPEN(0)", "RELAY(0)", "NULL(1)", "FINISH");
        String meta = new String(plan.meta(), StandardCharsets.UTF_8);
        assertThat(meta).contains("\"a\":{\"status\":200,").contains("take: no value at '/y'");
    }
}
