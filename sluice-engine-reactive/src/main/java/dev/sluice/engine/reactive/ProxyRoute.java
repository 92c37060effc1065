package dev.sluice.engine.reactive;

import dev.sluice.config.ProxyTarget;
import dev.sluice.config.RouteConfig;
import dev.sluice.http.ErrorBody;
import dev.sluice.http.HeaderRules;
import dev.sluice.http.RetryRule;
import dev.sluice.http.UpstreamFailure;
import dev.sluice.routing.RouteTable;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.NettyOutbound;
import reactor.netty.http.client.HttpClientRequest;
import reactor.netty.http.client.HttpClientResponse;
import reactor.netty.http.server.HttpServerResponse;
import reactor.util.context.Context;
import reactor.util.retry.Retry;

/**
 * A {@code proxy:} route. Both bodies stream: the client's request body is written upstream as it
 * arrives, and the upstream's response buffers are written to the client as they arrive, with
 * backpressure both ways (a slow reader stops the reads on the other side).
 *
 * <pre>
 *   client ──receive()──► HttpClient.send ──► upstream
 *   client ◄──send(body)── HttpClient.response ◄── upstream
 * </pre>
 */
final class ProxyRoute {

  private final ProxyTarget target;
  private final Upstream upstream;
  private final HeaderRules rules;
  private final long timeoutNanos; // 0 when the route has none

  ProxyRoute(RouteConfig route, ProxyTarget target, Upstream upstream) {
    this.target = target;
    this.upstream = upstream;
    this.rules = HeaderRules.of(route.filters());
    this.timeoutNanos = target.timeout().map(Duration::toNanos).orElse(0L);
  }

  /**
   * @throws dev.sluice.routing.PathTemplate.MissingVariableException when the path template lacks
   *     a value (the caller answers 400)
   */
  Mono<Void> handle(ClientRequest in, HttpServerResponse response, RouteTable.Result.Matched match, Channel channel) {
    String uri = upstreamTarget(in, match);
    EventLoop home = channel.eventLoop();
    Call call = new Call(in, response, channel);
    Mono<Void> exchange = upstream.request(home, in.request.method())
        .uri(uri)
        .response(call::relay)
        .contextWrite(Context.of(Upstream.Exchange.class, call))
        .then();
    if (RetryRule.mayResend(in.request.method().name(), hasBody(in.headers()))) {
      exchange = exchange.retryWhen(Retry.max(1)
          .filter(error -> !call.answered && Failures.classify(error) == UpstreamFailure.RESET)
          .onRetryExhaustedThrow((spec, signal) -> signal.failure()));
    }
    long wait = upstream.reserveStart();
    if (wait > 0) { // the pacing wait, on this request's loop, where the call then starts
      exchange = LoopTimer.after(home, wait).then(exchange);
    }
    if (timeoutNanos > 0) { // the route's timeout, pacing included, fires on this loop too
      exchange = exchange.timeout(LoopTimer.after(home, timeoutNanos), Mono.error(Failures.Deadline.INSTANCE));
    }
    return exchange.onErrorResume(error -> failed(error, response, channel));
  }

  /** One proxied exchange: what it sends upstream, and how the answer goes back. */
  private final class Call implements Upstream.Exchange {
    private final ClientRequest in;
    private final HttpServerResponse response;
    private final Channel channel;
    private boolean answered; // the upstream's status line arrived: never send this call again

    Call(ClientRequest in, HttpServerResponse response, Channel channel) {
      this.in = in;
      this.response = response;
      this.channel = channel;
    }

    /** The request head and body: on the upstream connection's loop. */
    @Override
    public Publisher<Void> send(HttpClientRequest request, NettyOutbound out) {
      HttpHeaders incoming = in.headers();
      String lengthHeader = incoming.get(HttpHeaderNames.CONTENT_LENGTH);
      long length = lengthHeader != null ? parseLength(lengthHeader) : -1;
      HttpHeaders headers = request.requestHeaders();
      headers.clear();
      in.copyHeaders(rules, headers);
      in.addForwarding(rules, upstream.authority(), headers);
      if (length >= 0) {
        headers.set(HttpHeaderNames.CONTENT_LENGTH, length);
        return length == 0 ? out : out.send(in.request.receive().retain());
      }
      if (incoming.containsValue(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED, true)) {
        headers.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        return out.send(in.request.receive().retain());
      }
      return out;
    }

    /**
     * The status line and headers go back as they came (less hop-by-hop), then the body streams.
     * A body of known length follows its head at once, so the head waits for the first body bytes
     * and leaves with them in one write (Reactor Netty would flush it alone first: a second system
     * call, and a second wake-up of the client, per response). Streamed (chunked) bodies may be
     * long in coming, and their heads go out at once.
     */
    Publisher<Void> relay(HttpClientResponse upstreamResponse, ByteBufFlux body) {
      answered = true;
      response.status(upstreamResponse.status());
      HttpHeaders from = upstreamResponse.responseHeaders();
      HttpHeaders to = response.responseHeaders();
      String connection = from.get(HttpHeaderNames.CONNECTION);
      Iterator<Map.Entry<String, String>> it = from.iteratorAsString();
      while (it.hasNext()) {
        Map.Entry<String, String> header = it.next();
        if (rules.forwardResponse(header.getKey(), connection)) {
          to.add(header.getKey(), header.getValue());
        }
      }
      for (Map.Entry<String, String> set : rules.responseSets().entrySet()) {
        to.set(set.getKey(), set.getValue());
      }
      if (bodyFollows(in.request.method(), upstreamResponse, from) && channel.eventLoop().inEventLoop()
          && channel.pipeline().get(WriteGate.NAME) instanceof WriteGate gate) {
        gate.holdHeadForBody();
      }
      return response.send(body.retain());
    }
  }

  private Mono<Void> failed(Throwable error, HttpServerResponse response, Channel channel) {
    if (response.hasSentHeaders()) {
      Responses.abort(channel);
      return Mono.empty();
    }
    UpstreamFailure failure = Failures.classify(error);
    return Responses.error(response, failure.status(), ErrorBody.of(failure, upstream.name()));
  }

  private String upstreamTarget(ClientRequest in, RouteTable.Result.Matched match) {
    String base = upstream.basePath();
    if (target.path().isPresent()) {
      return base + target.path().get().expand(match.variables(), in.query(), match.remainder());
    }
    String path = in.path;
    if (target.stripPrefix().isPresent()) {
      String prefix = target.stripPrefix().get();
      if (path.startsWith(prefix) && (path.length() == prefix.length() || path.charAt(prefix.length()) == '/')) {
        path = path.length() == prefix.length() ? "/" : path.substring(prefix.length());
      }
    }
    return in.rawQuery == null ? base + path : base + path + '?' + in.rawQuery;
  }

  /** Whether body bytes come right after this head: a known, non-zero length, and a body at all. */
  private static boolean bodyFollows(HttpMethod method, HttpClientResponse upstreamResponse, HttpHeaders from) {
    int code = upstreamResponse.status().code();
    if (code < 200 || code == 204 || code == 304 || method.equals(HttpMethod.HEAD)
        || from.contains(HttpHeaderNames.TRANSFER_ENCODING)) {
      return false;
    }
    String length = from.get(HttpHeaderNames.CONTENT_LENGTH);
    return length != null && parseLength(length) > 0;
  }

  private static boolean hasBody(HttpHeaders headers) {
    String length = headers.get(HttpHeaderNames.CONTENT_LENGTH);
    return length != null ? parseLength(length) != 0 : headers.contains(HttpHeaderNames.TRANSFER_ENCODING);
  }

  private static long parseLength(String value) {
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
