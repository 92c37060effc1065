package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UpstreamFailureTest {

    @Test
    void timeoutsAreTheFailuresAnswered504() {
        assertThat(UpstreamFailure.CONNECT_TIMEOUT.isTimeout()).isTrue();
        assertThat(UpstreamFailure.READ_TIMEOUT.isTimeout()).isTrue();
        assertThat(UpstreamFailure.TIMEOUT.isTimeout()).isTrue();
        assertThat(UpstreamFailure.RESET.isTimeout()).isFalse();
        assertThat(UpstreamFailure.POOL_EXHAUSTED.isTimeout()).isFalse();
    }
}
