package dev.sluice.engine.reactive;

import dev.sluice.compose.JsonValidator;
import dev.sluice.compose.PartOutcome;
import dev.sluice.compose.PartRules;
import dev.sluice.config.PartConfig;
import dev.sluice.http.UpstreamFailure;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;
import reactor.netty.NettyOutbound;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.client.HttpClientRequest;
import reactor.netty.http.client.HttpClientResponse;
import reactor.util.context.Context;

/**
 * One part of a {@link Composition}: its upstream call and its bounded read-ahead buffer.
 *
 * <pre>
 *   upstream ──request(1)──► buffer (at most read-ahead bytes) ──poll()──► composition ──► client
 *             └ no further request while the buffer is full: the connection holds the rest
 * </pre>
 *
 * It subscribes to the upstream's response (status line, then body buffers, retained) on the
 * upstream connection's event loop and moves every signal onto the composition's loop, where all
 * its state lives (usually the same loop: see {@link Upstream}). Its read timeout counts only
 * while it has asked for bytes.
 */
final class Part implements CoreSubscriber<ByteBuf>, Upstream.Exchange {

  private static final long IDLE = Long.MIN_VALUE;

  final int index;
  final PartConfig config;
  private final Composition composition;
  private final Upstream upstream;
  private final String path;
  private final Upstream.FixedGet fixed; // null unless the path is fixed
  private final ClientRequest.Forwarding forwarding;
  private final int readAhead;
  private final JsonValidator validator; // null unless validate-json
  private final ArrayDeque<ByteBuf> buffer = new ArrayDeque<>(4);

  // all below: on the composition's loop
  private Subscription subscription;
  private boolean outstanding; // a request(1) is pending upstream
  private long buffered;
  private long received;
  long relayed;
  int status;
  boolean begun;
  boolean answered;
  boolean ended;
  boolean failed;
  boolean timedOut;
  String error = "";
  long endNanos;
  boolean queued; // in the composition's arrival queue
  boolean relayStarted;
  boolean successorStarted;
  private boolean closed;
  private boolean resent; // the call was sent once more after its connection failed before an answer
  private ScheduledFuture<?> pacing;
  private long waitingSince = IDLE; // when a request(1) for body bytes went unanswered
  private ScheduledFuture<?> stall;

  Part(Composition composition, int index, PartConfig config, Upstream upstream, String path,
      Upstream.FixedGet fixed, ClientRequest.Forwarding forwarding, int readAhead, boolean validateJson) {
    this.composition = composition;
    this.index = index;
    this.config = config;
    this.upstream = upstream;
    this.path = path;
    this.fixed = fixed;
    this.forwarding = forwarding;
    this.readAhead = readAhead;
    this.validator = validateJson ? new JsonValidator() : null;
  }

  /** Starts the call, after the upstream's pacing wait when it has one. */
  void begin() {
    if (begun || closed || failed) {
      return;
    }
    begun = true;
    long wait = upstream.reserveStart();
    if (wait > 0) {
      pacing = composition.home.schedule(this::call, wait, TimeUnit.NANOSECONDS);
    } else {
      call();
    }
  }

  private void call() {
    pacing = null;
    if (closed || failed) {
      return;
    }
    HttpClient.ResponseReceiver<?> receiver =
        fixed != null ? fixed.on(composition.home) : upstream.request(composition.home, HttpMethod.GET).uri(path);
    receiver.responseConnection(this::answer)
        .contextWrite(Context.of(Upstream.Exchange.class, this))
        .subscribe(this);
  }

  /** The request's headers (a GET has no body): on the upstream connection's loop. */
  @Override
  public Publisher<Void> send(HttpClientRequest request, NettyOutbound out) {
    HttpHeaders headers = request.requestHeaders();
    headers.clear();
    headers.set(HttpHeaderNames.ACCEPT, HttpHeaderValues.APPLICATION_JSON);
    forwarding.addTo(composition.route.rules, upstream.authority(), headers);
    return out;
  }

  /** The status line and headers: on the upstream connection's loop. */
  private Publisher<ByteBuf> answer(HttpClientResponse response, Connection connection) {
    if (connection.channel().pipeline().get(ReadStall.NAME) instanceof ReadStall readStall) {
      readStall.bodyTimedByConsumer();
    }
    int code = response.status().code();
    String rejection = PartRules.rejection(code, response.responseHeaders().get(HttpHeaderNames.CONTENT_TYPE))
        .orElse(null);
    composition.onLoop(() -> answered(code, rejection));
    if (rejection != null) {
      connection.dispose(); // the body is not wanted: close rather than read it
      return Mono.empty();
    }
    return connection.inbound().receive().retain();
  }

  @Override
  public void onSubscribe(Subscription s) {
    composition.onLoop(() -> {
      if (closed) {
        s.cancel();
        return;
      }
      subscription = s;
      outstanding = true;
      s.request(1); // forwarded to the body once the status line is in
    });
  }

  @Override
  public void onNext(ByteBuf chunk) {
    if (composition.home.inEventLoop()) {
      received(chunk);
    } else {
      composition.home.execute(() -> received(chunk));
    }
  }

  @Override
  public void onError(Throwable error) {
    composition.onLoop(() -> {
      if (!closed && !ended && !failed) {
        UpstreamFailure failure = Failures.classify(error);
        if (failure == UpstreamFailure.RESET && status == 0 && !resent) { // a GET, no body: RetryRule
          resent = true;
          subscription = null;
          outstanding = false;
          call();
          return;
        }
        fail(failure.reason(), Failures.isTimeout(failure));
      }
    });
  }

  @Override
  public void onComplete() {
    composition.onLoop(this::completed);
  }

  private void answered(int code, String rejection) {
    status = code;
    if (closed || failed) {
      return;
    }
    answered = true;
    if (rejection != null) {
      fail(rejection, false);
      return;
    }
    if (outstanding) {
      waiting();
    }
    composition.changed(this);
  }

  private void received(ByteBuf chunk) {
    outstanding = false;
    waitingSince = IDLE;
    if (closed || failed) {
      chunk.release();
      return;
    }
    int n = chunk.readableBytes();
    if (n > 0 && validator != null) {
      for (ByteBuffer nio : chunk.nioBuffers()) {
        validator.feed(nio);
      }
      if (validator.failed()) {
        chunk.release();
        fail("invalid JSON: " + validator.error(), false);
        return;
      }
    }
    if (n == 0) {
      chunk.release();
    } else {
      received += n;
      buffered += n;
      buffer.add(chunk);
    }
    requestMore();
    composition.changed(this);
  }

  private void completed() {
    if (closed || failed || ended) {
      return;
    }
    if (received == 0) {
      fail("empty body", false);
    } else if (validator != null && !validator.finish()) {
      fail("invalid JSON: " + validator.error(), false);
    } else {
      ended = true;
      endNanos = System.nanoTime();
      composition.changed(this);
    }
  }

  /** Asks the upstream for the next body buffer, unless the read-ahead is full or the body is done. */
  void requestMore() {
    if (!outstanding && !ended && !failed && !closed && subscription != null && buffered < readAhead) {
      outstanding = true;
      if (answered) {
        waiting();
      }
      subscription.request(1);
    }
  }

  /**
   * The part wants body bytes: {@code read-timeout} runs until they come. A part whose read-ahead
   * is full asks for nothing, so waiting for its turn never times it out.
   */
  private void waiting() {
    if (waitingSince == IDLE) {
      waitingSince = System.nanoTime();
    }
    if (stall == null) {
      stall = composition.home.schedule(this::checkStall, upstream.readTimeoutNanos(), TimeUnit.NANOSECONDS);
    }
  }

  private void checkStall() {
    stall = null;
    if (closed || failed || ended || waitingSince == IDLE) {
      return;
    }
    long waited = System.nanoTime() - waitingSince;
    long timeout = upstream.readTimeoutNanos();
    if (waited >= timeout) {
      fail(UpstreamFailure.READ_TIMEOUT.reason(), true);
    } else {
      stall = composition.home.schedule(this::checkStall, timeout - waited, TimeUnit.NANOSECONDS);
    }
  }

  /**
   * Ready to relay: answered, and its body has ended, or bytes are buffered (with validate-json:
   * the read-ahead is full, so a small body is checked whole first); or failed.
   */
  boolean isReady() {
    return failed
        || (answered && (ended || (buffered > 0 && (validator == null || buffered >= readAhead))));
  }

  /** Whether the read-ahead is full and waiting for this part's turn. */
  boolean isBlocked() {
    return answered && !ended && !failed && buffered >= readAhead;
  }

  /** The next buffered chunk to relay, or null. The caller asks for more with {@link #requestMore()}. */
  ByteBuf poll() {
    ByteBuf chunk = buffer.poll();
    if (chunk != null) {
      buffered -= chunk.readableBytes();
    }
    return chunk;
  }

  /** Whether every byte of the body has been relayed. */
  boolean isDrained() {
    return ended && buffer.isEmpty();
  }

  /**
   * Fails the part: it becomes {@code null} in the response, or, when its bytes are already being
   * relayed, the client response is aborted.
   */
  void fail(String reason, boolean timeout) {
    if (failed || closed) {
      return;
    }
    if (relayStarted) {
      composition.abort();
      return;
    }
    failed = true;
    timedOut = timeout;
    error = reason;
    endNanos = System.nanoTime();
    free();
    composition.changed(this);
  }

  PartOutcome outcome(long start) {
    return failed
        ? PartOutcome.failed(config.name(), status, error, endNanos - start)
        : PartOutcome.ok(config.name(), status, endNanos - start, relayed);
  }

  /** Stops the call and frees the buffer, for good: the composition is over. Idempotent. */
  void close() {
    closed = true;
    free();
  }

  private void free() {
    if (pacing != null) {
      pacing.cancel(false);
      pacing = null;
    }
    if (stall != null) {
      stall.cancel(false);
      stall = null;
    }
    if (subscription != null && !ended) {
      subscription.cancel();
    }
    subscription = null;
    ByteBuf chunk;
    while ((chunk = buffer.poll()) != null) {
      chunk.release();
    }
    buffered = 0;
  }
}
