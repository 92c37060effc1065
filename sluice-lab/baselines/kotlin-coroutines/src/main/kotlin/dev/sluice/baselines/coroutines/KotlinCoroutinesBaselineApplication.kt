package dev.sluice.baselines.coroutines

import java.time.Duration
import org.springframework.beans.factory.annotation.Value
import org.springframework.boot.autoconfigure.SpringBootApplication
import org.springframework.boot.runApplication
import org.springframework.context.annotation.Bean
import org.springframework.http.client.ReactorResourceFactory
import org.springframework.http.client.reactive.ReactorClientHttpConnector
import org.springframework.web.reactive.function.client.WebClient
import reactor.netty.http.client.HttpClient
import reactor.netty.resources.ConnectionProvider

/**
 * Baseline `kotlin-coroutines`: seed 004's "Kotlin coroutines" style on Spring WebFlux (Reactor Netty):
 * `suspend` handlers, `WebClient` with `awaitBody`, and `coroutineScope { async { .. } }` + `awaitAll`.
 *
 * ```
 * Build (from /work/main, JDK 25):
 *   export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
 *   ./mvnw -q -B -f sluice-lab/baselines/pom.xml package -DskipTests
 *
 * Run against the Sluice demo upstreams (127.0.0.1:19081..19085):
 *   java -jar sluice-lab/baselines/kotlin-coroutines/target/kotlin-coroutines.jar --server.port=8084
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
 * ```
 *
 * The start-time measurement reads Spring Boot's "Started KotlinCoroutinesBaselineApplicationKt in"
 * log line (Boot names the class that holds `main`).
 *
 * `proxyBeanMethods = false` because the classes stay final: the Kotlin `spring` (all-open) compiler
 * plugin is not used (kotlin-maven-allopen 2.4.21 is not on the Maven Central this lab reaches), and
 * no bean here needs a CGLIB proxy.
 */
@SpringBootApplication(proxyBeanMethods = false)
class KotlinCoroutinesBaselineApplication {

  @Bean(destroyMethod = "dispose")
  fun upstreamConnections(@Value("\${baseline.max-connections}") maxConnections: Int): ConnectionProvider {
    require(maxConnections > 0) { "baseline.max-connections: $maxConnections (expected: > 0)" }
    return ConnectionProvider.builder("upstreams")
      .maxConnections(maxConnections)
      .pendingAcquireMaxCount(-1)
      .maxIdleTime(Duration.ofSeconds(20))
      .build()
  }

  /** On the server's event loops (Boot's `ReactorResourceFactory`), as Boot's own WebClient is. */
  @Bean
  fun upstreamClient(upstreamConnections: ConnectionProvider, resources: ReactorResourceFactory): WebClient {
    val http = HttpClient.create(upstreamConnections).runOn(resources.loopResources)
    return WebClient.builder().clientConnector(ReactorClientHttpConnector(http)).build()
  }
}

fun main(args: Array<String>) {
  runApplication<KotlinCoroutinesBaselineApplication>(*args)
}
