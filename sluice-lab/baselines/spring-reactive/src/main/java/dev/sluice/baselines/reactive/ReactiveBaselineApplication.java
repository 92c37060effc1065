package dev.sluice.baselines.reactive;

import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * Baseline {@code spring-reactive}: the reactive gateway of paper 000 (SAG on Spring WebFlux / Reactor
 * Netty) and seed 004's "Reactive" style: {@code WebClient} calls joined with {@code Mono.zip}.
 *
 * <pre>
 * Build (from /work/main, JDK 25):
 *   export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
 *   ./mvnw -q -B -f sluice-lab/baselines/pom.xml package -DskipTests
 *
 * Run against the Sluice demo upstreams (127.0.0.1:19081..19085):
 *   java -jar sluice-lab/baselines/spring-reactive/target/spring-reactive.jar --server.port=8081
 *
 * Endpoints (the same in every baseline and in the Sluice demo):
 *   GET /compose        products + customers + reviews, concurrently:
 *                       {"products":..,"customers":..,"reviews":..} (bodies inserted verbatim)
 *   GET /compose-delay  three concurrent GET /delay?index=1..3: {"d1":..,"d2":..,"d3":..}
 *   GET /blocking       one call to the 5 s blocking upstream, its body returned
 *   GET /thread         {"virtual":false,"thread":"reactor-http-epoll-N"}
 *
 * Options (command line --name=value, or environment variables):
 *   --server.port=8080                                     listening port
 *   --baseline.upstream.products=http://127.0.0.1:19081    and .customers (19082), .reviews (19083),
 *                                                          .delay (19084), .blocking (19085): base URLs
 *   --baseline.max-connections=1000                        upstream pool, per upstream host:port
 * </pre>
 *
 * <p>The start-time measurement reads Spring Boot's "Started ReactiveBaselineApplication in" log line.
 */
@SpringBootApplication
public class ReactiveBaselineApplication {

  public static void main(String[] args) {
    SpringApplication.run(ReactiveBaselineApplication.class, args);
  }

  @Bean(destroyMethod = "dispose")
  ConnectionProvider upstreamConnections(@Value("${baseline.max-connections}") int maxConnections) {
    if (maxConnections < 1) {
      throw new IllegalArgumentException(
          "baseline.max-connections: " + maxConnections + " (expected: > 0)");
    }
    return ConnectionProvider.builder("upstreams")
        .maxConnections(maxConnections)
        .pendingAcquireMaxCount(-1)
        .maxIdleTime(Duration.ofSeconds(20))
        .build();
  }

  /** On the server's event loops (Boot's {@code ReactorResourceFactory}), as Boot's own WebClient is. */
  @Bean
  WebClient upstreamClient(ConnectionProvider upstreamConnections, ReactorResourceFactory resources) {
    HttpClient http = HttpClient.create(upstreamConnections).runOn(resources.getLoopResources());
    return WebClient.builder().clientConnector(new ReactorClientHttpConnector(http)).build();
  }
}
