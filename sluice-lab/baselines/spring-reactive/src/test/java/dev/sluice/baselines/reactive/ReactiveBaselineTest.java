package dev.sluice.baselines.reactive;

import static dev.sluice.baselines.stubs.StubUpstreams.delayBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.boot.test.context.SpringBootTest.WebEnvironment.RANDOM_PORT;

import dev.sluice.baselines.stubs.StubUpstreams;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The reactive baseline on a random port against real stub upstreams on loopback. The stubs answer
 * the three calls of a composition only when all three are in flight at once, so a passing compose
 * test also shows that the fan-out is concurrent.
 */
@SpringBootTest(webEnvironment = RANDOM_PORT)
class ReactiveBaselineTest {

  private static final StubUpstreams UPSTREAMS = StubUpstreams.start(Duration.ofMillis(100));
  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  @Value("${local.server.port}")
  private int port;

  @DynamicPropertySource
  static void upstreams(DynamicPropertyRegistry registry) {
    UPSTREAMS.properties().forEach((name, value) -> registry.add(name, () -> value));
  }

  @AfterAll
  static void stopUpstreams() {
    UPSTREAMS.close();
  }

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

  @Test
  void threadReportsAnEventLoopPlatformThread() throws Exception {
    HttpResponse<String> response = get("/thread");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).matches("\\{\"virtual\":false,\"thread\":\"(reactor|webflux)-http-[a-z]+-\\d+\"}");
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(30))
        .build();
    return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
  }
}
