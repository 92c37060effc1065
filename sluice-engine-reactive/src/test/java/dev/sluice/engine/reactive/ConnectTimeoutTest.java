package dev.sluice.engine.reactive;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.EngineMode;
import dev.sluice.config.GatewayConfig;
import dev.sluice.config.UpstreamConfig;
import dev.sluice.engine.RunningGateway;
import dev.sluice.http.UpstreamFailure;
import dev.sluice.tck.Composed;
import dev.sluice.tck.Json;
import dev.sluice.tck.TestGateway;
import dev.sluice.tck.WireClient;
import dev.sluice.tck.WireResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An upstream that never completes the TCP handshake (a loopback listener whose accept queue is
 * full, so the kernel drops further SYNs) is a connect timeout: 504 {@code connect_timeout} for a
 * proxy, a {@code null} part for a composition.
 */
@ExtendWith(LeakGuard.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConnectTimeoutTest {

    @Test
    void aHandshakeThatNeverCompletesIsAConnectTimeout() throws Exception {
        try (Unanswering upstream = Unanswering.start()) {
            GatewayConfig routes = TestGateway.builder(EngineMode.REACTIVE)
                    .upstream("mute", upstream.url())
                    .route("p", on("/p/**"), proxy("mute").stripPrefix("/p"))
                    .route("c", on("/c"), compose().part("only", "mute", "/json/10"))
                    .config();
            UpstreamConfig d = routes.upstream("mute");
            UpstreamConfig mute = new UpstreamConfig(
                    d.name(),
                    d.url(),
                    d.maxConnections(),
                    Duration.ofMillis(300),
                    d.readTimeout(),
                    d.acquireTimeout(),
                    d.maxPending(),
                    d.idleTimeout(),
                    d.pace());
            GatewayConfig config =
                    new GatewayConfig(routes.server(), routes.admin(), Map.of("mute", mute), routes.routes());
            try (RunningGateway gw = new ReactiveEngine().start(config)) {
                WireResponse proxied = WireClient.to(gw.port()).get("/p/anything");
                assertThat(proxied.status()).as("%s", proxied).isEqualTo(504);
                assertThat(Json.object(proxied.body()).get("error")).isEqualTo(UpstreamFailure.CONNECT_TIMEOUT.code());

                Composed composed = Composed.of(WireClient.to(gw.port()).get("/c"));
                assertThat(composed.part("only")).isEqualTo(Json.NULL);
                assertThat(composed.error("only")).hasValue(UpstreamFailure.CONNECT_TIMEOUT.reason());
            }
        }
    }

    /** A listener with a one-slot accept queue, filled and never accepted. */
    private static final class Unanswering implements AutoCloseable {
        private final ServerSocket listener;
        private final List<Socket> fillers = new ArrayList<>();

        private Unanswering(ServerSocket listener) {
            this.listener = listener;
        }

        static Unanswering start() throws IOException {
            ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
            Unanswering upstream = new Unanswering(listener);
            for (int i = 0; i < 4; i++) { // the queue holds backlog + 1; extra attempts just time out
                Socket filler = new Socket();
                try {
                    filler.connect(
                            new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort()), 200);
                    upstream.fillers.add(filler);
                } catch (IOException full) {
                    filler.close();
                    break;
                }
            }
            return upstream;
        }

        URI url() {
            return URI.create("http://127.0.0.1:" + listener.getLocalPort());
        }

        @Override
        public void close() throws IOException {
            for (Socket filler : fillers) {
                filler.close();
            }
            listener.close();
        }
    }
}
