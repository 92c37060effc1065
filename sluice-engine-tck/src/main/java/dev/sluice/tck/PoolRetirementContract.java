package dev.sluice.tck;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigChange;
import dev.sluice.config.GatewayConfig;
import dev.sluice.engine.Engine;
import dev.sluice.engine.RunningGateway;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * What a reload does to the pool of an upstream it removes or changes ({@code
 * dev.sluice.upstream.PoolRetirement}): the pool's idle connection closes at once (the upstream's
 * accepted socket reads its end), while a request in flight on the old pool completes, and its
 * connection then closes instead of going back.
 */
public abstract class PoolRetirementContract extends ContractFixture {

    private static final long WAIT_SECONDS = 20;
    /** Well within the upstream's idle-timeout (20 s by default), which would close it too. */
    private static final long DRAINED_SECONDS = 8;

    private static final String HELD = "held";

    /** An upstream connection as the upstream sees it: the paths asked on it, and its end. */
    private record Accepted(List<String> paths, CompletableFuture<Void> ended) {}

    /** A keep-alive HTTP/1.1 upstream that holds {@code /hold} until released and answers the rest at once. */
    private static final class HoldingUpstream implements AutoCloseable {
        final ServerSocket server;
        final List<Accepted> accepted = new CopyOnWriteArrayList<>();
        final CountDownLatch holding = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        HoldingUpstream() throws IOException {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread.ofVirtual().start(this::accept);
        }

        URI url() {
            return URI.create("http://127.0.0.1:" + server.getLocalPort());
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket socket = server.accept();
                    Accepted connection = new Accepted(new CopyOnWriteArrayList<>(), new CompletableFuture<>());
                    accepted.add(connection);
                    Thread.ofVirtual().start(() -> serve(socket, connection));
                } catch (IOException closed) {
                    return;
                }
            }
        }

        private void serve(Socket socket, Accepted connection) {
            try (socket) {
                java.io.BufferedReader in = new java.io.BufferedReader(
                        new java.io.InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
                OutputStream out = socket.getOutputStream();
                String path;
                while ((path = readHead(in)) != null) {
                    connection.paths().add(path);
                    if (path.equals("/hold")) {
                        holding.countDown();
                        release.await();
                    }
                    out.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // the gateway reset it: an end too
            } finally {
                connection.ended().complete(null);
            }
        }

        /** The next request's path (its head read to the blank line), or null at the end of the stream. */
        private static String readHead(java.io.BufferedReader in) throws IOException {
            String requestLine = in.readLine();
            if (requestLine == null) {
                return null;
            }
            for (String field = in.readLine(); field != null && !field.isEmpty(); field = in.readLine()) {
                // a GET's head: no body follows
            }
            return requestLine.split(" ")[1];
        }

        Accepted servedBy(String path) {
            return accepted.stream()
                    .filter(a -> a.paths().contains(path))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no upstream connection carried " + path));
        }

        @Override
        public void close() throws IOException {
            release.countDown();
            server.close();
        }
    }

    @Test
    void aReloadThatChangesAnUpstreamClosesItsIdleConnectionAndLetsItsCallInFlightFinish() throws Exception {
        retiring(held -> gateway()
                .upstream(Routes.upstream(HELD, held).readTimeout(Duration.ofSeconds(31)))
                .route(HELD, on("/held/**"), proxy(HELD).stripPrefix("/held")));
    }

    @Test
    void aReloadThatRemovesAnUpstreamClosesItsIdleConnectionAndLetsItsCallInFlightFinish() throws Exception {
        retiring(held -> gateway().route("rest", on("/**"), proxy(APP)));
    }

    private void retiring(java.util.function.Function<URI, TestGateway.Builder> after) throws Exception {
        HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        try (HoldingUpstream held = new HoldingUpstream()) {
            GatewayConfig running = gateway()
                    .upstream(HELD, held.url())
                    .route(HELD, on("/held/**"), proxy(HELD).stripPrefix("/held"))
                    .config();
            try (RunningGateway gateway = Engine.forMode(mode()).start(running)) {
                UnaryOperator<String> uri = path -> "http://127.0.0.1:" + gateway.port() + path;
                CompletableFuture<HttpResponse<String>> inFlight = client.sendAsync(
                        HttpRequest.newBuilder(URI.create(uri.apply("/held/hold")))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(held.holding.await(WAIT_SECONDS, TimeUnit.SECONDS))
                        .as("the held call reached the upstream")
                        .isTrue();
                HttpResponse<String> quick = client.send(
                        HttpRequest.newBuilder(URI.create(uri.apply("/held/quick")))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(quick.statusCode()).isEqualTo(200);
                Accepted idle = held.servedBy("/quick");
                Accepted busy = held.servedBy("/hold");
                assertThat(idle)
                        .as("the quick call had a connection of its own")
                        .isNotSameAs(busy);
                assertThat(idle.ended())
                        .as("pooled, idle, open before the reload")
                        .isNotDone();

                GatewayConfig next = after.apply(held.url()).config();
                gateway.reload(next, ConfigChange.between(running, next, "reloaded.yaml"));

                idle.ended().get(DRAINED_SECONDS, TimeUnit.SECONDS); // the retired pool's idle connection closed
                assertThat(inFlight).as("the call in flight goes on").isNotDone();
                held.release.countDown();
                HttpResponse<String> answered = inFlight.get(WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(answered.statusCode()).isEqualTo(200);
                assertThat(answered.body()).isEqualTo("ok");
                busy.ended().get(WAIT_SECONDS, TimeUnit.SECONDS); // closed after its exchange, not pooled
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            client.shutdownNow();
        }
    }
}
