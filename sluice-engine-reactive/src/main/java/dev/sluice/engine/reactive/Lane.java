package dev.sluice.engine.reactive;

import dev.sluice.http.ResponseHeadCheck;
import dev.sluice.tls.UpstreamTls;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.group.ChannelGroup;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.netty.resolver.AddressResolverGroup;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One upstream's connection pool on one event loop: every connection in it lives on that loop, so a
 * request served on the loop reaches its upstream with no thread hop. {@code max-connections} and
 * {@code max-pending} bound it; a request that finds every connection busy waits (at most {@code
 * acquire-timeout}) for one to come back; connections idle for {@code idle-timeout} are closed.
 *
 * <pre>
 *   acquire ──► an idle connection (most recently used first)
 *           ──► else a new one, below max-connections
 *           ──► else wait in line (at most max-pending), for a release or a free slot
 * </pre>
 *
 * For an https upstream a connection starts with Netty's {@link SslHandler} (the core's {@link
 * UpstreamTls} engine) and is handed out only once its handshake is done, within {@code
 * connect-timeout}; a connection older than {@code max-lifetime} is closed instead of reused.
 *
 * <p>State lives on the lane's loop; {@link #acquire} may be called from any thread, and its callback
 * runs on the lane's loop.
 */
final class Lane {

    /** Whoever asked for a connection. Called on the lane's loop, exactly once. */
    interface Acquirer {
        void acquired(UpstreamConnection connection);

        void failed(Throwable error);
    }

    /** No connection within {@code acquire-timeout}, or more than {@code max-pending} waiting. */
    static final class Exhausted extends RuntimeException {
        Exhausted(String message) {
            super(message, null, false, false);
        }
    }

    /** The TLS handshake with an https upstream failed (not in time: a {@link SslHandshakeTimeoutException}). */
    static final class TlsHandshakeFailed extends java.io.IOException {
        TlsHandshakeFailed(Throwable cause) {
            super("TLS handshake failed: " + cause.getMessage(), cause);
        }
    }

    private static final String TLS = "sluice.tls";

    /** Largest body piece the response decoder hands over: a whole socket read, not 8 KB slices of it. */
    private static final int MAX_CHUNK = 64 * 1024;

    /**
     * How every upstream response is decoded, a WebSocket handshake's answer too ({@link
     * WebSocketRelay}): the core's head limit, the same in every engine, and the headers that keep
     * what the decoder drops for {@link UpstreamConnection#check}.
     */
    static HttpDecoderConfig decoding() {
        return new HttpDecoderConfig()
                .setMaxChunkSize(MAX_CHUNK)
                .setMaxHeaderSize(ResponseHeadCheck.MAX_HEAD_BYTES) // the same limit in every engine
                .setHeadersFactory(ReceivedHeaders.FACTORY);
    }

    private final EventLoop loop;
    private final Bootstrap bootstrap;
    private final int maxConnections;
    private final int maxPending;
    private final long acquireTimeoutNanos;
    private final long idleTimeoutNanos;
    private final long maxLifetimeNanos; // Long.MAX_VALUE: none
    private final ArrayDeque<UpstreamConnection> idle = new ArrayDeque<>(); // most recent first
    private final ArrayDeque<Waiter> waiting = new ArrayDeque<>();
    private int open; // connections open or being opened

    /**
     * Its counts, read on its loop (they are the loop's alone): for the pool gauges, when metrics are
     * scraped. Zeros when the loop does not answer within a second (stopping, or stuck).
     */
    dev.sluice.engine.PoolStats stats(String upstream) {
        java.util.concurrent.Callable<dev.sluice.engine.PoolStats> read =
                () -> new dev.sluice.engine.PoolStats(upstream, open - idle.size(), idle.size(), waiting.size());
        try {
            return loop.inEventLoop() ? read.call() : loop.submit(read).get(1, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new dev.sluice.engine.PoolStats(upstream, 0, 0, 0);
        } catch (Exception e) {
            return new dev.sluice.engine.PoolStats(upstream, 0, 0, 0);
        }
    }

    private boolean sweeping;
    private boolean closed;
    private boolean draining; // retired by a reload: no connection goes back to the pool

    private static final class Waiter {
        final Acquirer acquirer;
        ScheduledFuture<?> timer;

        Waiter(Acquirer acquirer) {
            this.acquirer = acquirer;
        }
    }

    /**
     * @param channels where every connection of the lane is added (a gateway's stop closes them all,
     *     and waits for their closes, before its event loops stop), or null
     */
    Lane(
            EventLoop loop,
            Class<? extends Channel> type,
            InetSocketAddress address,
            AddressResolverGroup<InetSocketAddress> resolver,
            int connectTimeoutMillis,
            long readTimeoutNanos,
            int maxConnections,
            int maxPending,
            long acquireTimeoutNanos,
            long idleTimeoutNanos,
            long maxLifetimeNanos,
            UpstreamTls tls,
            String host,
            ChannelGroup channels) {
        this.loop = loop;
        this.maxLifetimeNanos = maxLifetimeNanos;
        this.maxConnections = maxConnections;
        this.maxPending = maxPending;
        this.acquireTimeoutNanos = acquireTimeoutNanos;
        this.idleTimeoutNanos = idleTimeoutNanos;
        HttpDecoderConfig decoding = decoding();
        this.bootstrap = new Bootstrap()
                .group(loop)
                .channel(type)
                .remoteAddress(address) // a name: looked up for each new connection
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis)
                .option(ChannelOption.AUTO_READ, false)
                // a failed body write leaves the connection open, so that an answer the upstream sent
                // before it stopped reading (RFC 9112 section 9.3) is still read and relayed; the
                // exchange closes it, its request unfinished, when that answer ends or reading fails
                .option(ChannelOption.AUTO_CLOSE, false)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel channel) {
                        if (channels != null) {
                            channels.add(channel);
                        }
                        ReadStall stall = new ReadStall(readTimeoutNanos);
                        CappedReads reads = new CappedReads();
                        channel.config().setRecvByteBufAllocator(reads);
                        if (tls != null) {
                            SslHandler ssl = new SslHandler(tls.engine(host, address.getPort()));
                            ssl.setHandshakeTimeoutMillis(connectTimeoutMillis);
                            channel.pipeline().addLast(TLS, ssl);
                        }
                        channel.pipeline()
                                .addLast(new HttpClientCodec(decoding, false, false))
                                .addLast(ReadStall.NAME, stall)
                                .addLast(
                                        UpstreamConnection.NAME,
                                        new UpstreamConnection(Lane.this, channel, stall, reads));
                    }
                });
        if (resolver != null) { // an IP literal keeps Bootstrap's default, which it never needs
            bootstrap.resolver(resolver);
        }
    }

    EventLoop loop() {
        return loop;
    }

    /**
     * A bootstrap for one connection outside the pool (a WebSocket tunnel's): the lane's address,
     * resolver and options, on {@code on}, its handler the caller's to set.
     */
    Bootstrap unpooled(EventLoop on) {
        return bootstrap.clone(on);
    }

    /** Finds {@code acquirer} a connection, now or later; or fails it. */
    void acquire(Acquirer acquirer) {
        acquire(acquirer, false);
    }

    /** With {@code fresh}, a new connection, never an idle one (a stale try's resend); at the max one idle closes. */
    void acquire(Acquirer acquirer, boolean fresh) {
        if (!loop.inEventLoop()) {
            loop.execute(() -> acquire(acquirer, fresh));
            return;
        }
        if (closed) {
            acquirer.failed(new Exhausted("the gateway is stopping"));
            return;
        }
        UpstreamConnection connection;
        while (!fresh && (connection = idle.pollFirst()) != null) {
            if (tooOld(connection)) {
                connection.channel.close();
            } else if (connection.channel.isActive()) {
                acquirer.acquired(connection);
                return;
            }
        }
        if (open < maxConnections) {
            connect(acquirer);
            return;
        }
        if (fresh && (connection = idle.pollLast()) != null) {
            connection.channel.close(); // its slot: now when the close is done at once, else to the first in line
            if (open < maxConnections) {
                connect(acquirer);
                return;
            }
        }
        if (waiting.size() >= maxPending) {
            acquirer.failed(new Exhausted("more than max-pending requests wait for a connection"));
            return;
        }
        Waiter waiter = new Waiter(acquirer);
        waiter.timer = loop.schedule(
                () -> {
                    if (waiting.remove(waiter)) {
                        acquirer.failed(new Exhausted("no connection within acquire-timeout"));
                    }
                },
                acquireTimeoutNanos,
                TimeUnit.NANOSECONDS);
        waiting.add(waiter);
    }

    /**
     * {@code acquirer} no longer wants a connection (its request is over): it leaves the line, so
     * that it holds no {@code max-pending} slot. A connection it is already being given still reaches
     * it; it hands that back with {@link #release}.
     */
    void cancel(Acquirer acquirer) {
        if (!loop.inEventLoop()) {
            loop.execute(() -> cancel(acquirer));
            return;
        }
        for (var it = waiting.iterator(); it.hasNext(); ) {
            Waiter waiter = it.next();
            if (waiter.acquirer == acquirer) {
                it.remove();
                waiter.timer.cancel(false);
                return;
            }
        }
    }

    private void connect(Acquirer acquirer) {
        open++;
        ChannelFuture future = bootstrap.connect();
        Channel channel = future.channel();
        channel.closeFuture().addListener(f -> closed(channel));
        future.addListener(f -> {
            if (f.isSuccess() && channel.pipeline().get(UpstreamConnection.NAME) instanceof UpstreamConnection c) {
                if (channel.pipeline().get(TLS) instanceof SslHandler ssl) {
                    // handed out only once the handshake is done: no request waits in SslHandler's queue
                    ssl.handshakeFuture().addListener(h -> {
                        if (h.isSuccess()) {
                            acquirer.acquired(c);
                        } else {
                            channel.close();
                            acquirer.failed(
                                    h.cause() instanceof SslHandshakeTimeoutException
                                            ? h.cause()
                                            : new TlsHandshakeFailed(h.cause()));
                        }
                    });
                    return;
                }
                acquirer.acquired(c);
            } else {
                channel.close();
                acquirer.failed(f.cause() != null ? f.cause() : new java.nio.channels.ClosedChannelException());
            }
        });
    }

    /** Whether {@code connection} is older than {@code max-lifetime}: closed instead of reused. */
    private boolean tooOld(UpstreamConnection connection) {
        return maxLifetimeNanos != Long.MAX_VALUE && System.nanoTime() - connection.openedAt > maxLifetimeNanos;
    }

    /** {@code connection} finished its exchange cleanly and may carry another. On the lane's loop. */
    void release(UpstreamConnection connection) {
        if (closed || draining || !connection.channel.isActive() || tooOld(connection)) {
            connection.channel.close();
            return;
        }
        Waiter waiter = waiting.pollFirst();
        if (waiter != null) {
            waiter.timer.cancel(false);
            waiter.acquirer.acquired(connection);
            return;
        }
        connection.idleSince = System.nanoTime();
        idle.addFirst(connection);
        // its read stays armed while idle: an upstream's close is seen at once (the connection leaves the
        // pool), and the next exchange's first read needs no re-arming (with NIO, two epoll_ctl calls)
        connection.readWhileIdle();
        if (!sweeping) {
            sweeping = true;
            loop.schedule(this::sweep, idleTimeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** A connection closed (or failed to open): its slot is free for whoever waits. */
    private void closed(Channel channel) {
        open--;
        if (!idle.isEmpty()) {
            idle.removeIf(c -> c.channel == channel);
        }
        if (!closed && open < maxConnections) {
            Waiter waiter = waiting.pollFirst();
            if (waiter != null) {
                waiter.timer.cancel(false);
                connect(waiter.acquirer);
            }
        }
    }

    /** Closes the connections idle for {@code idle-timeout}; the oldest are at the tail. */
    private void sweep() {
        sweeping = false;
        long now = System.nanoTime();
        UpstreamConnection oldest;
        while ((oldest = idle.peekLast()) != null && now - oldest.idleSince >= idleTimeoutNanos) {
            idle.pollLast();
            oldest.channel.close();
        }
        if (oldest != null && !closed) {
            sweeping = true;
            loop.schedule(this::sweep, idleTimeoutNanos - (now - oldest.idleSince), TimeUnit.NANOSECONDS);
        }
    }

    /**
     * A reload retired the lane ({@link dev.sluice.upstream.PoolRetirement}): its idle connections
     * close now, each busy one when its exchange ends; whoever waits or still asks gets a connection.
     */
    void drain() {
        if (!loop.inEventLoop()) {
            loop.execute(this::drain);
            return;
        }
        draining = true;
        closeIdle();
    }

    private void closeIdle() {
        UpstreamConnection connection;
        while ((connection = idle.pollFirst()) != null) {
            connection.channel.close();
        }
    }

    /** Closes the idle connections and fails whoever waits; busy ones close with their exchanges. */
    void close() {
        if (!loop.inEventLoop()) {
            loop.execute(this::close);
            return;
        }
        closed = true;
        closeIdle();
        Waiter waiter;
        while ((waiter = waiting.pollFirst()) != null) {
            waiter.timer.cancel(false);
            waiter.acquirer.failed(new Exhausted("the gateway is stopping"));
        }
    }
}
