package dev.sluice.engine.blocking.upstream;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.UpstreamConfig;
import dev.sluice.http.PseudoHeaders;
import dev.sluice.http.UpstreamFailure;
import dev.sluice.tls.UpstreamTls;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.ErrorCode;
import org.eclipse.jetty.http2.api.Session;
import org.eclipse.jetty.http2.api.Stream;
import org.eclipse.jetty.http2.client.HTTP2Client;
import org.eclipse.jetty.http2.frames.DataFrame;
import org.eclipse.jetty.http2.frames.GoAwayFrame;
import org.eclipse.jetty.http2.frames.HeadersFrame;
import org.eclipse.jetty.http2.frames.SettingsFrame;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * An endpoint spoken to over HTTP/2 ({@code protocol: h2} by ALPN over TLS, {@code h2c} by prior
 * knowledge), on Jetty's {@link HTTP2Client}: at most {@code max-connections} connections, each
 * carrying up to {@code max-streams-per-connection} exchanges (fewer when the upstream's
 * SETTINGS_MAX_CONCURRENT_STREAMS says so), a caller waiting up to {@code acquire-timeout} for a free
 * stream when every connection is full.
 *
 * <pre>
 *   send ──► lease a stream slot ──► HEADERS ──► body pump (DATA, each frame waits for its window)
 *                                       │
 *   caller ◄── head ◄── H2Exchange ◄────┴── DATA / trailers, demanded one frame at a time
 * </pre>
 *
 * The response body is demanded one frame at a time as the caller reads it, so a slow client slows
 * the upstream's stream through HTTP/2 flow control; nothing is buffered beyond a frame.
 */
public final class H2UpstreamClient implements UpstreamClient {

    /** Each stream's receive window: 1 MiB. */
    static final int STREAM_WINDOW = 1 << 20;

    private final UpstreamConfig config;
    private final HTTP2Client client;
    private final SslContextFactory.Client tls; // null for h2c
    private final Object lock = new Object();
    private final List<Connection> connections = new ArrayList<>();
    private final dev.sluice.upstream.Pacer pacer; // null when the upstream is not paced
    private final long acquireNanos;
    private final long maxLifetimeNanos;
    private final long readTimeoutNanos;
    private int waiting;
    private boolean closed;

    public H2UpstreamClient(UpstreamConfig config) {
        this.config = requireNonNull(config, "config");
        QueuedThreadPool threads = new QueuedThreadPool(32, 2);
        threads.setName("sluice-h2-" + config.name());
        threads.setDaemon(true);
        ClientConnector connector = new ClientConnector();
        connector.setExecutor(threads);
        connector.setSelectors(1);
        connector.setConnectTimeout(config.connectTimeout());
        this.client = new HTTP2Client(connector);
        client.setIdleTimeout(config.idleTimeout().toMillis());
        client.setConnectTimeout(config.connectTimeout().toMillis());
        client.setMaxLocalStreams(config.maxStreamsPerConnection());
        // what one stream may have in flight unread (Jetty's default is 8 MiB): the gateway demands DATA
        // only as its client takes the bytes, so this bounds what a slow client leaves buffered
        client.setInitialStreamRecvWindow(STREAM_WINDOW);
        if (config.tls().isPresent()) {
            UpstreamTls context = UpstreamTls.create(config.tls().get(), "upstreams." + config.name() + ".tls");
            String host = config.host();
            tls = new SslContextFactory.Client() {
                @Override
                public void customize(SSLEngine engine) {
                    super.customize(engine);
                    // the core's SNI name, hostname verification (unless insecure-skip-verify) and
                    // protocols; ALPN's "h2" is added after this, by Jetty's ALPN processor
                    engine.setSSLParameters(context.parameters(host));
                }
            };
            tls.setSslContext(context.context());
            tls.setEndpointIdentificationAlgorithm(null); // the core's parameters decide it
            client.addBean(tls); // started and stopped with the client
        } else {
            tls = null;
        }
        this.acquireNanos = config.acquireTimeout().toNanos();
        this.maxLifetimeNanos =
                config.maxLifetime().map(java.time.Duration::toNanos).orElse(Long.MAX_VALUE);
        this.pacer = config.pace().map(dev.sluice.upstream.Pacer::new).orElse(null);
        this.readTimeoutNanos = Math.max(1, config.readTimeout().toNanos());
        try {
            client.start();
        } catch (Exception e) {
            throw new IllegalStateException("the HTTP/2 client of upstream " + config.name() + " did not start", e);
        }
    }

    @Override
    public UpstreamConfig config() {
        return config;
    }

    @Override
    public UpstreamResponse send(UpstreamRequest request) throws UpstreamException {
        if (request.isStopped()) {
            throw new UpstreamException(UpstreamFailure.TIMEOUT, config.name(), null);
        }
        if (pacer != null) { // pace: calls start evenly spread, as over HTTP/1.1
            try {
                request.awaitTurn(pacer.reserve(), config.name());
            } catch (java.io.InterruptedIOException cancelled) {
                throw new UpstreamException(UpstreamFailure.TIMEOUT, config.name(), cancelled);
            }
        }
        Connection connection = lease();
        Session session;
        try {
            session = connection.ready.get(config.connectTimeout().toNanos() * 2, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            release(connection);
            throw new UpstreamException(UpstreamFailure.TIMEOUT, config.name(), e);
        } catch (ExecutionException | TimeoutException e) {
            release(connection);
            throw new UpstreamException(connectFailure(e), config.name(), e);
        }
        InputStream body = request.body();
        long length = body == null ? 0 : request.contentLength();
        boolean hasBody = body != null && length != 0;
        MetaData.Request head = new MetaData.Request(
                request.method(),
                HttpURI.build()
                        .scheme(tls == null ? "http" : "https")
                        .host(config.host())
                        .port(config.port())
                        .pathQuery(request.target()),
                HttpVersion.HTTP_2,
                fields(request, length),
                hasBody ? length : 0);
        H2Exchange exchange = new H2Exchange(config.name(), readTimeoutNanos, () -> release(connection));
        CompletableFuture<Stream> opened = session.newStream(new HeadersFrame(head, null, !hasBody), exchange);
        Stream stream;
        try {
            stream = opened.get(readTimeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exchange.abort();
            throw new UpstreamException(UpstreamFailure.TIMEOUT, config.name(), e);
        } catch (ExecutionException | TimeoutException e) {
            connection.dead = true; // a session that takes no stream takes no more
            exchange.abort();
            throw new UpstreamException(UpstreamFailure.RESET, config.name(), e);
        }
        exchange.opened(stream);
        request.onCancel(exchange::cancel);
        if (hasBody) {
            Runnable pump = () -> pump(stream, body, exchange);
            if (Thread.currentThread().isVirtual()) {
                Thread.ofVirtual().name("sluice-h2-body").start(pump);
            } else {
                Thread.ofPlatform().daemon().name("sluice-h2-body").start(pump);
            }
        }
        try {
            exchange.awaitHead();
        } catch (UpstreamException e) {
            if (request.isStopped()) {
                throw new UpstreamException(UpstreamFailure.TIMEOUT, config.name(), e);
            }
            throw e;
        }
        return exchange;
    }

    /**
     * Streams the request body as DATA frames, each waiting until written (so within the stream's and
     * the connection's windows): a slow upstream slows the client's body.
     */
    private static void pump(Stream stream, InputStream body, H2Exchange exchange) {
        byte[] chunk = new byte[16 * 1024];
        try {
            while (true) {
                int n = body.read(chunk);
                if (n < 0) {
                    stream.data(new DataFrame(stream.getId(), ByteBuffer.allocate(0), true))
                            .get();
                    return;
                }
                if (n > 0) {
                    stream.data(new DataFrame(stream.getId(), ByteBuffer.wrap(chunk, 0, n), false))
                            .get();
                }
            }
        } catch (IOException e) { // the client's body broke or passed its limit: the exchange fails
            exchange.failed(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exchange.failed(e);
        } catch (ExecutionException e) { // the stream was reset or the connection lost: the response tells
            exchange.failed(e.getCause());
        }
    }

    /** The request's headers as HTTP/2 fields: connection-specific ones dropped, Host as :authority. */
    private HttpFields fields(UpstreamRequest request, long length) {
        HttpFields.Mutable fields = HttpFields.build(request.headerCount() + 2);
        for (int i = 0, n = request.headerCount(); i < n; i++) {
            String name = request.headerName(i).toLowerCase(Locale.ROOT);
            if (!PseudoHeaders.notSentOverH2(name)) {
                fields.add(name, request.headerValue(i));
            }
        }
        fields.put(HttpHeader.TE, "trailers"); // the gateway relays trailers (gRPC's status rides in them)
        if (length > 0) {
            fields.put(HttpHeader.CONTENT_LENGTH, Long.toString(length));
        }
        return fields;
    }

    /** A stream slot on a connection with room, a new connection when all are full, or a wait. */
    private Connection lease() throws UpstreamException {
        long deadline = System.nanoTime() + acquireNanos;
        Connection opening;
        synchronized (lock) {
            while (true) {
                if (closed) {
                    throw new UpstreamException(UpstreamFailure.POOL_EXHAUSTED, config.name(), null);
                }
                long now = System.nanoTime();
                for (Connection c : connections) {
                    if (!c.dead && now - c.opened > maxLifetimeNanos) { // max-lifetime: no new streams
                        c.dead = true;
                    }
                    if (c.dead && c.active == 0) {
                        closeQuietly(c);
                    }
                }
                connections.removeIf(c -> c.dead && c.active == 0);
                for (Connection c : connections) {
                    if (!c.dead && c.active < c.cap) {
                        c.active++;
                        return c;
                    }
                }
                if (liveCount() < config.maxConnections()) {
                    opening = new Connection(config.maxStreamsPerConnection());
                    opening.active = 1;
                    connections.add(opening);
                    break;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || waiting >= config.maxPending()) {
                    throw new UpstreamException(UpstreamFailure.POOL_EXHAUSTED, config.name(), null);
                }
                waiting++;
                try {
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new UpstreamException(UpstreamFailure.TIMEOUT, config.name(), e);
                } finally {
                    waiting--;
                }
            }
        }
        Connection connection = opening;
        Session.Listener listener = new Session.Listener() {
            @Override
            public void onSettings(Session session, SettingsFrame frame) {
                Integer max = frame.getSettings().get(SettingsFrame.MAX_CONCURRENT_STREAMS);
                if (max != null) {
                    synchronized (lock) {
                        connection.cap = Math.max(1, Math.min(config.maxStreamsPerConnection(), max));
                    }
                }
            }

            @Override
            public void onGoAway(Session session, GoAwayFrame frame) {
                gone(connection);
            }

            @Override
            public void onClose(Session session, GoAwayFrame frame, Callback callback) {
                gone(connection);
                callback.succeeded();
            }

            @Override
            public void onFailure(Session session, Throwable failure, Callback callback) {
                gone(connection);
                callback.succeeded();
            }
        };
        InetSocketAddress address = new InetSocketAddress(config.host(), config.port()); // resolved per connection
        CompletableFuture<Session> connecting = address.isUnresolved()
                ? CompletableFuture.failedFuture(new UnknownHostException(config.host()))
                : tls == null ? client.connect(address, listener) : client.connect(tls, address, listener);
        connecting.whenComplete((session, failure) -> {
            if (failure != null) {
                gone(connection);
                connection.ready.completeExceptionally(failure);
            } else {
                connection.ready.complete(session);
            }
        });
        return connection;
    }

    private int liveCount() {
        int n = 0;
        for (Connection c : connections) {
            if (!c.dead) {
                n++;
            }
        }
        return n;
    }

    private void gone(Connection connection) {
        synchronized (lock) {
            connection.dead = true;
            lock.notifyAll();
        }
    }

    private void release(Connection connection) {
        synchronized (lock) {
            connection.active--;
            if (connection.dead && connection.active == 0) { // its last stream ended: the session goes
                closeQuietly(connection);
            }
            lock.notifyAll();
        }
    }

    /** Closes a connection's session (GOAWAY) once it has one; its streams are over. */
    private static void closeQuietly(Connection connection) {
        connection.ready.thenAccept(s -> s.close(ErrorCode.NO_ERROR.code, "retired", Callback.NOOP));
    }

    private static UpstreamFailure connectFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            // connecting: a timeout is the connect's, any TLS failure the handshake's; then the core's reading
            UpstreamFailure found = t instanceof SocketTimeoutException || t instanceof TimeoutException
                    ? UpstreamFailure.CONNECT_TIMEOUT
                    : t instanceof SSLException ? UpstreamFailure.TLS_HANDSHAKE : UpstreamFailure.ofJdk(t);
            if (found != null) {
                return found;
            }
        }
        return UpstreamFailure.REFUSED;
    }

    @Override
    public void close() {
        List<Connection> open;
        synchronized (lock) {
            closed = true;
            open = List.copyOf(connections);
            connections.clear();
            lock.notifyAll();
        }
        for (Connection c : open) {
            Session s = c.ready.isDone() && !c.ready.isCompletedExceptionally() ? c.ready.join() : null;
            if (s != null) {
                s.close(ErrorCode.NO_ERROR.code, "gateway stopping", Callback.NOOP);
            }
        }
        try {
            client.stop();
        } catch (Exception ignored) {
            // stopping: nothing left to answer
        }
    }

    /** One connection and how many of its stream slots are taken. */
    private static final class Connection {
        final CompletableFuture<Session> ready = new CompletableFuture<>();
        final long opened = System.nanoTime();
        int active; // guarded by the client's lock
        int cap;
        volatile boolean dead;

        Connection(int cap) {
            this.cap = cap;
        }
    }

    /**
     * The trailers of {@code response} once its body was read to its end, when it came over HTTP/2
     * (null until then, and when the upstream sent none); null for any other response.
     */
    public static java.util.function.Supplier<HttpFields> trailers(UpstreamResponse response) {
        return response instanceof H2Exchange exchange ? exchange::trailers : null;
    }

    /**
     * The pool gauges of an h2 upstream: {@code in_use} counts the streams in flight (a connection
     * carries many), {@code idle} the live connections carrying none, {@code pending} the calls waiting
     * for a stream slot. Read when scraped.
     */
    @Override
    public java.util.Optional<dev.sluice.engine.PoolStats> pool() {
        synchronized (lock) {
            int inUse = 0;
            int idle = 0;
            for (Connection c : connections) {
                if (!c.dead) {
                    inUse += c.active;
                    idle += c.active == 0 ? 1 : 0;
                }
            }
            return java.util.Optional.of(new dev.sluice.engine.PoolStats(config.name(), inUse, idle, waiting));
        }
    }

    /** For tests and the scrape: the live connections. */
    int connectionCount() {
        synchronized (lock) {
            return liveCount();
        }
    }
}
