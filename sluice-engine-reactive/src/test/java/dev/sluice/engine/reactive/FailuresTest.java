package dev.sluice.engine.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.http.UpstreamFailure;
import dev.sluice.upstream.UpstreamCall.Action;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LeakGuard.class)
class FailuresTest {

    @Test
    void aCallTheCoreEndsWithoutATryFailsWithTheCoresOwnFailure() {
        for (UpstreamFailure failure : UpstreamFailure.values()) {
            Failures.Failed error = Failures.notSent(new Action.Fail(failure));
            assertThat(Failures.isUpstreams(error)).as("%s", failure).isTrue();
            assertThat(Failures.classify(error)).isEqualTo(failure);
            // wrapped on its way through Reactor, it is still the core's failure
            assertThat(Failures.classify(new IllegalStateException("wrapped", error)))
                    .isEqualTo(failure);
        }
    }

    @Test
    void anAnswerThatIsNeitherATryNorAFailIsAnEndpointRefused() {
        assertThat(Failures.classify(Failures.notSent(Action.Ignore.INSTANCE))).isEqualTo(UpstreamFailure.REFUSED);
    }
}
