package dev.sluice.baselines.virtual;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.boot.test.context.SpringBootTest.WebEnvironment.RANDOM_PORT;

import dev.sluice.baselines.stubs.StubUpstreams;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The default mode, {@code spring-virtual}: Tomcat and the fan-out on virtual threads. */
@SpringBootTest(webEnvironment = RANDOM_PORT)
class VirtualBaselineTest extends GatewayRoutesContract {

  private static final StubUpstreams UPSTREAMS = StubUpstreams.start(Duration.ofMillis(100));

  @DynamicPropertySource
  static void upstreams(DynamicPropertyRegistry registry) {
    UPSTREAMS.properties().forEach((name, value) -> registry.add(name, () -> value));
  }

  @AfterAll
  static void stopUpstreams() {
    UPSTREAMS.close();
  }

  @Test
  void threadReportsAVirtualTomcatThread() throws Exception {
    HttpResponse<String> response = get("/thread");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).matches("\\{\"virtual\":true,\"thread\":\"tomcat-handler-\\d+\"}");
  }

  @Test
  void fanOutRunsOnVirtualThreads(@Autowired ExecutorService fanOut) throws Exception {
    assertThat(fanOut.submit(() -> Thread.currentThread().isVirtual()).get()).isTrue();
  }
}
