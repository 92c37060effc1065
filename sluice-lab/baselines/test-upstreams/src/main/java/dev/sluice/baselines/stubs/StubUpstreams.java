package dev.sluice.baselines.stubs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The demo upstreams of the Sluice lab, in small, on one loopback {@link HttpServer} with an ephemeral
 * port: {@code GET /products}, {@code GET /customers/42}, {@code GET /reviews}, {@code GET /delay?index=N}
 * and {@code GET /blocking}.
 *
 * <p>The three compose upstreams answer only once all three of them have been called (a barrier of 3),
 * and so do three {@code /delay} calls: a gateway that calls them one after the other gets a 503 after
 * {@link #RENDEZVOUS_TIMEOUT} instead of the body. That is how the tests see that the fan-out is
 * concurrent without measuring time.
 */
public final class StubUpstreams implements AutoCloseable {

  /** How long a compose or delay call waits for its two siblings before giving up with 503. */
  public static final Duration RENDEZVOUS_TIMEOUT = Duration.ofSeconds(10);

  /** Body of {@code GET /products} (not ASCII-only, so a lossy charset round trip shows). */
  public static final String PRODUCTS =
      "[{\"id\":1,\"name\":\"anvil\",\"price\":9.5},{\"id\":2,\"name\":\"crème brûlée torch\",\"price\":31}]";
  /** Body of {@code GET /customers/42}. */
  public static final String CUSTOMERS = "{\"id\":42,\"name\":\"Ada\",\"city\":\"Zürich\",\"tags\":[\"gold\"]}";
  /** Body of {@code GET /reviews}. */
  public static final String REVIEWS = "[{\"product\":1,\"stars\":5,\"text\":\"solid \\\"forever\\\"\"}]";
  /** Body of {@code GET /blocking}. */
  public static final String BLOCKING = "{\"blocking\":true,\"data\":\"test data\"}";

  private static final Pattern INDEX = Pattern.compile("(?:^|&)index=(-?\\d+)(?:&|$)");

  private final HttpServer server;
  private final ExecutorService executor;
  private final Duration blockingDelay;
  private final CyclicBarrier composeBarrier = new CyclicBarrier(3);
  private final CyclicBarrier delayBarrier = new CyclicBarrier(3);

  private StubUpstreams(Duration blockingDelay) throws IOException {
    this.blockingDelay = blockingDelay;
    this.executor = Executors.newVirtualThreadPerTaskExecutor();
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
    server.setExecutor(executor);
    server.createContext("/products", exchange -> rendezvous(exchange, composeBarrier, PRODUCTS));
    server.createContext("/customers/42", exchange -> rendezvous(exchange, composeBarrier, CUSTOMERS));
    server.createContext("/reviews", exchange -> rendezvous(exchange, composeBarrier, REVIEWS));
    server.createContext("/delay", this::delay);
    server.createContext("/blocking", this::blocking);
    server.start();
  }

  /**
   * Starts the stubs on 127.0.0.1 with an ephemeral port.
   *
   * @param blockingDelay how long {@code GET /blocking} sleeps before answering (the demo's is 5 s)
   */
  public static StubUpstreams start(Duration blockingDelay) {
    requireNonNull(blockingDelay, "blockingDelay");
    if (blockingDelay.isNegative()) {
      throw new IllegalArgumentException("blockingDelay: " + blockingDelay + " (expected: >= 0)");
    }
    try {
      return new StubUpstreams(blockingDelay);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the stub upstreams on loopback", e);
    }
  }

  /** The body the delay upstream answers for {@code index}, as the seed's delay API does. */
  public static String delayBody(int index) {
    return "{\"index\":" + index + ",\"data\":\"test data\"}";
  }

  /** {@code http://127.0.0.1:<port>}. */
  public String baseUrl() {
    InetSocketAddress address = server.getAddress();
    return "http://" + address.getAddress().getHostAddress() + ":" + address.getPort();
  }

  /** The baselines' upstream properties, all pointing at this server. */
  public Map<String, String> properties() {
    String base = baseUrl();
    return Map.of(
        "baseline.upstream.products", base,
        "baseline.upstream.customers", base,
        "baseline.upstream.reviews", base,
        "baseline.upstream.delay", base,
        "baseline.upstream.blocking", base);
  }

  private void delay(HttpExchange exchange) throws IOException {
    String query = exchange.getRequestURI().getRawQuery();
    Matcher matcher = INDEX.matcher(query == null ? "" : query);
    if (!matcher.find()) {
      respond(exchange, 400, "{\"error\":\"query: " + query + " (expected: index=N)\"}");
      return;
    }
    rendezvous(exchange, delayBarrier, delayBody(Integer.parseInt(matcher.group(1))));
  }

  private void blocking(HttpExchange exchange) throws IOException {
    try {
      Thread.sleep(blockingDelay);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      respond(exchange, 503, "{\"error\":\"interrupted\"}");
      return;
    }
    respond(exchange, 200, BLOCKING);
  }

  private static void rendezvous(HttpExchange exchange, CyclicBarrier barrier, String body)
      throws IOException {
    try {
      barrier.await(RENDEZVOUS_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | BrokenBarrierException e) {
      barrier.reset();
      respond(exchange, 503, "{\"error\":\"" + exchange.getRequestURI().getPath()
          + ": its 2 sibling calls did not arrive concurrently within " + RENDEZVOUS_TIMEOUT + "\"}");
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      respond(exchange, 503, "{\"error\":\"interrupted\"}");
      return;
    }
    respond(exchange, 200, body);
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    try (exchange) {
      exchange.getRequestBody().readAllBytes();
      byte[] bytes = body.getBytes(UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, bytes.length);
      exchange.getResponseBody().write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
