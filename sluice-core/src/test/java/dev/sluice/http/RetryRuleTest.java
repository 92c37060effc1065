package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RetryRuleTest {

    @Test
    void aBodylessIdempotentRequestResetBeforeAnyAnswerIsSentOnceMore() {
        assertThat(RetryRule.resends("GET", false, UpstreamFailure.RESET, false, 1))
                .isTrue();
        assertThat(RetryRule.resends("DELETE", false, UpstreamFailure.RESET, false, 1))
                .isTrue();
    }

    @Test
    void neverTwiceNeverAfterAnAnswerNeverWithABodyNeverForAnotherFailureOrMethod() {
        assertThat(RetryRule.resends("GET", false, UpstreamFailure.RESET, false, 2))
                .as("second attempt")
                .isFalse();
        assertThat(RetryRule.resends("GET", false, UpstreamFailure.RESET, true, 1))
                .as("answered")
                .isFalse();
        assertThat(RetryRule.resends("PUT", true, UpstreamFailure.RESET, false, 1))
                .as("a body")
                .isFalse();
        assertThat(RetryRule.resends("POST", false, UpstreamFailure.RESET, false, 1))
                .as("not idempotent")
                .isFalse();
        for (UpstreamFailure other : UpstreamFailure.values()) {
            if (other != UpstreamFailure.RESET) {
                assertThat(RetryRule.resends("GET", false, other, false, 1))
                        .as(other.name())
                        .isFalse();
            }
        }
    }

    @Test
    void timeoutsAreTheFailuresAnswered504() {
        assertThat(UpstreamFailure.CONNECT_TIMEOUT.isTimeout()).isTrue();
        assertThat(UpstreamFailure.READ_TIMEOUT.isTimeout()).isTrue();
        assertThat(UpstreamFailure.TIMEOUT.isTimeout()).isTrue();
        assertThat(UpstreamFailure.RESET.isTimeout()).isFalse();
        assertThat(UpstreamFailure.POOL_EXHAUSTED.isTimeout()).isFalse();
    }
}
