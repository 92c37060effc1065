package dev.sluice.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.EngineMode;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The streaming proof: a gateway in a child JVM with a 64 MB heap relays a 200 MB body and a 3 x 20
 * MB composition, to a fast and to a slow reader, without running out of memory. A gateway that held
 * a body whole, or read ahead of a slow client without bound, would die here.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
public abstract class StreamingContract extends ContractFixture {

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

    private ChildGateway child;

    @BeforeEach
    void startChild() {
        child = ChildGateway.start(mode(), transport(), upstream.url());
    }

    @AfterEach
    void stopChild() {
        if (child != null) {
            child.close();
        }
    }

    private void assertChildAlive() {
        assertThat(child.isAlive())
                .as("the 64 MB gateway survived; stderr:%n%s", child.stderr())
                .isTrue();
        assertThat(child.stderr()).doesNotContain("OutOfMemoryError");
    }

    private void assertWholeBigBody(WireResponse response) {
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.complete()).as("%s", response).isTrue();
        assertThat(response.length()).isEqualTo(GatewayProcess.PROXY_BYTES);
        assertThat(response.sha256())
                .isEqualTo(GeneratedBody.binary(GatewayProcess.PROXY_BYTES).sha256());
    }

    private void assertWholeComposition(WireResponse response) {
        Composed composed = Composed.of(response);
        List<String> wireOrder = composed.keys().subList(0, composed.keys().size() - 1);
        assertThat(wireOrder).containsExactlyInAnyOrder("a", "b", "c");
        byte[] part = GeneratedBody.json(GatewayProcess.PART_BYTES).bytes();
        List<Map.Entry<String, byte[]>> expected = new ArrayList<>();
        for (String name : wireOrder) {
            expected.add(Map.entry(name, part));
        }
        composed.assertSpliced(expected, List.of("a", "b", "c"));
    }

    @Test
    void aThousandOpenConnectionsFitInASixtyFourMegabyteGateway() throws Exception {
        // every client connection is open at once, waiting on a slow upstream: per-connection memory
        // (buffers, parser state, caches) times 1,000 must fit in the heap
        int clients = 1_000;
        List<Future<List<WireResponse>>> connections = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < clients; i++) {
                // two requests on one kept-alive connection, the second slow: a server's per-connection
                // state is all there by then
                List<WireRequest> requests = List.of(
                        WireRequest.get("/any/bytes/100?n=" + i), WireRequest.get("/any/bytes/100?delay=500&n=" + i));
                connections.add(threads.submit(
                        () -> WireClient.to(child.port()).timeout(READ_TIMEOUT).sendAll(requests)));
            }
            for (var connection : connections) {
                for (WireResponse response : connection.get()) {
                    assertThat(response.status()).as("%s", response).isEqualTo(200);
                    assertThat(response.length()).isEqualTo(100);
                }
            }
        }
        assertChildAlive();
    }

    /**
     * Clients that ask for a 200 MB body and never read it must not make the gateway pull the body
     * into its memory: reads from the upstream stop when the client stops reading, so a gateway with a
     * 64 MB heap and 64 MB of direct memory holds them all and keeps serving everyone else.
     */
    @Test
    void clientsThatNeverReadABigBodyCannotExhaustTheGateway() throws Exception {
        // The platform mode's pool (200 threads) is its bound by design: each never-reading client
        // holds a thread, so it gets fewer of them, leaving threads for the others.
        int clients = mode() == EngineMode.PLATFORM ? 100 : 200;
        List<Socket> stalled = new ArrayList<>();
        try {
            for (int i = 0; i < clients; i++) {
                Socket socket = new Socket();
                stalled.add(socket);
                socket.setReceiveBufferSize(16 * 1024); // the kernel holds little for it either
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), child.port()), 10_000);
                socket.setSoTimeout((int) READ_TIMEOUT.toMillis());
                socket.getOutputStream()
                        .write(("GET /any/bytes/" + (200L << 20) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                                .getBytes(StandardCharsets.ISO_8859_1));
            }
            for (Socket socket : stalled) { // every body is under way: its head came; then no more is read
                assertThat(readHead(socket.getInputStream())).startsWith("HTTP/1.1 200 ");
            }
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            int served = 0;
            while (System.nanoTime() < until && served < 10_000) { // everyone else, meanwhile
                WireResponse response =
                        WireClient.to(child.port()).timeout(READ_TIMEOUT).get("/any/json/1000");
                assertThat(response.status()).as("%s", response).isEqualTo(200);
                assertThat(response.complete()).isTrue();
                served++;
            }
            assertChildAlive();
            long resident = child.residentBytes().orElse(0);
            System.out.printf(
                    "%s on %s: %d never-reading clients, %d other requests served meanwhile, child RSS %d MiB%n",
                    mode().key(), transport().key(), clients, served, resident >> 20);
            assertThat(resident)
                    .as("resident memory with %d stalled 200 MB bodies (64 MB heap, 64 MB direct)", clients)
                    .isLessThan(512L << 20);
        } finally {
            for (Socket socket : stalled) {
                socket.close();
            }
        }
        // When they leave, everything is as before.
        assertWholeBigBody(
                WireClient.to(child.port()).timeout(READ_TIMEOUT).keepLimit(0).get("/big"));
        assertChildAlive();
    }

    /** The response head, read a byte at a time so that no body byte is taken off the socket. */
    private static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        int matched = 0;
        for (int c = in.read(); c >= 0; c = in.read()) {
            head.append((char) c);
            matched = (c == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (c == '\r' ? 1 : 0);
            if (matched == 4) {
                return head.toString();
            }
        }
        return head.toString();
    }

    @Test
    void twoHundredMegabytesStreamThroughASixtyFourMegabyteGateway() {
        WireResponse response =
                WireClient.to(child.port()).timeout(READ_TIMEOUT).keepLimit(0).get("/big");
        assertWholeBigBody(response);
        assertChildAlive();
    }

    @Test
    void threeTwentyMegabytePartsComposeInASixtyFourMegabyteGateway() {
        WireResponse response = WireClient.to(child.port())
                .timeout(READ_TIMEOUT)
                .keepLimit(80L << 20)
                .get("/compose");
        assertWholeComposition(response);
        assertChildAlive();
    }

    @Test
    void slowReaderGetsTheWholeBigBodyThroughBackpressure() {
        WireResponse response = WireClient.to(child.port())
                .timeout(READ_TIMEOUT)
                .keepLimit(0)
                .slowReader(64 * 1024, Duration.ofMillis(1))
                .get("/big");
        assertWholeBigBody(response);
        assertChildAlive();
    }

    @Test
    void slowReaderGetsTheWholeCompositionThroughBackpressure() {
        WireResponse response = WireClient.to(child.port())
                .timeout(READ_TIMEOUT)
                .keepLimit(80L << 20)
                .slowReader(64 * 1024, Duration.ofMillis(1))
                .get("/compose");
        assertWholeComposition(response);
        assertChildAlive();
    }
}
