package dev.sluice.baselines.virtual;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;

/**
 * The gateway's routes, blocking style: each upstream call is a task on the fan-out executor, the
 * request thread waits for all of them.
 */
@RestController
class GatewayController {

  private static final byte[][] COMPOSE = frame("products", "customers", "reviews");
  private static final byte[][] COMPOSE_DELAY = frame("d1", "d2", "d3");

  private final RestClient client;
  private final ExecutorService fanOut;
  private final URI products;
  private final URI customers;
  private final URI reviews;
  private final URI[] delays;
  private final URI blocking;

  GatewayController(
      RestClient upstreamClient,
      ExecutorService fanOut,
      @Value("${baseline.upstream.products}") String products,
      @Value("${baseline.upstream.customers}") String customers,
      @Value("${baseline.upstream.reviews}") String reviews,
      @Value("${baseline.upstream.delay}") String delay,
      @Value("${baseline.upstream.blocking}") String blocking) {
    this.client = upstreamClient;
    this.fanOut = fanOut;
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
  ResponseEntity<byte[]> compose() {
    return json(fill(COMPOSE, getAll(products, customers, reviews)));
  }

  @GetMapping("/compose-delay")
  ResponseEntity<byte[]> composeDelay() {
    return json(fill(COMPOSE_DELAY, getAll(delays)));
  }

  @GetMapping("/blocking")
  ResponseEntity<byte[]> blocking() {
    return json(get(blocking));
  }

  @GetMapping("/thread")
  ResponseEntity<byte[]> thread() {
    Thread thread = Thread.currentThread();
    String name = thread.getName().replace("\\", "\\\\").replace("\"", "\\\"");
    return json(("{\"virtual\":" + thread.isVirtual() + ",\"thread\":\"" + name + "\"}").getBytes(UTF_8));
  }

  /** Submits one task per call, then waits for each; a failure cancels the calls still running. */
  private byte[][] getAll(URI... uris) {
    List<Future<byte[]>> calls = new ArrayList<>(uris.length);
    try {
      for (URI uri : uris) {
        calls.add(fanOut.submit(() -> get(uri)));
      }
      byte[][] bodies = new byte[uris.length][];
      for (int i = 0; i < uris.length; i++) {
        bodies[i] = calls.get(i).get();
      }
      return bodies;
    } catch (ExecutionException e) {
      throw new IllegalStateException("upstream call failed: " + e.getCause(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the upstream calls", e);
    } finally {
      for (Future<byte[]> call : calls) {
        call.cancel(true);
      }
    }
  }

  private byte[] get(URI uri) {
    byte[] body = client.get().uri(uri).retrieve().body(byte[].class);
    if (body == null) {
      throw new IllegalStateException("GET " + uri + ": empty body (expected: a JSON document)");
    }
    return body;
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
