package dev.sluice.engine.reactive;

import dev.sluice.config.UpstreamConfig;
import dev.sluice.policy.Pacer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.util.concurrent.EventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.netty.ConnectionObserver;
import reactor.netty.NettyOutbound;
import reactor.netty.NettyPipeline;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.client.HttpClientRequest;
import reactor.netty.http.client.HttpClientState;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

/**
 * One upstream: its {@link HttpClient}s on the gateway's event loops, the fixed connection pools
 * behind them ({@code max-connections}, {@code max-pending}, {@code acquire-timeout}, {@code
 * idle-timeout}), and its {@link Pacer} when it is paced.
 *
 * <p>Every pooled connection carries a {@link ReadStall} handler that enforces {@code
 * read-timeout}: armed when a request has been sent, it fails the exchange when the upstream sends
 * nothing for that long while the gateway is waiting for bytes.
 *
 * <p>Requests are prepared once per lane and method ({@link #request}), not per call: what a call
 * sends is an {@link Exchange} it puts in the subscriber context, so that a call costs one client
 * configuration copy (its URI), or none for a fixed path ({@link #fixedGet}).
 */
final class Upstream {

  /** What one call writes: its headers, and its body if any. Found in the call's context. */
  interface Exchange {
    Publisher<Void> send(HttpClientRequest request, NettyOutbound out);
  }

  /** Largest body piece the response decoder hands over: a whole socket read, not 8 KB slices of it. */
  private static final int MAX_CHUNK = 64 * 1024;

  /** Methods prepared per lane; requests with other methods are prepared per call. */
  private static final int MAX_PREPARED_METHODS = 16;

  /** Per-loop pools only when each loop can still have this many connections of its own. */
  static final int MIN_CONNECTIONS_PER_LANE = 8;

  private static final BiFunction<HttpClientRequest, NettyOutbound, Publisher<Void>> SEND =
      (request, out) -> request.currentContextView().get(Exchange.class).send(request, out);

  private final UpstreamConfig config;
  private final ConnectionProvider[] pools;
  private final Lane shared; // the only lane, or the lane of a caller off the event loops
  private final Map<EventExecutor, Lane> lanes; // empty when there is one shared pool
  private final Pacer pacer; // null when the upstream is not paced
  private final String basePath;
  private final String authority;
  private final long readTimeoutNanos;

  /** One pool and its client: all its connections live on one event loop (or, unshared, on any). */
  private static final class Lane {
    final HttpClient client;
    final HttpClient.ResponseReceiver<?> get;
    final Map<HttpMethod, HttpClient.ResponseReceiver<?>> methods = new ConcurrentHashMap<>();

    Lane(HttpClient client) {
      this.client = client;
      this.get = client.request(HttpMethod.GET).send(SEND);
      methods.put(HttpMethod.GET, get);
    }

    HttpClient.ResponseReceiver<?> request(HttpMethod method) {
      HttpClient.ResponseReceiver<?> receiver = methods.get(method);
      if (receiver != null) {
        return receiver;
      }
      receiver = client.request(method).send(SEND);
      if (methods.size() < MAX_PREPARED_METHODS) { // clients choose methods: keep the cache bounded
        methods.putIfAbsent(method, receiver);
      }
      return receiver;
    }
  }

  private Upstream(UpstreamConfig config, ConnectionProvider[] pools, Lane shared, Map<EventExecutor, Lane> lanes) {
    this.config = config;
    this.pools = pools;
    this.shared = shared;
    this.lanes = lanes;
    this.pacer = config.pace().map(Pacer::new).orElse(null);
    this.basePath = config.basePath();
    this.authority = config.authority();
    this.readTimeoutNanos = config.readTimeout().toNanos();
  }

  /**
   * Makes the pools and clients; resolves the upstream's address once, here, off the event loops.
   *
   * <p>With enough connections ({@value #MIN_CONNECTIONS_PER_LANE} per event loop or more), every
   * event loop gets a pool of its own, {@code max-connections} and {@code max-pending} shared out
   * evenly: a request then always gets a connection that lives on its own loop, and its upstream
   * bytes never hop threads. Smaller pools stay one pool, so that {@code max-connections: 1} means
   * one connection.
   */
  static Upstream create(UpstreamConfig config, LoopResources loops, boolean nativeIo) {
    InetSocketAddress address = new InetSocketAddress(config.host(), config.port());
    List<EventExecutor> executors = new ArrayList<>();
    loops.onServer(nativeIo).forEach(executors::add);
    int laneCount = config.maxConnections() >= MIN_CONNECTIONS_PER_LANE * executors.size() ? executors.size() : 1;
    ConnectionProvider[] pools = new ConnectionProvider[laneCount];
    Map<EventExecutor, Lane> lanes = new IdentityHashMap<>();
    Lane first = null;
    for (int i = 0; i < laneCount; i++) {
      pools[i] = pool(config, i, laneCount);
      Lane lane = new Lane(client(config, pools[i], loops, nativeIo, address));
      first = first == null ? lane : first;
      if (laneCount > 1) {
        lanes.put(executors.get(i), lane);
      }
    }
    return new Upstream(config, pools, first, lanes);
  }

  private static ConnectionProvider pool(UpstreamConfig config, int lane, int laneCount) {
    return ConnectionProvider.builder("sluice-" + config.name() + (laneCount > 1 ? "-" + lane : ""))
        .maxConnections(share(config.maxConnections(), laneCount))
        .pendingAcquireMaxCount(share(config.maxPending(), laneCount))
        .pendingAcquireTimeout(config.acquireTimeout())
        .maxIdleTime(config.idleTimeout())
        .build();
  }

  private static int share(int total, int lanes) {
    return lanes == 1 ? total : (total + lanes - 1) / lanes;
  }

  @SuppressWarnings("deprecation") // maxChunkSize: still honoured by Netty 4.2's decoder
  private static HttpClient client(UpstreamConfig config, ConnectionProvider pool, LoopResources loops,
      boolean nativeIo, InetSocketAddress address) {
    long readTimeoutNanos = config.readTimeout().toNanos();
    return HttpClient.create(pool)
        .runOn(loops, nativeIo)
        .remoteAddress(() -> address)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, millis(config.connectTimeout()))
        .disableRetry(true)
        .followRedirect(false)
        .compress(false)
        .keepAlive(true)
        .httpResponseDecoder(spec -> spec.maxChunkSize(MAX_CHUNK))
        .observe((connection, state) -> {
          if (state == ConnectionObserver.State.CONFIGURED) {
            ChannelPipeline pipeline = connection.channel().pipeline();
            if (pipeline.get(ReadStall.NAME) == null) {
              pipeline.addBefore(NettyPipeline.ReactiveBridge, ReadStall.NAME, new ReadStall(readTimeoutNanos));
            }
          } else if (state == HttpClientState.REQUEST_PREPARED || state == HttpClientState.REQUEST_SENT) {
            if (connection.channel().pipeline().get(ReadStall.NAME) instanceof ReadStall stall) {
              if (state == HttpClientState.REQUEST_PREPARED) {
                stall.requestStarted();
              } else {
                stall.requestSent();
              }
            }
          }
        });
  }

  private static int millis(Duration duration) {
    return (int) Math.min(Integer.MAX_VALUE, Math.max(1, duration.toMillis()));
  }

  private Lane lane(EventExecutor loop) {
    if (lanes.isEmpty()) {
      return shared;
    }
    Lane lane = lanes.get(loop);
    return lane != null ? lane : shared;
  }

  /**
   * A call prepared on {@code loop}'s lane (the caller's event loop): give it a URI, receive its
   * response, and put its {@link Exchange} in the context.
   */
  HttpClient.ResponseReceiver<?> request(EventExecutor loop, HttpMethod method) {
    return lane(loop).request(method);
  }

  /** GETs of one fixed path, prepared on every lane: a call to it copies no configuration. */
  FixedGet fixedGet(String path) {
    Map<EventExecutor, HttpClient.ResponseReceiver<?>> byLoop = new IdentityHashMap<>();
    lanes.forEach((loop, lane) -> byLoop.put(loop, lane.get.uri(path)));
    return new FixedGet(shared.get.uri(path), byLoop);
  }

  /** See {@link #fixedGet}. */
  static final class FixedGet {
    private final HttpClient.ResponseReceiver<?> shared;
    private final Map<EventExecutor, HttpClient.ResponseReceiver<?>> byLoop;

    private FixedGet(HttpClient.ResponseReceiver<?> shared, Map<EventExecutor, HttpClient.ResponseReceiver<?>> byLoop) {
      this.shared = shared;
      this.byLoop = byLoop;
    }

    HttpClient.ResponseReceiver<?> on(EventExecutor loop) {
      HttpClient.ResponseReceiver<?> receiver = byLoop.get(loop);
      return receiver != null ? receiver : shared;
    }
  }

  UpstreamConfig config() {
    return config;
  }

  String name() {
    return config.name();
  }

  /** The base path without a trailing slash (may be empty). */
  String basePath() {
    return basePath;
  }

  /** The Host header value for this upstream. */
  String authority() {
    return authority;
  }

  long readTimeoutNanos() {
    return readTimeoutNanos;
  }

  /** Reserves a start slot: nanoseconds to wait before the call may start (0 when unpaced). */
  long reserveStart() {
    return pacer == null ? 0 : pacer.reserve();
  }

  /** Closes the pooled connections. */
  Mono<Void> dispose() {
    List<Mono<Void>> all = new ArrayList<>();
    for (ConnectionProvider pool : pools) {
      all.add(pool.disposeLater());
    }
    return Mono.when(all);
  }
}
