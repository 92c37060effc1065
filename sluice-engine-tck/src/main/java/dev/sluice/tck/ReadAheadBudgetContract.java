package dev.sluice.tck;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The gateway-wide read-ahead budget ({@code server.limits.max-read-ahead}, docs/ENGINE-CONTRACT.md
 * "Read-ahead budget"): a hundred clients that ask for a composition with a 200 MB part and never read
 * it hold at most the budget between them, so a gateway with 64 MB of heap and 64 MB of direct
 * memory lives on, answers everyone else, and once they leave composes as before. Per request the
 * read-ahead was bounded already; without a bound across requests the reactive engine ran out of
 * direct memory here and its event loops died.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
public abstract class ReadAheadBudgetContract extends ContractFixture {

    private static final int CLIENTS = 100;
    private static final Duration PROMPTLY = Duration.ofSeconds(10);

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
                .as("the 64 MB gateway survived; stderr:%n%s%nlog:%n%s", child.stderr(), child.stdout())
                .isTrue();
        assertThat(child.stderr()).doesNotContain("OutOfMemoryError");
        assertThat(child.stdout()).doesNotContain("OutOfMemoryError");
    }

    @Test
    void clientsThatNeverReadACompositionHoldNoMoreThanTheBudget() throws Exception {
        List<Socket> stalled = new ArrayList<>();
        try {
            for (int i = 0; i < CLIENTS; i++) {
                Socket socket = new Socket();
                stalled.add(socket);
                socket.setReceiveBufferSize(8 * 1024); // the kernel holds little for it either
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), child.port()), 10_000);
                socket.setSoTimeout(30_000);
                socket.getOutputStream()
                        .write("GET /compose-big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                                .getBytes(StandardCharsets.ISO_8859_1));
            }
            for (Socket socket : stalled) { // every composition is under way; then nothing more is read
                String head;
                try {
                    head = readHead(socket.getInputStream());
                } catch (IOException e) {
                    throw new AssertionError(
                            "a stalled client's head: " + e + " (child alive: " + child.isAlive() + "); stderr:\n"
                                    + child.stderr() + "\nlog:\n" + child.stdout(),
                            e);
                }
                assertThat(head)
                        .as("a stalled client's head; stderr:%n%s", child.stderr())
                        .startsWith("HTTP/1.1 200 ");
            }
            // the stalled compositions read ahead as far as they may: give them time to fill
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            int served = 0;
            while (System.nanoTime() < until) {
                long start = System.nanoTime();
                WireResponse response =
                        WireClient.to(child.port()).timeout(PROMPTLY).get("/any/json/1000");
                assertThat(response.status())
                        .as("%s; stderr:%n%s", response, child.stderr())
                        .isEqualTo(200);
                assertThat(response.complete()).isTrue();
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(PROMPTLY);
                served++;
                Thread.sleep(50);
            }
            assertChildAlive();
            System.out.printf(
                    "%s on %s: %d clients never reading a 200 MB composition, %d other requests served meanwhile,"
                            + " child RSS %d MiB%n",
                    mode().key(),
                    transport().key(),
                    CLIENTS,
                    served,
                    child.residentBytes().orElse(0) >> 20);
        } finally {
            for (Socket socket : stalled) {
                socket.close();
            }
        }
        assertChildAlive();
        // When they leave, their read-ahead is back in the budget: compositions are served as before,
        // small ones at once and three 20 MB parts at full speed (a budget left short would stall them
        // until the composition's timeout)
        for (int i = 0; i < 20; i++) {
            WireResponse small = WireClient.to(child.port()).timeout(PROMPTLY).get("/compose-small");
            assertThat(small.status()).as("%s", small).isEqualTo(200);
            assertThat(small.complete()).isTrue();
            assertThat(small.bodyText()).doesNotContain("\"error\"");
        }
        WireResponse big = WireClient.to(child.port())
                .timeout(Duration.ofSeconds(30))
                .keepLimit(0)
                .get("/compose");
        assertThat(big.status()).as("%s", big).isEqualTo(200);
        assertThat(big.complete()).as("%s", big).isTrue();
        assertThat(big.length()).isGreaterThan(3 * GatewayProcess.PART_BYTES);
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
}
