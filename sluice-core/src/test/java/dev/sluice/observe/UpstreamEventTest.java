package dev.sluice.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.http.UpstreamFailure;
import org.junit.jupiter.api.Test;

class UpstreamEventTest {

    @Test
    void anAnsweredCallIsOkOr5xxByItsStatus() {
        assertThat(UpstreamEvent.answered("r", "u", 404, 7))
                .isEqualTo(new UpstreamEvent("r", "u", UpstreamOutcome.OK, 404, 7));
        assertThat(UpstreamEvent.answered("r", "u", 503, 7).outcome()).isEqualTo(UpstreamOutcome.STATUS_5XX);
    }

    @Test
    void aFailedCallIsToldOnceAndNeverForTheClientsBodyAndTheRoutesDeadlineIsATimeout() {
        assertThat(UpstreamEvent.ofFailedCall("r", "u", UpstreamFailure.RESET, false, false, false, 9))
                .isEqualTo(new UpstreamEvent("r", "u", UpstreamOutcome.RESET, 0, 9));
        assertThat(UpstreamEvent.ofFailedCall("r", "u", UpstreamFailure.RESET, true, false, false, 9))
                .as("answered: its event was told")
                .isNull();
        assertThat(UpstreamEvent.ofFailedCall("r", "u", UpstreamFailure.RESET, false, true, false, 9))
                .as("the client's body")
                .isNull();
        assertThat(UpstreamEvent.ofFailedCall("r", "u", UpstreamFailure.RESET, false, false, true, 9)
                        .outcome())
                .isEqualTo(UpstreamOutcome.TIMEOUT);
    }
}
