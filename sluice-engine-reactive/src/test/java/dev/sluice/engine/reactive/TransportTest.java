package dev.sluice.engine.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.EngineMode;
import dev.sluice.config.GatewayConfig;
import dev.sluice.config.Transport;
import dev.sluice.engine.Engine;
import dev.sluice.engine.RunningGateway;
import dev.sluice.tck.Routes;
import dev.sluice.tck.TestGateway;
import dev.sluice.tck.TestUpstream;
import io.netty.channel.uring.IoUring;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code server.transport}: which event loops the reactive engine really runs on. */
@ExtendWith(LeakGuard.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TransportTest {

  private TestUpstream upstream;

  @BeforeAll
  void startUpstream() {
    upstream = TestUpstream.start();
  }

  @AfterAll
  void stopUpstream() {
    upstream.close();
  }

  private static TestGateway.Builder gateway(Transport transport, TestUpstream upstream) {
    return TestGateway.builder(EngineMode.REACTIVE).transport(transport).upstream("app", upstream.url())
        .route("any", Routes.on("/**"), Routes.proxy("app"));
  }

  /** The transport the gateway reports, after one proxied request went through it. */
  private String runOn(Transport transport) throws Exception {
    GatewayConfig config = gateway(transport, upstream).config();
    try (RunningGateway running = Engine.forMode(EngineMode.REACTIVE).start(config)) {
      HttpResponse<byte[]> response = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + running.port() + "/bytes/100")).build(),
          HttpResponse.BodyHandlers.ofByteArray());
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).hasSize(100);
      return running.transport();
    }
  }

  @Test
  void autoIsIoUringWhereTheKernelAllowsItAndNioElsewhere() throws Exception {
    assertThat(runOn(Transport.AUTO)).isEqualTo(IoUring.isAvailable() ? "io_uring" : "nio");
  }

  @Test
  void nioIsNio() throws Exception {
    assertThat(runOn(Transport.NIO)).isEqualTo("nio");
  }

  @Test
  void ioUringIsIoUringWhereTheKernelAllowsIt() throws Exception {
    if (IoUring.isAvailable()) {
      assertThat(runOn(Transport.IO_URING)).isEqualTo("io_uring");
    } else {
      assertThatThrownBy(() -> runOn(Transport.IO_URING)).isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("server.transport: io_uring is not available here (")
          .hasMessageEndingWith(") (expected: auto or nio)");
    }
  }
}
