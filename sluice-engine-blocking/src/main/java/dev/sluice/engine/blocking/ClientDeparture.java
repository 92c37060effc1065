package dev.sluice.engine.blocking;

import dev.sluice.engine.blocking.upstream.UpstreamRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.SocketChannelEndPoint;
import org.eclipse.jetty.server.ConnectionMetaData;
import org.eclipse.jetty.util.Callback;

/**
 * One exchange's client, which may leave before its answer: then every upstream call the exchange
 * made is cancelled at once (its HTTP/1.1 connection closed, its h2 stream reset), rather than held
 * until the upstream answers or its read timeout passes, and the exchange ends without an answer or
 * a log line. Jetty tells an HTTP/2 client's reset stream or lost connection (a failure listener);
 * an HTTP/1.1 connection is not read while its request is handled, so {@link Hangups} looks at it.
 *
 * <p>The exchange's callback goes through {@link #ending}: the watch ends before Jetty takes the
 * connection back, so the two never read it at once.
 */
final class ClientDeparture {

    private final EndPoint endPoint; // the connection's (decrypted, over TLS)
    private final SocketChannel socket; // an HTTP/1.x connection's socket on Jetty's selector, or null
    private UpstreamRequest call; // guarded by this: the exchange's one call (a proxy's), or its first
    private List<UpstreamRequest> more; // guarded by this: a composition's other parts, or null
    private boolean left; // guarded by this
    private boolean over; // guarded by this: the exchange ended, nothing to cancel or watch
    private volatile boolean readWhole; // Jetty reads no more of this request: the connection may be watched
    private SelectionKey key; // guarded by this: the Hangups watch, once registered

    /**
     * The connection is watched only once the route says Jetty reads no more of it ({@link
     * #markReadWhole}): a request with no body, one whose body was read whole, or one a composition never
     * reads.
     *
     * @param connection the exchange's: an HTTP/1.x connection's socket is watched by {@link Hangups}
     */
    ClientDeparture(ConnectionMetaData connection) {
        this.endPoint = connection.getConnection().getEndPoint();
        this.socket = connection.getHttpVersion() != HttpVersion.HTTP_2
                        && transport(endPoint) instanceof SocketChannelEndPoint s
                ? s.getChannel()
                : null;
    }

    private static EndPoint transport(EndPoint endPoint) {
        while (endPoint instanceof EndPoint.Wrapper wrapper) {
            endPoint = wrapper.unwrap();
        }
        return endPoint;
    }

    /** Cancels {@code call} when the client leaves (at once, if it has). */
    void cancels(UpstreamRequest next) {
        synchronized (this) {
            if (!left) {
                if (over) {
                    return;
                }
                if (call == null) {
                    call = next;
                } else {
                    if (more == null) {
                        more = new ArrayList<>();
                    }
                    more.add(next);
                }
                return;
            }
        }
        next.cancel();
    }

    /** Whether the exchange ended. */
    synchronized boolean over() {
        return over;
    }

    /** Whether the client left before the exchange ended. */
    synchronized boolean left() {
        return left;
    }

    /** The client is gone: every call is cancelled. */
    void leave() {
        List<UpstreamRequest> calls;
        synchronized (this) {
            if (left || over) {
                return;
            }
            left = true;
            calls = takeCalls();
        }
        calls.forEach(UpstreamRequest::cancel);
    }

    /** The calls held so far, no longer held. */
    private List<UpstreamRequest> takeCalls() { // guarded by this
        List<UpstreamRequest> calls = more == null ? (call == null ? List.of() : List.of(call)) : more;
        if (more != null) {
            more.addFirst(call); // more is only made beside a first call
        }
        call = null;
        more = null;
        return calls;
    }

    /** The request has no body, or it was read to its end: Jetty reads no more until the exchange ends. */
    void markReadWhole() {
        readWhole = true;
    }

    /** Whether Jetty reads no more of this request until the exchange ends. */
    boolean readWhole() {
        return readWhole;
    }

    /** {@code callback}, ending this watch first: completing it hands the connection back to Jetty. */
    Callback ending(Callback callback) {
        return new Callback() {
            @Override
            public void succeeded() {
                end();
                callback.succeeded();
            }

            @Override
            public void failed(Throwable x) {
                end();
                callback.failed(x);
            }

            @Override
            public InvocationType getInvocationType() {
                return callback.getInvocationType();
            }
        };
    }

    private void end() {
        SelectionKey watch;
        synchronized (this) {
            over = true;
            call = null; // nothing to cancel any more
            more = null;
            watch = key;
            key = null;
        }
        if (watch != null) {
            watch.cancel();
            watch.selector().wakeup(); // deregistered now, not at the next tick
        }
    }

    /** The client connection's socket, when it is an HTTP/1.x one on Jetty's selector (null: not watched). */
    SocketChannel channel() {
        return socket;
    }

    /** Registers the watch unless the exchange ended meanwhile; false then. */
    synchronized boolean watching(SelectionKey registered) {
        if (over) {
            return false;
        }
        key = registered;
        return true;
    }

    /**
     * The watched connection became readable while the request waits: a reset (the read fails) is a
     * client that left; a FIN is a half-close, answered as ever; bytes (a pipelined request) are
     * Jetty's, given back untouched. Returns whether to go on watching.
     */
    boolean readable(SocketChannel channel) {
        synchronized (this) {
            if (over || left) {
                return false;
            }
            try {
                if (channel.socket().getInputStream().available() > 0) {
                    key = null;
                    return false; // bytes for Jetty, once this exchange ends: no longer watched
                }
                ByteBuffer one = ByteBuffer.allocate(1);
                int n = channel.read(one);
                if (n == 0) {
                    return true;
                }
                key = null;
                if (n > 0) { // arrived after the look: Jetty's still, put back where it reads from
                    giveBack(one.flip());
                }
                return false; // n < 0: the client half-closed; it still gets its answer
            } catch (IOException reset) {
                key = null;
            }
        }
        leave();
        endPoint.close(null); // Jetty's own reads would see the reset no sooner than the answer's write
        return false;
    }

    private void giveBack(ByteBuffer bytes) {
        EndPoint transport = transport(endPoint);
        if (transport.getConnection() instanceof Connection.UpgradeTo to) {
            to.onUpgradeTo(bytes); // where the connection (TLS's, or HTTP/1.1's) reads from first
        } else {
            transport.close(); // cannot be put back: the connection is not served on in doubt
        }
    }
}
