package dev.sluice.engine.blocking.upstream;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.UpstreamConfig;
import dev.sluice.http.UpstreamFailure;
import dev.sluice.upstream.Pacer;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@link UpstreamClient} on the JDK's {@link HttpClient} (HTTP/1.1, body as an {@link InputStream}),
 * with the Apache client's semantics where the JDK client allows them. What it lacks, and what this
 * class does instead:
 *
 * <ul>
 *   <li>No pool size limit: the JDK opens a connection for every exchange that finds no idle one. Here
 *       a semaphore of {@code max-connections} bounds the exchanges in flight (a wait longer than
 *       {@code acquire-timeout} is {@code pool_exhausted}), so connections in use never exceed it;
 *       the JDK may briefly open one more while a finished one is on its way back to its pool.
 *   <li>No per-read timeout: {@link HttpRequest#timeout}, set to {@code read-timeout}, runs from
 *       send to the response headers, so it also bounds connecting and sending a request body (a
 *       slow upload past it is a {@code read_timeout}). For the body, a watchdog closes the stream
 *       of a read blocked longer than {@code read-timeout} (checked every quarter of it), which the
 *       caller sees as {@code read_timeout}; a caller that simply stops reading is not timed out.
 *   <li>No per-client idle timeout: idle connections close after the JVM-wide {@code
 *       jdk.httpclient.keepalive.timeout} (default 30 s); {@code idle-timeout} is not used.
 *   <li>Restricted headers ({@code Host, Connection, Content-Length, Expect, Upgrade}) cannot be set:
 *       {@code Host} comes from the URI (the upstream's {@code host:port}, as the gateway would set
 *       it), {@code Expect} is dropped. {@code User-Agent: Java-http-client/<version>} is added to
 *       requests that carry none.
 *   <li>The target goes through {@link URI}: one it rejects (a raw {@code |} or {@code {}, which
 *       the gateway's server lets through) is sent with those characters percent-encoded.
 * </ul>
 */
public final class JdkUpstreamClient implements UpstreamClient {

    private static final Set<String> RESTRICTED = Set.of("host", "connection", "content-length", "expect", "upgrade");
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final UpstreamConfig config;
    private final String origin;
    private final HttpClient client;
    private final Duration readTimeout;
    private final Semaphore admission;
    private final Semaphore connections;
    private final Pacer pacer;
    private final ScheduledThreadPoolExecutor watchdog;

    public JdkUpstreamClient(UpstreamConfig config) {
        this.config = requireNonNull(config, "config");
        this.origin = "http://" + config.authority();
        this.readTimeout = atLeastOneMilli(config.readTimeout());
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(atLeastOneMilli(config.connectTimeout()))
                .followRedirects(HttpClient.Redirect.NEVER)
                .proxy(HttpClient.Builder.NO_PROXY)
                .build();
        this.admission = new Semaphore(config.maxConnections() + config.maxPending());
        this.connections = new Semaphore(config.maxConnections());
        this.pacer = config.pace().map(Pacer::new).orElse(null);
        this.watchdog = new ScheduledThreadPoolExecutor(
                1,
                Thread.ofPlatform()
                        .name("sluice-jdk-read-timeout-" + config.name())
                        .daemon(true)
                        .factory());
        this.watchdog.setRemoveOnCancelPolicy(true);
    }

    private static Duration atLeastOneMilli(Duration d) {
        return d.toMillis() < 1 ? Duration.ofMillis(1) : d;
    }

    @Override
    public UpstreamConfig config() {
        return config;
    }

    @Override
    public UpstreamResponse send(UpstreamRequest request) throws UpstreamException {
        if (!admission.tryAcquire()) {
            throw new UpstreamException(UpstreamFailure.POOL_EXHAUSTED, config.name(), null);
        }
        Call call = new Call();
        boolean connection = false;
        try {
            request.onCancel(call::cancel);
            if (pacer != null) {
                pace(call);
            }
            acquireConnection(request);
            connection = true;
            HttpResponse<InputStream> response = call.send(client, message(request));
            return new Response(call, response);
        } catch (UpstreamException e) {
            release(connection);
            throw e;
        } catch (IOException | RuntimeException e) {
            release(connection);
            throw classify(e, call.cancelled);
        }
    }

    private void release(boolean connection) {
        if (connection) {
            connections.release();
        }
        admission.release();
    }

    private HttpRequest message(UpstreamRequest request) {
        InputStream body = request.body();
        BodyPublisher publisher;
        if (body == null) {
            publisher = BodyPublishers.noBody();
        } else if (request.contentLength() >= 0) {
            publisher = BodyPublishers.fromPublisher(BodyPublishers.ofInputStream(() -> body), request.contentLength());
        } else {
            publisher = BodyPublishers.ofInputStream(() -> body); // unknown length: sent chunked
        }
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri(request.target()))
                .timeout(readTimeout)
                .method(request.method(), publisher);
        for (int i = 0, n = request.headerCount(); i < n; i++) {
            String name = request.headerName(i);
            if (!RESTRICTED.contains(name.toLowerCase(Locale.ROOT))) {
                builder.header(name, request.headerValue(i));
            }
        }
        return builder.build();
    }

    /** The target as a URI: verbatim when it parses, otherwise with its illegal characters quoted. */
    private URI uri(String target) {
        try {
            return new URI(origin + target);
        } catch (URISyntaxException e) {
            int q = target.indexOf('?');
            String path = q < 0 ? target : target.substring(0, q);
            String query = q < 0 ? null : target.substring(q + 1);
            try {
                return new URI("http", config.authority(), path, query, null);
            } catch (URISyntaxException again) {
                throw new IllegalArgumentException(
                        "target: '" + target + "' (expected: an origin-form request target)", again);
            }
        }
    }

    private void acquireConnection(UpstreamRequest request) throws UpstreamException, InterruptedIOException {
        if (connections.tryAcquire()) {
            return;
        }
        long deadline = System.nanoTime() + config.acquireTimeout().toNanos();
        try {
            while (!request.isCancelled()) { // polled: a cancel does not interrupt this thread
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new UpstreamException(UpstreamFailure.POOL_EXHAUSTED, config.name(), null);
                }
                if (connections.tryAcquire(Math.min(left, POLL_NANOS), TimeUnit.NANOSECONDS)) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for a connection to " + config.name());
        }
        throw new UpstreamException(UpstreamFailure.TIMEOUT, config.name(), null);
    }

    /** Waits for the call's start slot; a cancel (route or part timeout) ends the wait at once. */
    private void pace(Call call) throws UpstreamException {
        long waitNanos = pacer.reserve();
        if (waitNanos <= 0) {
            return;
        }
        long deadline = System.nanoTime() + waitNanos;
        call.waiter = Thread.currentThread();
        try {
            for (long left = waitNanos; left > 0 && !call.cancelled; left = deadline - System.nanoTime()) {
                if (Thread.currentThread().isInterrupted()) {
                    throw new UpstreamException(
                            UpstreamFailure.RESET,
                            config.name(),
                            new InterruptedIOException("interrupted while pacing calls to " + config.name()));
                }
                LockSupport.parkNanos(this, left);
            }
        } finally {
            call.waiter = null;
        }
        if (call.cancelled) {
            throw new UpstreamException(UpstreamFailure.TIMEOUT, config.name(), null);
        }
    }

    UpstreamException classify(Throwable e, boolean cancelled) {
        UpstreamFailure failure = cancelled ? UpstreamFailure.TIMEOUT : failureOf(e);
        return new UpstreamException(failure, config.name(), e);
    }

    private static UpstreamFailure failureOf(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof HttpConnectTimeoutException) {
                return UpstreamFailure.CONNECT_TIMEOUT;
            } else if (t instanceof HttpTimeoutException) {
                return UpstreamFailure.READ_TIMEOUT;
            } else if (t instanceof ConnectException) {
                return UpstreamFailure.REFUSED;
            } else if (t instanceof java.net.ProtocolException
                    || (t instanceof ExchangeFailure && t.getCause() instanceof IllegalArgumentException)) {
                return UpstreamFailure.BAD_RESPONSE; // the JDK reports an unparsable header value so
            }
        }
        return UpstreamFailure.RESET;
    }

    @Override
    public void close() {
        watchdog.shutdownNow();
        client.shutdownNow();
    }

    /** One exchange, cancellable from any thread: before its headers the future, after them the body. */
    private static final class Call {
        private volatile boolean cancelled;
        private volatile Thread waiter; // a thread waiting for its pacing slot
        private volatile CompletableFuture<?> future;
        private volatile InputStream body;

        void cancel() {
            cancelled = true;
            Thread w = waiter;
            if (w != null) {
                LockSupport.unpark(w);
            }
            CompletableFuture<?> f = future;
            if (f != null) {
                f.cancel(true); // aborts the exchange
            }
            InputStream b = body;
            if (b != null) {
                closeStream(b);
            }
        }

        HttpResponse<InputStream> send(HttpClient client, HttpRequest message) throws IOException {
            CompletableFuture<HttpResponse<InputStream>> f = client.sendAsync(message, BodyHandlers.ofInputStream());
            future = f;
            if (cancelled) {
                f.cancel(true);
            }
            try {
                HttpResponse<InputStream> response = f.get();
                body = response.body();
                if (cancelled) {
                    closeStream(response.body());
                }
                return response;
            } catch (ExecutionException e) {
                throw new ExchangeFailure(e.getCause());
            } catch (CancellationException e) {
                throw new IOException("cancelled", e);
            } catch (InterruptedException e) {
                f.cancel(true);
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for the response");
            }
        }
    }

    /** The exchange failed: what the JDK client reported, as the cause. */
    private static final class ExchangeFailure extends IOException {
        ExchangeFailure(Throwable cause) {
            super(cause);
        }
    }

    static void closeStream(InputStream in) {
        try {
            in.close();
        } catch (IOException | RuntimeException ignored) {
            // the exchange is dropped either way
        }
    }

    /** Header names (or values) one entry per value, in the order the JDK gives them. */
    private static String[] flatten(Map<String, List<String>> headers, boolean names) {
        int count = 0;
        for (List<String> v : headers.values()) {
            count += v.size();
        }
        String[] out = new String[count];
        int i = 0;
        for (Map.Entry<String, List<String>> e : headers.entrySet()) {
            for (String v : e.getValue()) {
                out[i++] = names ? e.getKey() : v;
            }
        }
        return out;
    }

    private final class Response extends HeaderSnapshot {
        private final Call call;
        private final InputStream body;
        private final ScheduledFuture<?> watch;
        private volatile long readingSince; // System.nanoTime() when a read began, 0 when none is under way
        private volatile boolean readTimedOut;
        private boolean ended;
        private boolean released;

        Response(Call call, HttpResponse<InputStream> response) {
            super(
                    response.statusCode(),
                    flatten(response.headers().map(), true),
                    flatten(response.headers().map(), false),
                    response.headers().firstValueAsLong("content-length").orElse(-1));
            this.call = call;
            this.body = response.body();
            long period = Math.max(TimeUnit.MILLISECONDS.toNanos(5), readTimeout.toNanos() / 4);
            this.watch = watchdog.scheduleAtFixedRate(this::checkRead, period, period, TimeUnit.NANOSECONDS);
        }

        private void checkRead() {
            long since = readingSince;
            if (since != 0 && System.nanoTime() - since >= readTimeout.toNanos()) {
                readTimedOut = true;
                closeStream(body); // wakes the blocked read, which fails; the connection is dropped
            }
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws UpstreamException {
            if (ended) {
                return -1;
            }
            long now = System.nanoTime();
            readingSince = now == 0 ? 1 : now;
            try {
                int n = body.read(buffer, offset, length);
                if (n < 0) {
                    ended = true;
                }
                return n;
            } catch (IOException | RuntimeException e) {
                if (readTimedOut && !call.cancelled) {
                    throw new UpstreamException(UpstreamFailure.READ_TIMEOUT, config.name(), e);
                }
                throw classify(e, call.cancelled);
            } finally {
                readingSince = 0;
            }
        }

        @Override
        public void abort() {
            closeStream(body); // before the end this cancels the exchange and closes its connection
        }

        @Override
        public void close() {
            if (released) {
                return;
            }
            released = true;
            watch.cancel(false);
            // After the end the JDK has already put the connection back in its pool and this only marks
            // the stream closed; before it, closing cancels the exchange: the connection is dropped, not drained.
            closeStream(body);
            connections.release();
            admission.release();
        }
    }
}
