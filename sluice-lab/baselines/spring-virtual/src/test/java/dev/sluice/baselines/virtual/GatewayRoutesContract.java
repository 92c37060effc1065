package dev.sluice.baselines.virtual;

import static dev.sluice.baselines.stubs.StubUpstreams.delayBody;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.baselines.stubs.StubUpstreams;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;

/**
 * The routes every mode of this baseline must serve, against real stub upstreams on loopback (the
 * subclass starts them). The stubs answer the three calls of a composition only when all three are in
 * flight at once, so a passing compose test also shows that the fan-out is concurrent.
 */
abstract class GatewayRoutesContract {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  @Value("${local.server.port}")
  private int port;

  @Test
  void composeJoinsTheThreeBodiesVerbatim() throws Exception {
    HttpResponse<String> response = get("/compose");

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
        type -> assertThat(type).startsWith("application/json"));
    assertThat(response.body()).isEqualTo("{\"products\":" + StubUpstreams.PRODUCTS
        + ",\"customers\":" + StubUpstreams.CUSTOMERS + ",\"reviews\":" + StubUpstreams.REVIEWS + "}");
  }

  @Test
  void composeDelayPutsEachIndexUnderItsName() throws Exception {
    HttpResponse<String> response = get("/compose-delay");

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(response.body()).isEqualTo(
        "{\"d1\":" + delayBody(1) + ",\"d2\":" + delayBody(2) + ",\"d3\":" + delayBody(3) + "}");
  }

  @Test
  void blockingReturnsTheUpstreamBody() throws Exception {
    HttpResponse<String> response = get("/blocking");

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(response.body()).isEqualTo(StubUpstreams.BLOCKING);
  }

  final HttpResponse<String> get(String path) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(30))
        .build();
    return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
  }
}
