package dev.sluice.engine.blocking.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sluice.config.UpstreamConfig;
import dev.sluice.http.UpstreamFailure;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import org.junit.jupiter.api.Test;

class UpgradeCallTest {

    /**
     * An upgrade's head is encoded by the pooled requests' code ({@link RequestWriter#detachedHead}), so a CR
     * or LF in it is refused the same way, before any connection: the first connection the upstream
     * accepts afterwards is a probe's.
     */
    @Test
    void aHeadWithACrLfIsRefusedBeforeAnyConnection() throws Exception {
        try (ServerSocket upstream = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            UpstreamConfig config = UpstreamConfig.of("ws", URI.create("http://127.0.0.1:" + upstream.getLocalPort()));
            UpstreamRequest request = new UpstreamRequest("GET", "/ws").header("X-Tenant", "a\r\nX-Injected: 1");
            assertThatExceptionOfType(UpstreamException.class)
                    .isThrownBy(() -> UpgradeCall.open(config, request))
                    .satisfies(e -> assertThat(e.failure()).isEqualTo(UpstreamFailure.RESET))
                    .withCauseInstanceOf(RequestWriter.RefusedHead.class);
            try (Socket probe = new Socket(InetAddress.getLoopbackAddress(), upstream.getLocalPort());
                    Socket first = upstream.accept()) {
                assertThat(first.getPort()).isEqualTo(probe.getLocalPort());
            }
        }
    }
}
