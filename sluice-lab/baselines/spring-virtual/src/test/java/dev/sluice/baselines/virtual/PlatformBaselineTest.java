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

/** The {@code spring-platform} mode of seed 001: {@code spring.threads.virtual.enabled=false}. */
@SpringBootTest(webEnvironment = RANDOM_PORT, properties = "spring.threads.virtual.enabled=false")
class PlatformBaselineTest extends GatewayRoutesContract {

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
  void threadReportsAPlatformTomcatThread() throws Exception {
    HttpResponse<String> response = get("/thread");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).matches("\\{\"virtual\":false,\"thread\":\"http-nio-[a-z0-9-]+-exec-\\d+\"}");
  }

  @Test
  void fanOutRunsOnPlatformThreads(@Autowired ExecutorService fanOut) throws Exception {
    assertThat(fanOut.submit(() -> Thread.currentThread().isVirtual()).get()).isFalse();
  }
}
