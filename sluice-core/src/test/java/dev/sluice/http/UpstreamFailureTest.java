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

    @Test
    void theJdksExceptionsAreReadOnceForEveryClient() {
        assertThat(UpstreamFailure.ofJdk(new java.net.UnknownHostException("x")))
                .isEqualTo(UpstreamFailure.UNRESOLVED);
        assertThat(UpstreamFailure.ofJdk(new java.nio.channels.UnresolvedAddressException()))
                .isEqualTo(UpstreamFailure.UNRESOLVED);
        assertThat(UpstreamFailure.ofJdk(new java.net.ConnectException("x"))).isEqualTo(UpstreamFailure.REFUSED);
        // the reactive engine took this one (Netty's AnnotatedNoRouteToHostException) for a reset
        assertThat(UpstreamFailure.ofJdk(new java.net.NoRouteToHostException("x")))
                .isEqualTo(UpstreamFailure.REFUSED);
        assertThat(UpstreamFailure.ofJdk(new javax.net.ssl.SSLHandshakeException("x")))
                .isEqualTo(UpstreamFailure.TLS_HANDSHAKE);
        assertThat(UpstreamFailure.ofJdk(new java.net.SocketTimeoutException("x")))
                .isEqualTo(UpstreamFailure.READ_TIMEOUT);
        assertThat(UpstreamFailure.ofJdk(new java.io.IOException("x")))
                .as("the caller's: a reset")
                .isNull();
        assertThat(UpstreamFailure.ofJdk(new java.nio.channels.ClosedChannelException()))
                .isNull();
        assertThat(UpstreamFailure.ofJdk(new IllegalStateException("x"))).isNull();
    }
}
