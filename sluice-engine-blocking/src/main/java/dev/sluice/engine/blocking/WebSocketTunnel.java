package dev.sluice.engine.blocking;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.io.AbstractConnection;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.FutureCallback;

/**
 * The client connection once a WebSocket upgrade switched protocols: Jetty hands the endpoint to
 * this connection after the {@code 101} went out (the request's {@link
 * org.eclipse.jetty.server.HttpStream#UPGRADE_CONNECTION_ATTRIBUTE}, as Jetty's own ConnectHandler
 * tunnels a CONNECT), and two pumps copy bytes, never parsed, between it and the upstream socket until
 * both directions ended or either failed. An end of stream is passed on as a half close. The
 * endpoint's idle timeout is {@code server.limits.websocket-idle-timeout}: bytes in either direction
 * go through the endpoint, so a tunnel silent both ways that long is closed, both connections with it.
 *
 * <pre>
 *   client endpoint ──fill──► pump ──write──► upstream socket
 *   client endpoint ◄─write── pump ◄──read─── upstream socket
 * </pre>
 *
 * The pumps are virtual threads in both blocking modes: a tunnel spends its life waiting, and a pool
 * thread per direction would cap open tunnels at the pool's size.
 */
final class WebSocketTunnel extends AbstractConnection implements Connection.UpgradeTo {

    private static final int BUFFER = 16 * 1024;

    private final Socket upstream;
    private final byte[] early; // bytes the upstream sent behind its 101
    private final long idleMillis;
    private final AtomicInteger ended = new AtomicInteger(); // directions that ended cleanly
    private ByteBuffer prefilled; // bytes the client sent behind its request

    WebSocketTunnel(EndPoint endPoint, Executor executor, Socket upstream, byte[] early, Duration idle) {
        super(endPoint, executor);
        this.upstream = upstream;
        this.early = early;
        this.idleMillis = Math.max(1, idle.toMillis());
    }

    @Override
    public void onUpgradeTo(ByteBuffer buffer) {
        if (BufferUtil.hasContent(buffer)) {
            prefilled = BufferUtil.copy(buffer);
        }
    }

    @Override
    public void onOpen() {
        super.onOpen();
        getEndPoint().setIdleTimeout(idleMillis);
        try {
            upstream.setSoTimeout(0); // the endpoint's idle timeout governs the tunnel
        } catch (IOException e) {
            close();
            return;
        }
        Thread.ofVirtual().name("sluice-ws-up").start(this::clientToUpstream);
        Thread.ofVirtual().name("sluice-ws-down").start(this::upstreamToClient);
    }

    @Override
    public void onFillable() {
        // never asked: the client-to-upstream pump waits for bytes itself
    }

    @Override
    public boolean onIdleExpired(java.util.concurrent.TimeoutException timeout) {
        return true; // the endpoint closes; onClose drops the upstream socket
    }

    @Override
    public void onClose(Throwable cause) {
        super.onClose(cause);
        closeUpstream();
    }

    private void clientToUpstream() {
        EndPoint endPoint = getEndPoint();
        try {
            OutputStream out = upstream.getOutputStream();
            if (prefilled != null) {
                out.write(BufferUtil.toArray(prefilled));
                out.flush();
            }
            ByteBuffer buffer = BufferUtil.allocate(BUFFER);
            while (true) {
                BufferUtil.clear(buffer);
                int n = endPoint.fill(buffer);
                if (n > 0) {
                    out.write(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
                    out.flush();
                } else if (n == 0) {
                    FutureCallback readable = new FutureCallback();
                    endPoint.fillInterested(readable);
                    readable.get();
                } else {
                    upstream.shutdownOutput(); // the client closed its side: so does the gateway, upstream
                    directionEnded();
                    return;
                }
            }
        } catch (IOException | ExecutionException | RuntimeException e) {
            fail();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail();
        }
    }

    private void upstreamToClient() {
        EndPoint endPoint = getEndPoint();
        try {
            if (early.length > 0) {
                write(endPoint, ByteBuffer.wrap(early));
            }
            InputStream in = upstream.getInputStream();
            byte[] bytes = new byte[BUFFER];
            while (true) {
                int n = in.read(bytes);
                if (n < 0) {
                    endPoint.shutdownOutput(); // the upstream closed its side: so does the gateway, to the client
                    directionEnded();
                    return;
                }
                write(endPoint, ByteBuffer.wrap(bytes, 0, n));
            }
        } catch (IOException | ExecutionException | RuntimeException e) {
            fail();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail();
        }
    }

    private static void write(EndPoint endPoint, ByteBuffer bytes) throws ExecutionException, InterruptedException {
        FutureCallback written = new FutureCallback();
        endPoint.write(written, bytes);
        written.get();
    }

    /** Both directions ended cleanly: both connections are closed. */
    private void directionEnded() {
        if (ended.incrementAndGet() == 2) {
            fail();
        }
    }

    private void fail() {
        closeUpstream();
        getEndPoint().close();
    }

    private void closeUpstream() {
        try {
            upstream.close();
        } catch (IOException ignored) {
            // dropping the tunnel: nothing to report
        }
    }
}
