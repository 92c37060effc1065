package dev.sluice.engine.blocking.upstream;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.UpstreamConfig;
import dev.sluice.http.UpstreamFailure;
import dev.sluice.upstream.Pacer;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.HttpResponseException;
import org.eclipse.jetty.client.InputStreamRequestContent;
import org.eclipse.jetty.client.InputStreamResponseListener;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.http.BadMessageException;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * {@link UpstreamClient} on Jetty 12's non-blocking {@link HttpClient}, used blocking: the caller
 * waits on an {@link InputStreamResponseListener}, which reads from the connection only as fast as
 * the caller reads (backpressure). One client, pool and thread pool per upstream.
 *
 * <p>Timeouts: {@code read-timeout} is enforced here, as the Apache client's socket timeout
 * behaves: from the end of the request to the response headers, and on each body read that blocks.
 * Jetty's own idle timeout is off during an exchange, because it also runs while the caller is not
 * reading (a composition part whose read-ahead is full) and would then abort a healthy exchange.
 * {@code acquire-timeout} is a timer from send until Jetty begins the request on a connection, so it
 * also covers opening that connection. Other differences from the Apache client:
 *
 * <ul>
 *   <li>A streamed request body is read from the incoming request by a client pool thread, which
 *       blocks while the client is slow to send.
 *   <li>{@code Expect} is not forwarded (the gateway's server has already answered it).
 * </ul>
 *
 * Nothing is added to requests beyond what the gateway sets except {@code Content-Length} or
 * chunked framing: no {@code User-Agent}, {@code Accept-Encoding} or default {@code Content-Type},
 * no cookies, no redirects or authentication, no content decoding.
 */
public final class JettyUpstreamClient implements UpstreamClient {

    private static final List<String> UNWANTED_HANDLERS =
            List.of("redirect", "www-authenticate", "proxy-authenticate", "upgrade");

    private final UpstreamConfig config;
    private final HttpClient client;
    private final long readTimeoutMillis;
    private final long acquireTimeoutMillis;
    private final Semaphore admission;
    private final Pacer pacer;

    public JettyUpstreamClient(UpstreamConfig config) {
        this.config = requireNonNull(config, "config");
        this.readTimeoutMillis = Math.max(1, config.readTimeout().toMillis());
        this.acquireTimeoutMillis = Math.max(1, config.acquireTimeout().toMillis());
        QueuedThreadPool threads = new QueuedThreadPool();
        threads.setName("sluice-jetty-client-" + config.name());
        threads.setDaemon(true);
        client = new HttpClient();
        client.setExecutor(threads);
        client.getClientConnector().setTCPNoDelay(true);
        client.setMaxConnectionsPerDestination(config.maxConnections());
        client.setMaxRequestsQueuedPerDestination(config.maxConnections() + config.maxPending());
        client.setConnectTimeout(Math.max(1, config.connectTimeout().toMillis()));
        client.setIdleTimeout(Math.max(1, config.idleTimeout().toMillis()));
        client.setFollowRedirects(false);
        client.setUserAgentField(null);
        client.setDefaultRequestContentType(null);
        client.setHttpCookieStore(new HttpCookieStore.Empty());
        try {
            client.start();
        } catch (Exception e) {
            throw new IllegalStateException("upstream '" + config.name() + "': Jetty client did not start", e);
        }
        client.getContentDecoderFactories().clear(); // after start, which adds the decoders found on the class path
        UNWANTED_HANDLERS.forEach(client.getProtocolHandlers()::remove); // 1xx handlers stay
        this.admission = new Semaphore(config.maxConnections() + config.maxPending());
        this.pacer = config.pace().map(Pacer::new).orElse(null);
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
        Request message = null;
        try {
            message = client.newRequest(config.host(), config.port())
                    .method(request.method())
                    .path(request.target())
                    .idleTimeout(0, TimeUnit.MILLISECONDS); // none during the exchange: read-timeout is enforced below
            message.headers(headers -> {
                for (int i = 0, n = request.headerCount(); i < n; i++) {
                    String name = request.headerName(i);
                    if (!name.equalsIgnoreCase("Expect")) {
                        headers.add(name, request.headerValue(i));
                    }
                }
            });
            InputStream body = request.body();
            if (body != null) {
                message.body(new StreamedContent(body, request.contentLength()));
            }
            Call call = new Call(message);
            request.onCancel(call::cancel);
            if (pacer != null) {
                pace(call);
            }
            InputStreamResponseListener listener = new InputStreamResponseListener();
            call.start(client.getScheduler(), acquireTimeoutMillis, readTimeoutMillis);
            message.send(listener);
            org.eclipse.jetty.client.Response response = listener.get(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
            return new Response(message, response, listener);
        } catch (UpstreamException e) {
            admission.release();
            throw e;
        } catch (ExecutionException e) {
            admission.release();
            throw classify(e.getCause());
        } catch (InterruptedException e) {
            admission.release();
            if (message != null) {
                message.abort(e);
            }
            Thread.currentThread().interrupt();
            throw classify(e);
        } catch (TimeoutException | RuntimeException e) {
            admission.release();
            throw classify(e);
        }
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

    UpstreamException classify(Throwable e) {
        return new UpstreamException(failureOf(e), config.name(), e);
    }

    private static UpstreamFailure failureOf(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            switch (t) {
                case Stop stop -> {
                    return stop.failure;
                }
                case RejectedExecutionException rejected -> { // the destination's queue is full
                    return UpstreamFailure.POOL_EXHAUSTED;
                }
                case ConnectException refused -> {
                    return UpstreamFailure.REFUSED;
                }
                case SocketTimeoutException connect -> { // Jetty's connect timeout
                    return UpstreamFailure.CONNECT_TIMEOUT;
                }
                case TimeoutException idle -> { // Jetty's idle timeout (off during exchanges; kept for safety)
                    return UpstreamFailure.READ_TIMEOUT;
                }
                case HttpResponseException bad -> {
                    return UpstreamFailure.BAD_RESPONSE;
                }
                case BadMessageException bad -> {
                    return UpstreamFailure.BAD_RESPONSE;
                }
                default -> {
                    // look at the cause
                }
            }
        }
        return UpstreamFailure.RESET;
    }

    @Override
    public void close() {
        try {
            client.stop();
        } catch (Exception ignored) {
            // stopping is best effort
        }
    }

    /** Why the gateway stopped an exchange itself; carries the failure the caller should see. */
    private static final class Stop extends Exception {
        final UpstreamFailure failure;

        Stop(UpstreamFailure failure, String message) {
            super(message, null, false, false);
            this.failure = failure;
        }
    }

    /**
     * The timers of one request: acquire-timeout until Jetty begins it on a connection, read-timeout
     * from its end until the response begins; and its cancellation.
     */
    private static final class Call {
        private static final int WAITING = 0;
        private static final int BEGUN = 1;
        private static final int EXPIRED = 2;

        private final Request message;
        private final AtomicInteger acquire = new AtomicInteger(WAITING);
        private volatile Scheduler.Task acquireTimer;
        private volatile Scheduler.Task responseTimer;
        private volatile boolean answered;
        private volatile boolean cancelled;
        private volatile Thread waiter; // a thread waiting for its pacing slot

        Call(Request message) {
            this.message = message;
        }

        void start(Scheduler scheduler, long acquireTimeoutMillis, long readTimeoutMillis) {
            message.onRequestBegin(r -> {
                if (acquire.compareAndSet(WAITING, BEGUN)) {
                    cancel(acquireTimer);
                }
            });
            message.onRequestSuccess(r -> {
                if (!answered) {
                    responseTimer = scheduler.schedule(this::responseExpired, readTimeoutMillis, TimeUnit.MILLISECONDS);
                }
            });
            message.onResponseBegin(r -> {
                answered = true;
                cancel(responseTimer);
            });
            acquireTimer = scheduler.schedule(this::acquireExpired, acquireTimeoutMillis, TimeUnit.MILLISECONDS);
        }

        private static void cancel(Scheduler.Task timer) {
            if (timer != null) {
                timer.cancel();
            }
        }

        private void acquireExpired() {
            if (acquire.compareAndSet(WAITING, EXPIRED)) {
                message.abort(new Stop(UpstreamFailure.POOL_EXHAUSTED, "no connection within acquire-timeout"));
            }
        }

        private void responseExpired() {
            if (!answered) {
                message.abort(new Stop(UpstreamFailure.READ_TIMEOUT, "no response within read-timeout"));
            }
        }

        void cancel() {
            cancelled = true;
            Thread w = waiter;
            if (w != null) {
                LockSupport.unpark(w);
            }
            message.abort(new Stop(UpstreamFailure.TIMEOUT, "cancelled"));
        }
    }

    /** A streamed request body of a known length (fixed-length framing) or of -1 (chunked). */
    private static final class StreamedContent extends InputStreamRequestContent {
        private final long length;

        StreamedContent(InputStream body, long length) {
            super(null, body);
            this.length = length;
        }

        @Override
        public long getLength() {
            return length;
        }
    }

    /** Header names (or values), one entry per field. */
    private static String[] flatten(HttpFields headers, boolean names) {
        String[] out = new String[headers.size()];
        int i = 0;
        for (HttpField field : headers) {
            out[i++] = names ? field.getName() : field.getValue();
        }
        return out;
    }

    private static long lengthOf(HttpFields headers) {
        try {
            return headers.getLongField(HttpHeader.CONTENT_LENGTH);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private final class Response extends HeaderSnapshot {
        private final Request message;
        private final InputStreamResponseListener listener;
        private final InputStream body;
        private final long periodNanos;
        private volatile long readingSince; // System.nanoTime() when a read began, 0 when none is under way
        private volatile boolean released;
        private volatile Scheduler.Task watch;
        private boolean ended;

        Response(Request message, org.eclipse.jetty.client.Response response, InputStreamResponseListener listener) {
            super(
                    response.getStatus(),
                    flatten(response.getHeaders(), true),
                    flatten(response.getHeaders(), false),
                    lengthOf(response.getHeaders()));
            this.message = message;
            this.listener = listener;
            this.body = listener.getInputStream();
            this.periodNanos =
                    Math.max(TimeUnit.MILLISECONDS.toNanos(5), TimeUnit.MILLISECONDS.toNanos(readTimeoutMillis) / 4);
            this.watch = client.getScheduler().schedule(this::checkRead, periodNanos, TimeUnit.NANOSECONDS);
        }

        /** Every quarter of read-timeout: aborts a read blocked for longer than read-timeout. */
        private void checkRead() {
            if (released) {
                return;
            }
            long since = readingSince;
            if (since != 0 && System.nanoTime() - since >= TimeUnit.MILLISECONDS.toNanos(readTimeoutMillis)) {
                message.abort(new Stop(UpstreamFailure.READ_TIMEOUT, "no body bytes within read-timeout"));
                return;
            }
            watch = client.getScheduler().schedule(this::checkRead, periodNanos, TimeUnit.NANOSECONDS);
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
                throw classify(e);
            } finally {
                readingSince = 0;
            }
        }

        @Override
        public void abort() {
            message.abort(new Stop(UpstreamFailure.RESET, "aborted by the gateway"));
        }

        @Override
        public void close() {
            if (released) {
                return;
            }
            released = true;
            watch.cancel();
            try {
                if (!ended) {
                    abort(); // closes the connection rather than draining the rest of the body
                }
                body.close();
                if (ended) {
                    // The body's end reaches the reader before Jetty ends the exchange and hands the
                    // connection back; it does that before it notifies completion (event ordering is not
                    // strict), so once this returns the next request finds the connection in the pool.
                    listener.await(readTimeoutMillis, TimeUnit.MILLISECONDS);
                }
            } catch (IOException | RuntimeException | TimeoutException ignored) {
                // the connection is dropped either way
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                admission.release();
            }
        }
    }
}
