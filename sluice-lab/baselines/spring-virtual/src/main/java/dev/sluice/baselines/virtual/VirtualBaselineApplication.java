package dev.sluice.baselines.virtual;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * Baseline {@code spring-virtual} (and {@code spring-platform}): the virtual-thread gateway of paper 000
 * (Spring WebMVC on Tomcat, blocking style), seed 001's virtual/platform switch and seed 004's
 * "Virtual threads" style: the three upstream calls run as three tasks on
 * {@code Executors.newVirtualThreadPerTaskExecutor()} and are joined. Upstream calls go through
 * {@code RestClient} on Apache HttpClient 5 with a pooling connection manager.
 *
 * <pre>
 * Build (from /work/main, JDK 25):
 *   export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
 *   ./mvnw -q -B -f sluice-lab/baselines/pom.xml package -DskipTests
 *
 * Run against the Sluice demo upstreams (127.0.0.1:19081..19085):
 *   spring-virtual:   java -jar sluice-lab/baselines/spring-virtual/target/spring-virtual.jar --server.port=8082
 *   spring-platform:  java -jar sluice-lab/baselines/spring-virtual/target/spring-virtual.jar --server.port=8083 \
 *                       --spring.threads.virtual.enabled=false
 *     (Tomcat's default 200 platform request threads; the fan-out runs on a cached platform pool)
 *
 * Endpoints (the same in every baseline and in the Sluice demo):
 *   GET /compose        products + customers + reviews, concurrently:
 *                       {"products":..,"customers":..,"reviews":..} (bodies inserted verbatim)
 *   GET /compose-delay  three concurrent GET /delay?index=1..3: {"d1":..,"d2":..,"d3":..}
 *   GET /blocking       one call to the 5 s blocking upstream, its body returned
 *   GET /thread         {"virtual":true,"thread":"tomcat-handler-.."} or {"virtual":false,"thread":"http-nio-.."}
 *
 * Options (command line --name=value, or environment variables):
 *   --server.port=8080                                     listening port
 *   --spring.threads.virtual.enabled=true                  false: platform threads (request and fan-out)
 *   --server.tomcat.threads.max=200                        Tomcat's platform pool (platform mode only)
 *   --baseline.upstream.products=http://127.0.0.1:19081    and .customers (19082), .reviews (19083),
 *                                                          .delay (19084), .blocking (19085): base URLs
 *   --baseline.max-connections=1000                        upstream pool, per upstream host:port
 * </pre>
 *
 * <p>The start-time measurement reads Spring Boot's "Started VirtualBaselineApplication in" log line.
 */
@SpringBootApplication
public class VirtualBaselineApplication {

  /** Upstream hosts the pool is sized for (products, customers, reviews, delay, blocking). */
  private static final int UPSTREAMS = 5;

  public static void main(String[] args) {
    SpringApplication.run(VirtualBaselineApplication.class, args);
  }

  /** Where the upstream calls of one request run: one virtual thread per call, or a platform pool. */
  @Bean(destroyMethod = "shutdownNow")
  ExecutorService fanOut(@Value("${spring.threads.virtual.enabled:false}") boolean virtual) {
    return virtual
        ? Executors.newVirtualThreadPerTaskExecutor()
        : Executors.newCachedThreadPool(Thread.ofPlatform().name("fanout-", 0).daemon().factory());
  }

  /**
   * Pooled Apache HttpClient 5, trimmed to what WebClient does by default: no retries (Apache's default
   * retries 503s and I/O errors), no cookies, no redirects, no gzip negotiation.
   */
  @Bean(destroyMethod = "close")
  CloseableHttpClient upstreamHttpClient(@Value("${baseline.max-connections}") int maxConnections) {
    if (maxConnections < 1) {
      throw new IllegalArgumentException(
          "baseline.max-connections: " + maxConnections + " (expected: > 0)");
    }
    PoolingHttpClientConnectionManager pool = PoolingHttpClientConnectionManagerBuilder.create()
        .setMaxConnPerRoute(maxConnections)
        .setMaxConnTotal(maxConnections * UPSTREAMS)
        .setDefaultConnectionConfig(ConnectionConfig.custom()
            .setConnectTimeout(Timeout.ofSeconds(5))
            .setSocketTimeout(Timeout.ofSeconds(60))
            .setValidateAfterInactivity(TimeValue.ofSeconds(2))
            .build())
        .build();
    return HttpClients.custom()
        .setConnectionManager(pool)
        .evictIdleConnections(TimeValue.ofSeconds(20))
        .disableAutomaticRetries()
        .disableCookieManagement()
        .disableAuthCaching()
        .disableRedirectHandling()
        .disableContentCompression()
        .build();
  }

  @Bean
  RestClient upstreamClient(CloseableHttpClient upstreamHttpClient) {
    return RestClient.builder()
        .requestFactory(new HttpComponentsClientHttpRequestFactory(upstreamHttpClient))
        .build();
  }
}
