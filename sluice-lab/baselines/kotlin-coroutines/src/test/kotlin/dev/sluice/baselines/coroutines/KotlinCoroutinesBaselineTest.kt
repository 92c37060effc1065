package dev.sluice.baselines.coroutines

import dev.sluice.baselines.stubs.StubUpstreams
import dev.sluice.baselines.stubs.StubUpstreams.delayBody
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.springframework.beans.factory.annotation.Value
import org.springframework.boot.test.context.SpringBootTest
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment.RANDOM_PORT
import org.springframework.test.context.DynamicPropertyRegistry
import org.springframework.test.context.DynamicPropertySource

/**
 * The coroutine baseline on a random port against real stub upstreams on loopback. The stubs answer
 * the three calls of a composition only when all three are in flight at once, so a passing compose
 * test also shows that the fan-out is concurrent.
 */
@SpringBootTest(webEnvironment = RANDOM_PORT)
class KotlinCoroutinesBaselineTest(@Value("\${local.server.port}") private val port: Int) {

  @Test
  fun `compose joins the three bodies verbatim`() {
    val response = get("/compose")

    assertThat(response.statusCode()).`as`(response.body()).isEqualTo(200)
    assertThat(response.headers().firstValue("Content-Type"))
      .hasValueSatisfying { assertThat(it).startsWith("application/json") }
    assertThat(response.body()).isEqualTo(
      """{"products":${StubUpstreams.PRODUCTS},"customers":${StubUpstreams.CUSTOMERS},""" +
        """"reviews":${StubUpstreams.REVIEWS}}""",
    )
  }

  @Test
  fun `compose-delay puts each index under its name`() {
    val response = get("/compose-delay")

    assertThat(response.statusCode()).`as`(response.body()).isEqualTo(200)
    assertThat(response.body())
      .isEqualTo("""{"d1":${delayBody(1)},"d2":${delayBody(2)},"d3":${delayBody(3)}}""")
  }

  @Test
  fun `blocking returns the upstream body`() {
    val response = get("/blocking")

    assertThat(response.statusCode()).`as`(response.body()).isEqualTo(200)
    assertThat(response.body()).isEqualTo(StubUpstreams.BLOCKING)
  }

  @Test
  fun `thread reports an event-loop platform thread`() {
    val response = get("/thread")

    assertThat(response.statusCode()).isEqualTo(200)
    assertThat(response.body()).matches("""\{"virtual":false,"thread":"(reactor|webflux)-http-[a-z]+-\d+"}""")
  }

  private fun get(path: String): HttpResponse<String> {
    val request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:$port$path"))
      .timeout(Duration.ofSeconds(30))
      .build()
    return CLIENT.send(request, HttpResponse.BodyHandlers.ofString())
  }

  companion object {
    private val UPSTREAMS = StubUpstreams.start(Duration.ofMillis(100))
    private val CLIENT: HttpClient = HttpClient.newHttpClient()

    @JvmStatic
    @DynamicPropertySource
    fun upstreams(registry: DynamicPropertyRegistry) {
      UPSTREAMS.properties().forEach { (name, value) -> registry.add(name) { value } }
    }

    @JvmStatic
    @AfterAll
    fun stopUpstreams() {
      UPSTREAMS.close()
    }
  }
}
