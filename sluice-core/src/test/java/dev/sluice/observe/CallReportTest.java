package dev.sluice.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.http.UpstreamFailure;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CallReportTest {

    private final List<UpstreamEvent> events = new ArrayList<>();
    private final GatewayObserver observer = new GatewayObserver() {
        @Override
        public void upstream(UpstreamEvent event) {
            events.add(event);
        }
    };

    @Test
    void anAnsweredCallIsOneEventAndTheTallyGetsTheUpstreamsTime() {
        ExchangeTally tally = new ExchangeTally();
        new CallReport("r", "svc", observer).answered(201, 42, tally);
        assertThat(events).containsExactly(UpstreamEvent.answered("r", "svc", 201, 42));
        assertThat(tally.upstreamNanos()).isEqualTo(42);
    }

    @Test
    void aFailedCallIsReportedOnlyWhenAnEventIsDue() {
        CallReport report = new CallReport("r", "svc", observer);
        report.failed(UpstreamFailure.RESET, true, false, false, 5); // its status line came: told already
        report.failed(UpstreamFailure.RESET, false, true, false, 5); // the client's body
        report.failed(UpstreamFailure.RESET, false, false, true, 5); // the route's deadline
        assertThat(events).containsExactly(UpstreamEvent.failed("r", "svc", UpstreamFailure.TIMEOUT, 5));
        new CallReport("r", "svc", GatewayObserver.NONE).failed(UpstreamFailure.RESET, false, false, false, 1);
        assertThat(new CallReport("r", "svc", GatewayObserver.NONE).listens()).isFalse();
    }
}
