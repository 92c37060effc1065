package dev.sluice.baselines.coroutines

import java.net.URI
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.coroutineScope
import org.springframework.beans.factory.annotation.Value
import org.springframework.http.MediaType
import org.springframework.http.ResponseEntity
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.RestController
import org.springframework.web.reactive.function.client.WebClient
import org.springframework.web.reactive.function.client.awaitBody

/** The gateway's routes, coroutine style: one `async` per upstream call, joined by `awaitAll`. */
@RestController
class GatewayController(
  private val upstreamClient: WebClient,
  @Value("\${baseline.upstream.products}") products: String,
  @Value("\${baseline.upstream.customers}") customers: String,
  @Value("\${baseline.upstream.reviews}") reviews: String,
  @Value("\${baseline.upstream.delay}") delay: String,
  @Value("\${baseline.upstream.blocking}") blocking: String,
) {

  private val composeUris = listOf(
    URI.create("$products/products"),
    URI.create("$customers/customers/42"),
    URI.create("$reviews/reviews"),
  )
  private val delayUris = (1..3).map { URI.create("$delay/delay?index=$it") }
  private val blockingUri = URI.create("$blocking/blocking")

  @GetMapping("/compose")
  suspend fun compose(): ResponseEntity<ByteArray> = json(fill(COMPOSE, getAll(composeUris)))

  @GetMapping("/compose-delay")
  suspend fun composeDelay(): ResponseEntity<ByteArray> = json(fill(COMPOSE_DELAY, getAll(delayUris)))

  @GetMapping("/blocking")
  suspend fun blocking(): ResponseEntity<ByteArray> = json(get(blockingUri))

  @GetMapping("/thread")
  fun thread(): ResponseEntity<ByteArray> {
    val thread = Thread.currentThread()
    val name = thread.name.replace("\\", "\\\\").replace("\"", "\\\"")
    return json("""{"virtual":${thread.isVirtual},"thread":"$name"}""".toByteArray())
  }

  private suspend fun getAll(uris: List<URI>): List<ByteArray> = coroutineScope {
    uris.map { async { get(it) } }.awaitAll()
  }

  private suspend fun get(uri: URI): ByteArray = upstreamClient.get().uri(uri).retrieve().awaitBody()

  private companion object {
    val COMPOSE = frame("products", "customers", "reviews")
    val COMPOSE_DELAY = frame("d1", "d2", "d3")

    fun json(body: ByteArray): ResponseEntity<ByteArray> =
      ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(body)

    /** The constant parts of `{"a":A,"b":B,...}`: `{"a":`, `,"b":`, ..., `}`. */
    fun frame(vararg names: String): List<ByteArray> =
      names.mapIndexed { i, name -> """${if (i == 0) "{" else ","}"$name":""".toByteArray() } +
        listOf("}".toByteArray())

    /** The frame with the raw JSON values inserted, as one array. */
    fun fill(frame: List<ByteArray>, values: List<ByteArray>): ByteArray {
      val out = ByteArray(frame.sumOf { it.size } + values.sumOf { it.size })
      var at = 0
      for (i in values.indices) {
        frame[i].copyInto(out, at)
        at += frame[i].size
        values[i].copyInto(out, at)
        at += values[i].size
      }
      frame[values.size].copyInto(out, at)
      return out
    }
  }
}
