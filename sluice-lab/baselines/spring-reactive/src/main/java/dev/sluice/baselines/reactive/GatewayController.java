package dev.sluice.baselines.reactive;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.net.URI;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

/** The gateway's routes, WebFlux style: every upstream call is a {@code Mono}, joined by {@code Mono.zip}. */
@RestController
class GatewayController {

  private static final byte[][] COMPOSE = frame("products", "customers", "reviews");
  private static final byte[][] COMPOSE_DELAY = frame("d1", "d2", "d3");

  private final WebClient client;
  private final URI products;
  private final URI customers;
  private final URI reviews;
  private final URI[] delays;
  private final URI blocking;

  GatewayController(
      WebClient upstreamClient,
      @Value("${baseline.upstream.products}") String products,
      @Value("${baseline.upstream.customers}") String customers,
      @Value("${baseline.upstream.reviews}") String reviews,
      @Value("${baseline.upstream.delay}") String delay,
      @Value("${baseline.upstream.blocking}") String blocking) {
    this.client = upstreamClient;
    this.products = URI.create(products + "/products");
    this.customers = URI.create(customers + "/customers/42");
    this.reviews = URI.create(reviews + "/reviews");
    this.delays = new URI[] {
        URI.create(delay + "/delay?index=1"),
        URI.create(delay + "/delay?index=2"),
        URI.create(delay + "/delay?index=3")};
    this.blocking = URI.create(blocking + "/blocking");
  }

  @GetMapping("/compose")
  Mono<ResponseEntity<byte[]>> compose() {
    return Mono.zip(get(products), get(customers), get(reviews))
        .map(t -> json(fill(COMPOSE, t.getT1(), t.getT2(), t.getT3())));
  }

  @GetMapping("/compose-delay")
  Mono<ResponseEntity<byte[]>> composeDelay() {
    return Mono.zip(get(delays[0]), get(delays[1]), get(delays[2]))
        .map(t -> json(fill(COMPOSE_DELAY, t.getT1(), t.getT2(), t.getT3())));
  }

  @GetMapping("/blocking")
  Mono<ResponseEntity<byte[]>> blocking() {
    return get(blocking).map(GatewayController::json);
  }

  @GetMapping("/thread")
  ResponseEntity<byte[]> thread() {
    Thread thread = Thread.currentThread();
    String name = thread.getName().replace("\\", "\\\\").replace("\"", "\\\"");
    return json(("{\"virtual\":" + thread.isVirtual() + ",\"thread\":\"" + name + "\"}").getBytes(UTF_8));
  }

  private Mono<byte[]> get(URI uri) {
    return client.get().uri(uri).retrieve().bodyToMono(byte[].class)
        .switchIfEmpty(Mono.error(() -> new IllegalStateException(
            "GET " + uri + ": empty body (expected: a JSON document)")));
  }

  private static ResponseEntity<byte[]> json(byte[] body) {
    return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(body);
  }

  /** The constant parts of {@code {"a":A,"b":B,...}}: {@code {"a":}, {@code ,"b":}, ..., {@code }}. */
  private static byte[][] frame(String... names) {
    byte[][] frame = new byte[names.length + 1][];
    for (int i = 0; i < names.length; i++) {
      frame[i] = ((i == 0 ? "{" : ",") + "\"" + names[i] + "\":").getBytes(UTF_8);
    }
    frame[names.length] = "}".getBytes(UTF_8);
    return frame;
  }

  /** The frame with the raw JSON values inserted, as one array. */
  private static byte[] fill(byte[][] frame, byte[]... values) {
    int length = 0;
    for (byte[] part : frame) {
      length += part.length;
    }
    for (byte[] value : values) {
      length += value.length;
    }
    byte[] out = new byte[length];
    int at = 0;
    for (int i = 0; i < values.length; i++) {
      System.arraycopy(frame[i], 0, out, at, frame[i].length);
      at += frame[i].length;
      System.arraycopy(values[i], 0, out, at, values[i].length);
      at += values[i].length;
    }
    System.arraycopy(frame[values.length], 0, out, at, frame[values.length].length);
    return out;
  }
}
