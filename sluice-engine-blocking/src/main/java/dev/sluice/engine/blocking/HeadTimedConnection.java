package dev.sluice.engine.blocking;

import dev.sluice.http.H2cUpgrade;
import dev.sluice.http.RequestFraming;
import dev.sluice.http.WebSocketUpgrade;
import dev.sluice.observe.GatewayObserver;
import dev.sluice.observe.RefusedHead;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.internal.HttpConnection;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's HTTP/1.1 connection with {@code server.limits.header-timeout}: a request head that began
 * to arrive (its first byte) but is not whole within the timeout is answered {@code 408
 * request_timeout} and the connection closes. Jetty's idle timeout alone cannot do this: a client
 * sending a byte every few seconds (slowloris) is never idle.
 *
 * <pre>
 *   IDLE ──bytes of a head, not yet whole──► IN_HEAD ──head whole: handler runs──► HANDLING ──► IDLE
 *                                               └──timeout──► TIMED_OUT: 408, close
 * </pre>
 *
 * The handler and the timer race for an {@code IN_HEAD} connection through one compare-and-set, so
 * either the request runs or the 408 is written, never both. Jetty parses no next head while a
 * request is handled, so a partly parsed head after {@link #onFillable} always belongs to a request
 * no handler has seen.
 *
 * <p>It also takes h2c by upgrade on the connection's first request only, as the reactive engine
 * does: a later request's {@code Upgrade: h2c} is dropped as it is parsed, so the connection stays
 * HTTP/1.1 (a server may ignore an Upgrade header, RFC 9110 section 7.8; RFC 9113 deprecates h2c's).
 */
final class HeadTimedConnection extends HttpConnection {

    private static final int IDLE = 0;
    private static final int IN_HEAD = 1;
    private static final int HANDLING = 2;
    private static final int TIMED_OUT = 3;

    private static final RequestFraming.Rejection TIMEOUT_REJECTION = RequestFraming.Rejection.forParserStatus(408);
    private static final byte[] TIMED_OUT_ANSWER = TIMEOUT_REJECTION.wire();

    private final ScheduledExecutorService timer;
    private final long timeoutNanos;
    private final GatewayObserver observer;
    private final AtomicInteger state = new AtomicInteger(IDLE);
    private volatile ScheduledFuture<?> deadline;
    private boolean begun; // a request began on this connection (the parser's thread only)
    private boolean later; // the request being parsed is not the connection's first

    private HeadTimedConnection(
            HttpConfiguration config,
            Connector connector,
            EndPoint endPoint,
            ScheduledExecutorService timer,
            long timeoutNanos,
            GatewayObserver observer) {
        super(config, connector, endPoint);
        this.timer = timer;
        this.timeoutNanos = timeoutNanos;
        this.observer = observer;
    }

    @Override
    protected RequestHandler newRequestHandler() {
        return new RequestHandler() {
            @Override
            public void startRequest(String method, String uri, HttpVersion version) {
                later = begun;
                begun = true;
                super.startRequest(method, uri, version);
            }

            @Override
            public void parsedHeader(HttpField field) {
                if (later
                        && WebSocketUpgrade.upgradeHeader(field.getName())
                        && H2cUpgrade.asked(List.of(field.getValue()))) {
                    return;
                }
                super.parsedHeader(field);
            }
        };
    }

    @Override
    public void onFillable() {
        super.onFillable();
        HttpParser parser = getParser();
        // what arrived was parsed: a head begun and not whole starts its clock
        if (state.get() == IDLE && !parser.isStart() && parser.inHeaderState() && state.compareAndSet(IDLE, IN_HEAD)) {
            deadline = timer.schedule(this::expire, timeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void expire() {
        if (!state.compareAndSet(IN_HEAD, TIMED_OUT)) {
            return; // the head arrived in time
        }
        EndPoint endPoint = getEndPoint();
        Runnable done = endPoint::close;
        if (observer.listens()) { // the 408 is an answer like any other: reported once written
            long start = System.nanoTime();
            String client =
                    endPoint.getRemoteSocketAddress() instanceof InetSocketAddress remote && remote.getAddress() != null
                            ? remote.getAddress().getHostAddress()
                            : "unknown";
            done = () -> {
                observer.exchange(RefusedHead.event(
                        TIMEOUT_REJECTION.status(),
                        null,
                        null,
                        client,
                        System.nanoTime() - start,
                        TIMEOUT_REJECTION.errorBody().length));
                endPoint.close();
            };
        }
        Runnable closing = done;
        endPoint.write(Callback.from(closing, failure -> closing.run()), ByteBuffer.wrap(TIMED_OUT_ANSWER));
    }

    /**
     * Called by the handler first: false when the head's time ran out and the 408 went out instead,
     * so the request must not run.
     */
    static boolean began(Request request) {
        if (!(request.getConnectionMetaData().getConnection() instanceof HeadTimedConnection c)) {
            return true;
        }
        while (true) {
            int now = c.state.get();
            if (now == TIMED_OUT) {
                return false;
            }
            if (now == HANDLING || c.state.compareAndSet(now, HANDLING)) {
                ScheduledFuture<?> d = c.deadline;
                if (d != null) {
                    d.cancel(false);
                    c.deadline = null;
                }
                return true;
            }
        }
    }

    /** Called by the handler last: the connection waits for its next head. */
    static void ended(Request request) {
        if (request.getConnectionMetaData().getConnection() instanceof HeadTimedConnection c) {
            c.state.compareAndSet(HANDLING, IDLE);
        }
    }

    /** Makes {@link HeadTimedConnection}s; everything else as Jetty's own factory. */
    static final class Factory extends HttpConnectionFactory {
        private final ScheduledExecutorService timer;
        private final long timeoutNanos;
        private final GatewayObserver observer;

        Factory(
                HttpConfiguration config,
                ScheduledExecutorService timer,
                java.time.Duration timeout,
                GatewayObserver observer) {
            super(config);
            this.timer = timer;
            this.timeoutNanos = timeout.toNanos();
            this.observer = observer;
        }

        @Override
        public Connection newConnection(Connector connector, EndPoint endPoint) {
            HeadTimedConnection connection =
                    new HeadTimedConnection(getHttpConfiguration(), connector, endPoint, timer, timeoutNanos, observer);
            connection.setTransferEncodingChunkMaxLength(getTransferEncodingChunkMaxLength());
            return configure(connection, connector, endPoint);
        }
    }
}
