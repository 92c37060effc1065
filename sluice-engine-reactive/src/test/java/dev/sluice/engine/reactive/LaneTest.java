package dev.sluice.engine.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.tck.RefusingPort;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.resolver.DefaultAddressResolverGroup;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The reactive engine's upstream pool, against a real upstream on loopback that counts the
 * connections it accepts and closes: reuse, {@code max-connections}, {@code max-pending}, {@code
 * acquire-timeout}, {@code idle-timeout}, and never reusing a connection whose response was not read
 * to its end or that the upstream asked to close.
 */
@ExtendWith(LeakGuard.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LaneTest {

    private EventLoopGroup group;
    private EventLoop loop;
    private CountingUpstream upstream;

    @BeforeEach
    void start() throws IOException {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        loop = group.next();
        upstream = new CountingUpstream();
    }

    @AfterEach
    void stop() throws Exception {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        upstream.close();
    }

    private Lane lane(int maxConnections, int maxPending, Duration acquireTimeout, Duration idleTimeout) {
        return new Lane(
                loop,
                NioSocketChannel.class,
                upstream.address(),
                DefaultAddressResolverGroup.INSTANCE, // a resolved address: not asked
                1000,
                TimeUnit.SECONDS.toNanos(10),
                maxConnections,
                maxPending,
                acquireTimeout.toNanos(),
                idleTimeout.toNanos(),
                Long.MAX_VALUE,
                null,
                "127.0.0.1",
                null); // no channel group: the test's loop group is stopped by the test
    }

    /**
     * Waits until the lane's loop has run every task queued so far. The loop handles socket reads
     * before queued tasks, so without this a body the upstream sends next could overtake them.
     */
    private void settle() throws Exception {
        loop.submit(() -> {}).get(10, TimeUnit.SECONDS);
    }

    /** Starts a call to {@code /hold} and waits for its head: its connection stays busy until released. */
    private static Call holding(Lane lane) throws Exception {
        Call call = Call.start(lane, "/hold");
        call.head.get(10, TimeUnit.SECONDS);
        return call;
    }

    private Lane lane() {
        return lane(4, 10, Duration.ofSeconds(5), Duration.ofSeconds(20));
    }

    @Test
    void connectionsAreReusedOneExchangeAfterAnother() throws Exception {
        Lane lane = lane();
        for (int i = 0; i < 5; i++) {
            assertThat(Call.start(lane, "/ok").body.get(10, TimeUnit.SECONDS)).isEqualTo("{\"ok\":true}");
        }
        assertThat(upstream.accepted.get())
                .as("one kept-alive connection carried all five")
                .isEqualTo(1);
    }

    @Test
    void aFreshConnectionIsNeverAnIdleOneAndAtMaxConnectionsAnIdleOneMakesRoom() throws Exception {
        Lane lane = lane(1, 10, Duration.ofSeconds(5), Duration.ofSeconds(20));
        assertThat(Call.start(lane, "/ok").body.get(10, TimeUnit.SECONDS)).isEqualTo("{\"ok\":true}");
        assertThat(upstream.accepted.get()).isEqualTo(1);
        assertThat(Call.fresh(lane, "/ok").body.get(10, TimeUnit.SECONDS)).isEqualTo("{\"ok\":true}");
        assertThat(upstream.accepted.get())
                .as("the idle connection was closed for a new one, within max-connections 1")
                .isEqualTo(2);
        assertThat(Call.start(lane, "/ok").body.get(10, TimeUnit.SECONDS)).isEqualTo("{\"ok\":true}");
        assertThat(upstream.accepted.get())
                .as("the fresh one is pooled as any other")
                .isEqualTo(2);
    }

    @Test
    void aResponseThatAsksToCloseIsNotReused() throws Exception {
        Lane lane = lane();
        assertThat(Call.start(lane, "/close").body.get(10, TimeUnit.SECONDS)).isEqualTo("{\"ok\":true}");
        assertThat(Call.start(lane, "/ok").body.get(10, TimeUnit.SECONDS)).isEqualTo("{\"ok\":true}");
        assertThat(upstream.accepted.get()).isEqualTo(2);
    }

    @Test
    void anAbandonedExchangeClosesItsConnection() throws Exception {
        Lane lane = lane();
        Call held = Call.start(lane, "/hold");
        UpstreamConnection connection = held.head.get(10, TimeUnit.SECONDS);
        connection.abandon(held);
        settle(); // else the loop may read the body, ending the exchange, before it runs the abandon
        assertThat(connection.channel.isActive())
                .as("closed when abandoned, not when unread bytes arrive")
                .isFalse();
        upstream.release.countDown(); // the upstream writes the rest, and then finds the connection closed
        assertThat(upstream.closed.await(10, TimeUnit.SECONDS))
                .as("the upstream saw the connection close")
                .isTrue();
        assertThat(Call.start(lane, "/ok").body.get(10, TimeUnit.SECONDS)).isEqualTo("{\"ok\":true}");
        assertThat(upstream.accepted.get())
                .as("a half-read connection is never reused")
                .isEqualTo(2);
    }

    @Test
    void beyondMaxConnectionsCallsWaitTheirTurnAndBeyondMaxPendingFailAtOnce() throws Exception {
        Lane lane = lane(1, 1, Duration.ofSeconds(30), Duration.ofSeconds(20));
        Call first = holding(lane);
        Call second = Call.start(lane, "/ok"); // waits: the only connection is busy
        Call third = Call.start(lane, "/ok"); // more than max-pending
        assertThat(third.error.get(10, TimeUnit.SECONDS))
                .isInstanceOf(Lane.Exhausted.class)
                .hasMessageContaining("max-pending");
        assertThat(second.body).isNotDone();
        upstream.release.countDown();
        assertThat(first.body.get(10, TimeUnit.SECONDS)).isEqualTo("{\"ok\":true}");
        assertThat(second.body.get(10, TimeUnit.SECONDS)).isEqualTo("{\"ok\":true}");
        assertThat(upstream.accepted.get())
                .as("the waiting call got the released connection")
                .isEqualTo(1);
    }

    @Test
    void aCallThatGivesUpWaitingLeavesTheLine() throws Exception {
        Lane lane = lane(1, 1, Duration.ofSeconds(30), Duration.ofSeconds(20));
        Call first = holding(lane);
        Call gaveUp = Call.start(lane, "/ok");
        lane.cancel(gaveUp);
        Call third = Call.start(lane, "/ok"); // takes the place in line that the cancelled call left
        settle(); // else the first body may come back before these calls reach the lane
        upstream.release.countDown();
        assertThat(first.body.get(10, TimeUnit.SECONDS)).isEqualTo("{\"ok\":true}");
        assertThat(third.body.get(10, TimeUnit.SECONDS)).isEqualTo("{\"ok\":true}");
        assertThat(gaveUp.body).as("the cancelled call got no connection").isNotDone();
        assertThat(gaveUp.error).isNotDone();
    }

    @Test
    void aCallThatWaitsLongerThanAcquireTimeoutFails() throws Exception {
        Lane lane = lane(1, 10, Duration.ofMillis(300), Duration.ofSeconds(20));
        Call first = holding(lane);
        Call second = Call.start(lane, "/ok");
        assertThat(second.error.get(10, TimeUnit.SECONDS))
                .isInstanceOf(Lane.Exhausted.class)
                .hasMessageContaining("acquire-timeout");
        upstream.release.countDown();
        assertThat(first.body.get(10, TimeUnit.SECONDS)).isEqualTo("{\"ok\":true}");
    }

    @Test
    void idleConnectionsCloseAfterIdleTimeout() throws Exception {
        Lane lane = lane(4, 10, Duration.ofSeconds(5), Duration.ofMillis(200));
        assertThat(Call.start(lane, "/ok").body.get(10, TimeUnit.SECONDS)).isEqualTo("{\"ok\":true}");
        assertThat(upstream.closed.await(10, TimeUnit.SECONDS))
                .as("the idle connection was closed")
                .isTrue();
        assertThat(Call.start(lane, "/ok").body.get(10, TimeUnit.SECONDS)).isEqualTo("{\"ok\":true}");
        assertThat(upstream.accepted.get()).isEqualTo(2);
    }

    @Test
    void aRefusedConnectFailsTheCallAndFreesItsSlot() throws Exception {
        int port = RefusingPort.shared().port();
        Lane lane = new Lane(
                loop,
                NioSocketChannel.class,
                new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
                DefaultAddressResolverGroup.INSTANCE,
                1000,
                TimeUnit.SECONDS.toNanos(10),
                1,
                0,
                TimeUnit.SECONDS.toNanos(5),
                TimeUnit.SECONDS.toNanos(20),
                Long.MAX_VALUE,
                null,
                "127.0.0.1",
                null); // no channel group: the test's loop group is stopped by the test
        for (int i = 0; i < 3; i++) { // with max-connections 1 and no waiting, a leaked slot fails as exhausted
            Throwable error = Call.start(lane, "/ok").error.get(10, TimeUnit.SECONDS);
            assertThat(Failures.classify(error)).isEqualTo(dev.sluice.http.UpstreamFailure.REFUSED);
        }
    }

    /** One exchange: a GET, its head, its whole body as text, or its failure. */
    private static final class Call implements Lane.Acquirer, UpstreamConnection.Exchange {
        final String path;
        final CompletableFuture<UpstreamConnection> head = new CompletableFuture<>();
        final CompletableFuture<String> body = new CompletableFuture<>();
        final CompletableFuture<Throwable> error = new CompletableFuture<>();
        private final StringBuilder text = new StringBuilder();

        private Call(String path) {
            this.path = path;
        }

        static Call fresh(Lane lane, String path) {
            Call call = new Call(path);
            lane.acquire(call, true);
            return call;
        }

        static Call start(Lane lane, String path) {
            Call call = new Call(path);
            lane.acquire(call);
            return call;
        }

        @Override
        public void acquired(UpstreamConnection connection) {
            var request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path, Unpooled.EMPTY_BUFFER);
            request.headers().set("host", "upstream");
            connection.send(this, request, false);
        }

        @Override
        public void failed(Throwable failure) {
            error.complete(failure);
        }

        @Override
        public void onHead(HttpResponse response, UpstreamConnection connection) {
            head.complete(connection);
        }

        @Override
        public void onContent(ByteBuf content) {
            text.append(content.toString(StandardCharsets.UTF_8));
            content.release();
        }

        @Override
        public void onEnd() {
            body.complete(text.toString());
        }

        @Override
        public void onError(Throwable failure) {
            error.complete(failure);
        }
    }

    /**
     * An HTTP/1.1 upstream on a loopback socket that counts the connections it accepts and those that
     * close. {@code /ok} answers at once; {@code /close} answers with {@code Connection: close};
     * {@code /hold} sends its head, then waits for {@link #release} before its body.
     */
    private static final class CountingUpstream implements AutoCloseable {
        final AtomicInteger accepted = new AtomicInteger();
        final CountDownLatch closed = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());

        CountingUpstream() throws IOException {
            Thread.ofVirtual().start(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket socket = server.accept();
                        accepted.incrementAndGet();
                        Thread.ofVirtual().start(() -> serve(socket));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
        }

        InetSocketAddress address() {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
        }

        private void serve(Socket socket) {
            try (socket) {
                BufferedReader in =
                        new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
                OutputStream out = socket.getOutputStream();
                String line;
                while ((line = in.readLine()) != null) {
                    String path = line.split(" ")[1];
                    while (!(line = in.readLine()).isEmpty()) {
                        // headers: not needed
                    }
                    String body = "{\"ok\":true}";
                    String head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                            + body.length() + (path.equals("/close") ? "\r\nConnection: close" : "") + "\r\n\r\n";
                    out.write(head.getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    if (path.equals("/hold")) {
                        release.await(30, TimeUnit.SECONDS);
                    }
                    out.write(body.getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    if (path.equals("/close")) {
                        return;
                    }
                }
            } catch (IOException | InterruptedException | RuntimeException e) {
                // the gateway closed the connection
            } finally {
                closed.countDown();
            }
        }

        @Override
        public void close() throws IOException {
            release.countDown();
            server.close();
        }
    }
}
