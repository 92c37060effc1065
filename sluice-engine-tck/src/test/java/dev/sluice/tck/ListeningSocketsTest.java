package dev.sluice.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ListeningSocketsTest {

    @Test
    void seesAListenerUntilItCloses() throws Exception {
        assumeTrue(ListeningSockets.readable(), "no /proc/net/tcp on this system");
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        int port = server.getLocalPort();
        assertThat(ListeningSockets.listening(port)).as("listening on %d", port).isTrue();
        server.close();
        assertThat(ListeningSockets.awaitNotListening(port, Duration.ofSeconds(5)))
                .as("closed")
                .isTrue();
    }

    @Test
    void aBoundSocketThatNeverListensIsNotAListener() {
        assumeTrue(ListeningSockets.readable(), "no /proc/net/tcp on this system");
        assertThat(ListeningSockets.listening(RefusingPort.shared().port())).isFalse();
    }
}
