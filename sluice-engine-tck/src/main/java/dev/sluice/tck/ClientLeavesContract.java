package dev.sluice.tck;

import static dev.sluice.tck.Routes.compose;
import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.TlsConfig;
import dev.sluice.config.TlsConfig.CertificateFiles;
import dev.sluice.config.UpstreamProtocol;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that leaves (its connection reset) while its request waits on an upstream that has not
 * answered: the gateway lets go of the upstream call at once (closes its HTTP/1.1 connection, resets
 * its h2 stream), not when the upstream answers or its read timeout passes. The upstreams here never
 * answer and their read timeout is a minute, so only noticing the client ends the call in time.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ClientLeavesContract extends ContractFixture {

    private static final String HOLD = "hold";
    private static final String H2C = "h2c";
    private static final Duration NOTICED = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    private HoldingUpstream holding;
    private H2cUpstream h2c;

    @BeforeAll
    void startUpstreams() {
        holding = HoldingUpstream.start();
        h2c = H2cUpstream.start();
    }

    @AfterAll
    void stopUpstreams() {
        holding.close();
        h2c.close();
    }

    private TestGateway.Builder routes() {
        return gateway()
                .upstream(Routes.upstream(HOLD, holding.url())
                        .connectTimeout(Duration.ofSeconds(5))
                        .readTimeout(Duration.ofMinutes(1)))
                .upstream(Routes.upstream(H2C, h2c.url())
                        .connectTimeout(Duration.ofSeconds(5))
                        .readTimeout(Duration.ofMinutes(1))
                        .protocol(UpstreamProtocol.H2C))
                .route("app", on("/app/**"), proxy(APP).stripPrefix("/app"))
                .route("p", on("/p/**"), proxy(HOLD).stripPrefix("/p").timeout(Duration.ofMinutes(1)))
                .route("h2", on("/h2/**"), proxy(H2C).stripPrefix("/h2").timeout(Duration.ofMinutes(1)))
                .route(
                        "c",
                        on("/c"),
                        compose()
                                .timeout(Duration.ofMinutes(1))
                                .part("a", HOLD, "/a")
                                .part("b", HOLD, "/b")
                                .part("s", H2C, "/stall"));
    }

    @Test
    void aClientThatResetsWhileItsProxiedRequestWaitsFreesTheUpstreamConnection() throws Exception {
        Ended ended = new Ended();
        try (LogCapture log = LogCapture.start();
                TestGateway gw = routes().observer(ended).start()) {
            int before = holding.released();
            int heads = holding.heads();
            try (Socket client = request(gw, "GET /p/slow HTTP/1.1")) {
                Await.until(NOTICED, () -> holding.heads() > heads, "the request reached the upstream");
                reset(client);
            }
            Await.until(NOTICED, () -> holding.released() > before, "the upstream connection let go");
            Await.until(NOTICED, () -> ended.count() > 0, "the exchange ended");
            assertQuiet(log);
        }
    }

    /**
     * A kept-alive connection whose requests each wait past the watch's first look: each is watched
     * in turn on the same socket (registered again once the last exchange's watch let go), and a
     * reset during the last still frees its upstream connection.
     */
    @Test
    void eachWaitingRequestOfAKeptAliveConnectionIsWatchedInTurn() throws Exception {
        try (TestGateway gw = routes().start();
                WireClient.Connection connection =
                        gw.wire().timeout(Duration.ofSeconds(20)).open()) {
            for (int i = 0; i < 3; i++) {
                connection.write("GET /app/json/10?delay=250 HTTP/1.1\r\nHost: h\r\n\r\n");
                assertThat(connection.response().status()).isEqualTo(200);
            }
            int before = holding.released();
            int heads = holding.heads();
            connection.write("GET /p/slow HTTP/1.1\r\nHost: h\r\n\r\n");
            Await.until(NOTICED, () -> holding.heads() > heads, "the request reached the upstream");
            connection.reset();
            Await.until(NOTICED, () -> holding.released() > before, "the upstream connection let go");
        }
    }

    /**
     * A TLS client killed while its request waits: its connection reset with no close_notify first
     * (a client that closes TLS with close_notify has half-closed, as with a FIN).
     */
    @Test
    void aTlsClientThatResetsWhileItsRequestWaitsFreesTheUpstreamConnection() throws Exception {
        TestCertificates ca = TestCertificates.authority("sluice test CA");
        TestCertificates.Issued server = ca.server(TestCertificates.KeyType.EC, "gateway.test");
        TlsConfig tls = TlsConfig.of(new CertificateFiles(
                server.writeCertificate(dir.resolve("server.pem")), server.writeKey(dir.resolve("server-key.pem"))));
        try (TestGateway gw = routes().tls(tls).start();
                Socket plain = new Socket()) {
            int before = holding.released();
            int heads = holding.heads();
            plain.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), gw.port()), 10_000);
            SSLSocket client = (SSLSocket) ca.clientContext(Optional.empty())
                    .getSocketFactory()
                    .createSocket(plain, "127.0.0.1", gw.port(), false); // its close leaves the socket open
            client.startHandshake();
            client.getOutputStream()
                    .write(("GET /p/slow HTTP/1.1\r\nHost: " + gw.authority() + "\r\n\r\n")
                            .getBytes(StandardCharsets.ISO_8859_1));
            client.getOutputStream().flush();
            Await.until(NOTICED, () -> holding.heads() > heads, "the request reached the upstream");
            reset(plain); // the TCP socket's close: a reset, no TLS alert before it
            plain.close();
            Await.until(NOTICED, () -> holding.released() > before, "the upstream connection let go");
        }
    }

    @Test
    void aClientThatResetsAfterItsWholeBodyWhileItsRequestWaitsFreesTheUpstreamConnection() throws Exception {
        try (TestGateway gw = routes().start()) {
            int before = holding.released();
            int heads = holding.heads();
            try (Socket client = request(gw, "POST /p/slow HTTP/1.1\r\nContent-Length: 5", "hello")) {
                Await.until(NOTICED, () -> holding.heads() > heads, "the request reached the upstream");
                reset(client);
            }
            Await.until(NOTICED, () -> holding.released() > before, "the upstream connection let go");
        }
    }

    /**
     * What a watch for clients that leave must not take for one: a client that half-closes after its
     * request (a FIN), and bytes of a pipelined request arriving while the first waits. Both requests
     * wait long enough on their upstream for a watch to look at the connection.
     */
    @Test
    void aHalfCloseOrAPipelinedRequestBehindAWaitingOneIsNotAClientLeaving() throws Exception {
        try (TestGateway gw = routes().start()) {
            try (Socket client = request(gw, "GET /app/json/10?delay=600 HTTP/1.1")) {
                client.setSoTimeout(20_000);
                client.shutdownOutput(); // FIN: it still wants its answer
                String answer = new String(client.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
                assertThat(answer).startsWith("HTTP/1.1 200 ");
                assertThat(answer).endsWith(new String(GeneratedBody.json(10).bytes(), StandardCharsets.ISO_8859_1));
            }
            try (Socket client = request(gw, "GET /app/json/11?delay=600 HTTP/1.1")) {
                client.setSoTimeout(20_000);
                Thread.sleep(300); // pacing only: the second request arrives while the first waits
                client.getOutputStream()
                        .write(("GET /app/json/12 HTTP/1.1\r\nHost: " + gw.authority()
                                        + "\r\nConnection: close\r\n\r\n")
                                .getBytes(StandardCharsets.ISO_8859_1));
                String answers = new String(client.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
                assertThat(answers.split("HTTP/1.1 200 ", -1)).as(answers).hasSize(3);
                assertThat(answers).endsWith(new String(GeneratedBody.json(12).bytes(), StandardCharsets.ISO_8859_1));
            }
        }
    }

    @Test
    void aClientThatResetsWhileItsCompositionWaitsFreesEveryPartsUpstreamCall() throws Exception {
        try (TestGateway gw = routes().start()) {
            int released = holding.released();
            int resets = h2c.stallsReset();
            int heads = holding.heads();
            int stalls = h2c.stalls();
            try (Socket client = request(gw, "GET /c HTTP/1.1")) {
                Await.until(
                        NOTICED,
                        () -> holding.heads() >= heads + 2 && h2c.stalls() > stalls,
                        "every part reached its upstream");
                reset(client);
            }
            Await.until(NOTICED, () -> holding.released() >= released + 2, "both HTTP/1.1 parts' connections let go");
            Await.until(NOTICED, () -> h2c.stallsReset() > resets, "the h2c part's stream reset");
        }
    }

    @Test
    void aClientThatResetsWhileItsRequestWaitsOnAnH2cUpstreamResetsTheStream() throws Exception {
        try (TestGateway gw = routes().start()) {
            int resets = h2c.stallsReset();
            int stalls = h2c.stalls();
            try (Socket client = request(gw, "GET /h2/stall HTTP/1.1")) {
                Await.until(NOTICED, () -> h2c.stalls() > stalls, "the request reached the upstream");
                reset(client);
            }
            Await.until(NOTICED, () -> h2c.stallsReset() > resets, "the upstream stream reset");
        }
    }

    @Test
    void anH2ClientThatResetsItsStreamsFreesTheirUpstreamCalls() throws Exception {
        Ended ended = new Ended();
        try (LogCapture log = LogCapture.start();
                TestGateway gw = routes().observer(ended).start();
                H2Wire wire = H2Wire.connect(gw.port())) {
            int released = holding.released();
            int heads = holding.heads();
            int resets = h2c.stallsReset();
            int stalls = h2c.stalls();
            wire.get(1, gw.authority(), "/p/slow");
            wire.get(3, gw.authority(), "/h2/stall");
            wire.flush();
            Await.until(
                    NOTICED,
                    () -> holding.heads() > heads && h2c.stalls() > stalls,
                    "both requests reached their upstreams");
            wire.reset(1);
            wire.reset(3);
            wire.flush();
            Await.until(NOTICED, () -> holding.released() > released, "the HTTP/1.1 upstream connection let go");
            Await.until(NOTICED, () -> h2c.stallsReset() > resets, "the upstream stream reset");
            Await.until(NOTICED, () -> ended.count() >= 2, "both exchanges ended");
            assertQuiet(log);
        }
    }

    @Test
    void anH2ClientThatResetsItsConnectionFreesEveryStreamsUpstreamCall() throws Exception {
        try (TestGateway gw = routes().start()) {
            int released = holding.released();
            int heads = holding.heads();
            int resets = h2c.stallsReset();
            int stalls = h2c.stalls();
            H2Wire wire = H2Wire.connect(gw.port());
            wire.get(1, gw.authority(), "/p/slow");
            wire.get(3, gw.authority(), "/h2/stall");
            wire.get(5, gw.authority(), "/c");
            wire.flush();
            Await.until(
                    NOTICED,
                    () -> holding.heads() >= heads + 3 && h2c.stalls() >= stalls + 2,
                    "every request reached its upstreams");
            wire.abort();
            Await.until(NOTICED, () -> holding.released() >= released + 3, "every HTTP/1.1 upstream connection let go");
            Await.until(NOTICED, () -> h2c.stallsReset() >= resets + 2, "every upstream stream reset");
        }
    }

    /** A client that left is no fault of the gateway's: not a line at WARN or above, no stack trace. */
    private static void assertQuiet(LogCapture log) {
        assertThat(log.events())
                .filteredOn(e -> e.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.WARN)
                        || e.getThrowableProxy() != null)
                .extracting(e -> e.getLoggerName() + ": " + e.getFormattedMessage())
                .as("what the gateway logged of the exchanges whose client left")
                .isEmpty();
    }

    /** Counts the exchanges that ended, as the observer hears of them. */
    private static final class Ended implements dev.sluice.observe.GatewayObserver {
        private final java.util.concurrent.atomic.AtomicInteger count = new java.util.concurrent.atomic.AtomicInteger();

        @Override
        public void exchange(dev.sluice.observe.ExchangeEvent event) {
            count.incrementAndGet();
        }

        int count() {
            return count.get();
        }
    }

    private static Socket request(TestGateway gw, String requestLine) throws IOException {
        return request(gw, requestLine, "");
    }

    /** Connects and sends {@code head} (its Host added) and {@code body}. */
    private static Socket request(TestGateway gw, String head, String body) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), gw.port()), 10_000);
        socket.getOutputStream()
                .write((head + "\r\nHost: " + gw.authority() + "\r\n\r\n" + body)
                        .getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
        return socket;
    }

    /** Leaves as a client killed or timed out does on a busy socket: a reset, not a half-close. */
    private static void reset(Socket socket) throws IOException {
        socket.setSoLinger(true, 0);
    }
}
