package dev.sluice.tck;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP/1.1 upstream that reads each request head and never answers, and counts the connections
 * the gateway let go of (closed or reset) while it held them: what a gateway must do with an upstream
 * call whose client has left.
 */
public final class HoldingUpstream implements AutoCloseable {

    private final ServerSocket server;
    private final AtomicInteger heads = new AtomicInteger();
    private final AtomicInteger released = new AtomicInteger();

    private HoldingUpstream(ServerSocket server) {
        this.server = server;
        Thread.ofVirtual().start(this::accept);
    }

    public static HoldingUpstream start() {
        try {
            return new HoldingUpstream(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
        } catch (IOException e) {
            throw new UncheckedIOException("holding upstream: cannot listen on 127.0.0.1", e);
        }
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    /** How many request heads arrived and are held. */
    public int heads() {
        return heads.get();
    }

    /** How many connections holding a request the gateway closed or reset. */
    public int released() {
        return released.get();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                Thread.ofVirtual().start(() -> hold(socket));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void hold(Socket socket) {
        boolean held = false;
        try (socket) {
            InputStream in = socket.getInputStream();
            int matched = 0;
            byte[] end = {'\r', '\n', '\r', '\n'};
            for (int c = in.read(); c >= 0; c = in.read()) {
                matched = c == end[matched] ? matched + 1 : (c == '\r' ? 1 : 0);
                if (matched == end.length) {
                    heads.incrementAndGet();
                    held = true;
                    break;
                }
            }
            while (held && in.read() >= 0) {
                // a request held: whatever else comes is read and dropped until the gateway lets go
            }
            if (held) {
                released.incrementAndGet();
            }
        } catch (IOException e) {
            if (held && !server.isClosed()) {
                released.incrementAndGet(); // reset by the gateway
            }
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
