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
        assertThat(mirror.decide(false)).isEqualTo(Mirror.Decision.COPY);
        draw[0] = 10;
        assertThat(mirror.decide(false)).isEqualTo(Mirror.Decision.NONE);
        assertThat(events).as("not sampled is not reported").isEmpty();
        assertThat(mirror.inFlight()).isEqualTo(1);
    }

    @Test
    void copiesBeyondMaxInFlightAreDroppedAndReportedUntilOneEnds() {
        Mirror mirror = Mirror.of(new MirrorConfig("shadow", 100, 2), "r", observer, () -> {
            throw new AssertionError("100 percent draws nothing");
        });
        assertThat(mirror.decide(false)).isEqualTo(Mirror.Decision.COPY);
        assertThat(mirror.decide(false)).isEqualTo(Mirror.Decision.COPY);
        assertThat(mirror.decide(false)).isEqualTo(Mirror.Decision.NONE);
        assertThat(events).containsExactly(new MirrorEvent("r", "shadow", MirrorEvent.Outcome.DROPPED));
        mirror.ended();
        assertThat(mirror.decide(false)).isEqualTo(Mirror.Decision.COPY);
        assertThat(mirror.inFlight()).isEqualTo(2);
    }

    @Test
    void aRequestWithABodyIsSkippedAndReported() {
        Mirror mirror = Mirror.of(new MirrorConfig("shadow", 100, 2), "r", observer);
        assertThat(mirror.decide(true)).isEqualTo(Mirror.Decision.NONE);
        assertThat(events).containsExactly(new MirrorEvent("r", "shadow", MirrorEvent.Outcome.SKIPPED_BODY));
        assertThat(mirror.inFlight()).isZero();
    }
}
