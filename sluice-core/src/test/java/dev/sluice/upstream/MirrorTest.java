package dev.sluice.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.MirrorConfig;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.observe.MirrorEvent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MirrorTest {

    private final List<MirrorEvent> events = new ArrayList<>();
    private final GatewayObserver observer = new GatewayObserver() {
        @Override
        public void mirror(MirrorEvent event) {
            events.add(event);
        }
    };

    @Test
    void aRequestIsCopiedWhenItsDrawIsBelowThePercent() {
        double[] draw = {0};
        Mirror mirror = Mirror.of(new MirrorConfig("shadow", 10, 100), "r", observer, () -> draw[0]);
        draw[0] = 9.99;
        assertThat(mirror.decide(0)).isEqualTo(Mirror.Decision.COPY);
        draw[0] = 10;
        assertThat(mirror.decide(0)).isEqualTo(Mirror.Decision.NONE);
        assertThat(events).as("not sampled is not reported").isEmpty();
        assertThat(mirror.inFlight()).isEqualTo(1);
    }

    @Test
    void copiesBeyondMaxInFlightAreDroppedAndReportedUntilOneEnds() {
        Mirror mirror = Mirror.of(new MirrorConfig("shadow", 100, 2), "r", observer, () -> {
            throw new AssertionError("100 percent draws nothing");
        });
        assertThat(mirror.decide(0)).isEqualTo(Mirror.Decision.COPY);
        assertThat(mirror.decide(0)).isEqualTo(Mirror.Decision.COPY);
        assertThat(mirror.decide(0)).isEqualTo(Mirror.Decision.NONE);
        assertThat(events).containsExactly(new MirrorEvent("r", "shadow", MirrorEvent.Outcome.DROPPED));
        mirror.ended();
        assertThat(mirror.decide(0)).isEqualTo(Mirror.Decision.COPY);
        assertThat(mirror.inFlight()).isEqualTo(2);
    }

    @Test
    void aBodyDeclaredLongerThanMaxBodyIsNotCopiedAndReported() {
        Mirror mirror = Mirror.of(new MirrorConfig("shadow", 100, 2, 10), "r", observer);
        assertThat(mirror.decide(11)).isEqualTo(Mirror.Decision.NONE);
        assertThat(events).containsExactly(new MirrorEvent("r", "shadow", MirrorEvent.Outcome.BODY_TOO_LARGE));
        assertThat(mirror.inFlight()).isZero();
        assertThat(mirror.decide(10)).isEqualTo(Mirror.Decision.COPY);
        assertThat(mirror.decide(-1)).as("a length not known yet").isEqualTo(Mirror.Decision.COPY);
    }

    @Test
    void aBodyFoundLongerThanMaxBodyWhileItStreamsIsAbandonedOnceAndReportedOnce() {
        Mirror mirror = Mirror.of(new MirrorConfig("shadow", 100, 2, 10), "r", observer);
        Mirror.Body body = mirror.body();
        assertThat(body.take(6)).isTrue();
        assertThat(body.take(4)).isTrue();
        assertThat(body.over()).isFalse();
        assertThat(body.take(1)).isFalse();
        assertThat(body.take(1)).isFalse();
        assertThat(body.over()).isTrue();
        assertThat(events).containsExactly(new MirrorEvent("r", "shadow", MirrorEvent.Outcome.BODY_TOO_LARGE));
    }

    @Test
    void aCopysAnswerOrFailureIsReportedAsACallToTheMirrorsUpstream() {
        List<dev.sluice.observe.UpstreamEvent> calls = new ArrayList<>();
        GatewayObserver listening = new GatewayObserver() {
            @Override
            public void upstream(dev.sluice.observe.UpstreamEvent event) {
                calls.add(event);
            }
        };
        Mirror mirror = Mirror.of(new MirrorConfig("shadow", 100, 2), "r", listening);
        mirror.answered(204, 5);
        mirror.failed(dev.sluice.http.UpstreamFailure.REFUSED, 7);
        assertThat(calls)
                .containsExactly(
                        dev.sluice.observe.UpstreamEvent.answered("r", "shadow", 204, 5),
                        dev.sluice.observe.UpstreamEvent.failed(
                                "r", "shadow", dev.sluice.http.UpstreamFailure.REFUSED, 7));
    }
}
