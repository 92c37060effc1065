package dev.sluice.redis;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.RedisConfig;
import dev.sluice.policy.RateStore;
import dev.sluice.policy.TokenBucket;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code store: redis}: every decision is one {@code EVALSHA} of {@code take.lua} (the script is
 * sent whole, by {@code EVAL}, only when Redis answers {@code NOSCRIPT}: after a restart or a
 * {@code SCRIPT FLUSH}), on one connection shared by every request (Lettuce pipelines the commands
 * of concurrent requests on it). Nothing blocks: the answer completes a future on Lettuce's event
 * loop.
 *
 * <p>An outage (Redis refuses, is gone, or answers later than {@code redis.timeout}) fails the
 * decision at once, and the filter's {@code on-store-failure} decides. It is logged once: a WARN
 * when the first decision fails, an INFO when the first one after it succeeds. Lettuce reconnects by
 * itself once it had a connection; while it has none, commands are refused at once rather than
 * queued, and a connection that was never made is tried again at most once a second.
 */
public final class RedisRateStore implements RateStore {

    private static final Logger LOG = LoggerFactory.getLogger(RedisRateStore.class);

    static final String SCRIPT = script();
    static final String SHA = sha1(SCRIPT);

    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(2);
    private static final long RETRY_CONNECT_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final RedisConfig config;
    private final StoreResolvers names = new StoreResolvers();
    private final ClientResources resources;
    private final RedisClient client;
    private final RedisURI uri;
    private final AtomicReference<Attempt> connection = new AtomicReference<>();
    private final AtomicBoolean down = new AtomicBoolean();
    private volatile boolean closed;

    /** A connection, made or being made, and when it was begun. */
    private record Attempt(CompletableFuture<StatefulRedisConnection<String, String>> future, long startedNanos) {}

    public RedisRateStore(RedisConfig config) {
        this.config = requireNonNull(config, "config");
        this.uri = RedisURI.create(config.url());
        this.uri.setTimeout(config.timeout());
        this.resources = DefaultClientResources.builder()
                .addressResolverGroup(names.group())
                .build();
        this.client = RedisClient.create(resources);
        this.client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(config.timeout()))
                .socketOptions(SocketOptions.builder()
                        .connectTimeout(connectTimeout(config.timeout()))
                        .build())
                .build());
        connect(); // early, so that the first request does not wait for the handshake
    }

    /** The ServiceLoader's entry: {@code META-INF/services/dev.sluice.policy.RateStore$Factory}. */
    public static final class Factory implements RateStore.Factory {
        @Override
        public RateStore open(RedisConfig config) {
            return new RedisRateStore(config);
        }
    }

    @Override
    public CompletionStage<TokenBucket.Take> take(String key, TokenBucket bucket) {
        String fullKey = config.prefix() + key;
        String[] keys = {fullKey};
        String interval = Double.toString(bucket.intervalNanos() / 1000.0);
        String capacity = Long.toString(bucket.capacity());
        CompletableFuture<TokenBucket.Take> answer = connection()
                .thenCompose(c -> c.async()
                        .<List<Long>>evalsha(SHA, ScriptOutputType.MULTI, keys, interval, capacity)
                        .toCompletableFuture()
                        .exceptionallyCompose(error -> unwrap(error) instanceof RedisNoScriptException
                                ? c.async()
                                        .<List<Long>>eval(SCRIPT, ScriptOutputType.MULTI, keys, interval, capacity)
                                        .toCompletableFuture()
                                : CompletableFuture.failedFuture(error)))
                .thenApply(reply -> take(reply, bucket))
                .orTimeout(config.timeout().toNanos(), TimeUnit.NANOSECONDS);
        return answer.whenComplete((take, error) -> { // before the caller sees the answer
            if (error == null) {
                up();
            } else {
                down(unwrap(error));
            }
        });
    }

    /** Whether the last decision failed (Redis is down or slow), for tests and gauges. */
    public boolean isDown() {
        return down.get();
    }

    @Override
    public void close() {
        closed = true;
        Attempt attempt = connection.getAndSet(null);
        if (attempt != null) {
            attempt.future().thenAccept(StatefulRedisConnection::closeAsync);
        }
        names.close(CLOSE_TIMEOUT); // while the loops run: see StoreResolvers
        client.shutdown(Duration.ZERO, CLOSE_TIMEOUT);
        resources
                .shutdown(0, CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .awaitUninterruptibly(CLOSE_TIMEOUT.toMillis());
    }

    private CompletableFuture<StatefulRedisConnection<String, String>> connection() {
        while (true) {
            Attempt attempt = connection.get();
            if (attempt != null) {
                CompletableFuture<StatefulRedisConnection<String, String>> future = attempt.future();
                boolean failed = future.isCompletedExceptionally();
                if (!failed || System.nanoTime() - attempt.startedNanos() < RETRY_CONNECT_NANOS) {
                    return future;
                }
            }
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException("the Redis store is closed"));
            }
            Attempt next = new Attempt(new CompletableFuture<>(), System.nanoTime());
            if (connection.compareAndSet(attempt, next)) {
                client.connectAsync(StringCodec.UTF8, uri).toCompletableFuture().whenComplete((c, error) -> {
                    if (error != null) {
                        next.future().completeExceptionally(error);
                    } else if (closed) {
                        c.closeAsync();
                        next.future().completeExceptionally(new IllegalStateException("the Redis store is closed"));
                    } else {
                        next.future().complete(c);
                    }
                });
                return next.future();
            }
        }
    }

    private void connect() {
        connection();
    }

    private void up() {
        if (down.compareAndSet(true, false)) {
            LOG.info("rate-limit: the Redis store at {} answers again; shared limits apply again", redacted());
        }
    }

    private void down(Throwable error) {
        if (closed) {
            return;
        }
        if (down.compareAndSet(false, true)) {
            LOG.warn(
                    "rate-limit: the Redis store at {} does not answer within {} ms ({}); each rate-limit with"
                            + " store: redis decides by its on-store-failure until it does",
                    redacted(),
                    config.timeout().toMillis(),
                    error.toString());
        }
    }

    /** The URL without a password. */
    private String redacted() {
        java.net.URI url = config.url();
        return url.getUserInfo() == null ? url.toString() : url.toString().replace(url.getRawUserInfo() + "@", "***@");
    }

    private static TokenBucket.Take take(List<Long> reply, TokenBucket bucket) {
        if (reply == null || reply.size() != 4) {
            throw new IllegalStateException("take.lua answered " + reply + " (expected: 4 integers)");
        }
        long retry = reply.get(2) * 1000;
        long reset = reply.get(3) * 1000;
        return reply.get(0) == 1
                ? TokenBucket.Take.admitted(bucket.capacity(), reply.get(1), reset)
                : TokenBucket.Take.refused(bucket.capacity(), retry, reset);
    }

    private static Duration connectTimeout(Duration timeout) {
        Duration least = Duration.ofSeconds(1);
        return timeout.compareTo(least) > 0 ? timeout : least;
    }

    private static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while (e instanceof CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    private static String script() {
        try (InputStream in = RedisRateStore.class.getResourceAsStream("take.lua")) {
            if (in == null) {
                throw new IllegalStateException("take.lua is missing from sluice-redis's jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is missing from this JDK", e);
        }
    }
}
