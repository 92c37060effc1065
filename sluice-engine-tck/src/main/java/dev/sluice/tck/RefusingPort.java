package dev.sluice.tck;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.nio.channels.SocketChannel;

/**
 * A loopback port that refuses every connection, for as long as this JVM runs: a TCP socket bound to
 * it that never listens. Bound without {@code SO_REUSEADDR}, it keeps the port from being given to
 * anything else (a server binding port 0, an outgoing connection's local port), so a connection to it
 * is refused by construction, never by luck. Closing a freshly bound port instead ("find a free port")
 * races every other socket of the machine for it.
 */
public final class RefusingPort {

    private static final RefusingPort SHARED = open();

    private final SocketChannel holder;
    private final int port;

    private RefusingPort(SocketChannel holder, int port) {
        this.holder = holder;
        this.port = port;
    }

    /** The JVM-wide refusing port, bound on first use and held until the JVM exits. */
    public static RefusingPort shared() {
        return SHARED;
    }

    private static RefusingPort open() {
        try {
            SocketChannel channel = SocketChannel.open();
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, false);
            channel.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return new RefusingPort(channel, ((InetSocketAddress) channel.getLocalAddress()).getPort());
        } catch (IOException e) {
            throw new UncheckedIOException("refusing port: cannot bind 127.0.0.1:0", e);
        }
    }

    public int port() {
        return port;
    }

    /** {@code http://127.0.0.1:<port>}. */
    public URI url() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** Whether the holding socket is still bound (it is, unless something closed it). */
    public boolean held() {
        return holder.isOpen();
    }
}
