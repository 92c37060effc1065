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

    /**
     * How long the in-process test's stalled compositions live: long enough to measure them, short
     * enough to see them end. A gateway learns that a client it neither reads from nor can write to
     * has gone only when the composition's timeout or the connection's idle-timeout ends it.
     */
    private static final Duration STALL_TIMEOUT = Duration.ofSeconds(6);

    private ChildGateway child; // the test's that forks one

    @AfterEach
    void stopChild() {
        if (child != null) {
            child.close();
            child = null;
        }
    }

    private void assertChildAlive() {
        assertThat(child.isAlive())
                .as("the 64 MB gateway survived; stderr:%n%s%nlog:%n%s", child.stderr(), child.stdout())
                .isTrue();
        for (String output : List.of(child.stderr(), child.stdout())) { // an event loop that died says so here
            assertThat(output).doesNotContain("OutOfMemoryError", "OutOfDirectMemoryError", "Exception in thread");
        }
    }

    @Test
    void clientsThatNeverReadACompositionCannotExhaustASixtyFourMegabyteGateway() throws Exception {
        child = ChildGateway.start(mode(), transport(), upstream.url());
        List<Socket> stalled = new ArrayList<>();
        try {
            for (int i = 0; i < CLIENTS; i++) {
                stalled.add(stalledClient(child.port(), "/compose-big"));
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

    /**
     * What the budget holds, seen from inside: clients that never read hold at most the budget between
     * them (the rest of their compositions wait, their upstreams unread), and when they leave every
     * byte comes back, none left taken by a part, a write or a waiting line.
     */
    @Test
    void theBudgetBoundsWhatStalledCompositionsHoldAndIsWholeAgainWhenTheyLeave() throws Exception {
        long capacity = dev.sluice.config.ServerLimits.MIN_READ_AHEAD; // 256 KiB, spent by a few compositions
        int clients = 30;
        try (TestGateway gateway = gateway()
                .limits(dev.sluice.config.ServerLimits.defaults().withMaxReadAhead(capacity))
                .route(
                        "stall",
                        Routes.on("/stall"),
                        Routes.compose()
                                .timeout(STALL_TIMEOUT)
                                .part("small", APP, "/json/1000")
                                .part("big", APP, "/json/" + (200L << 20) + "?chunked=1"))
                .route(
                        "small",
                        Routes.on("/small"),
                        Routes.compose()
                                .timeout(Duration.ofSeconds(1))
                                .part("a", APP, "/json/1000")
                                .part("b", APP, "/json/3000"))
                .start()) {
            dev.sluice.compose.ReadAheadBudget budget = gateway.readAheadBudget();
            assertThat(budget.capacity()).isEqualTo(capacity);
            List<Socket> stalled = new ArrayList<>();
            try {
                for (int i = 0; i < clients; i++) {
                    stalled.add(stalledClient(gateway.port(), "/stall"));
                }
                // they read ahead until the budget is spent, and never past it; the compositions that find
                // it spent wait, unanswered, until their timeout
                long most = 0;
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                while (System.nanoTime() < until) {
                    long held = budget.held();
                    most = Math.max(most, held);
                    assertThat(held).as("%s", budget).isLessThanOrEqualTo(capacity);
                    Thread.sleep(10);
                }
                System.out.printf(
                        "%s on %s: %d clients never reading: at most %d of %d budget bytes held, %d parts waiting%n",
                        mode().key(), transport().key(), clients, most, capacity, budget.waiting());
                assertThat(most)
                        .as("stalled compositions spend the budget: %s", budget)
                        .isGreaterThan(capacity / 2);
                // a composition that finds the budget spent waits, within its timeout (1 s): it is
                // answered in time, its parts null if the budget never came back for them
                long start = System.nanoTime();
                WireResponse meanwhile =
                        WireClient.to(gateway.port()).timeout(PROMPTLY).get("/small");
                assertThat(meanwhile.status()).as("%s", meanwhile).isEqualTo(200);
                assertThat(meanwhile.complete()).as("%s", meanwhile).isTrue();
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
                assertThat(budget.held()).isLessThanOrEqualTo(capacity);
            } finally {
                for (Socket socket : stalled) {
                    socket.close();
                }
            }
            // every composition ends (its client gone, its timeout passed, its response aborted), and
            // each gives back all it held: its parts' bytes, its writes, its shares, its place in line
            long until = System.nanoTime() + STALL_TIMEOUT.toNanos() + TimeUnit.SECONDS.toNanos(10);
            while ((budget.held() != 0 || budget.waiting() != 0) && System.nanoTime() < until) {
                Thread.sleep(20);
            }
            assertThat(budget.held())
                    .as("the budget is whole again once they left: %s", budget)
                    .isZero();
            assertThat(budget.waiting()).isZero();
            for (int i = 0; i < 10; i++) { // and compositions go on as before
                WireResponse small =
                        WireClient.to(gateway.port()).timeout(PROMPTLY).get("/small");
                assertThat(small.status()).as("%s", small).isEqualTo(200);
                assertThat(small.bodyText()).doesNotContain("\"error\"");
            }
            until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (budget.held() != 0 && System.nanoTime() < until) {
                Thread.sleep(20);
            }
            assertThat(budget.held()).as("%s", budget).isZero();
        }
    }

    /**
     * A part waiting for its answer holds little of the budget: four compositions of three parts each,
     * on the smallest budget (256 KiB), all reach their upstream at once. The upstream answers only
     * when all twelve part requests are in ({@code /rendezvous}, else {"met":false} after 5 s). In
     * reactive each waiting part took a whole socket read's 64 KiB and each composition a floor of two
     * more: one composition at a time fitted, the others waited for the first's answers, which never
     * came (seed 004's ceiling on {@code auto}'s budget: docs/MEASUREMENTS.md, session 28).
     */
    @Test
    void compositionsWaitingForTheirAnswersHoldLittleOfTheBudget() throws Exception {
        long capacity = dev.sluice.config.ServerLimits.MIN_READ_AHEAD;
        int compositions = 4;
        String meet = "/rendezvous/budget-" + mode().key() + "-" + transport().key() + "/" + (3 * compositions);
        try (TestGateway gateway = gateway()
                        .limits(dev.sluice.config.ServerLimits.defaults().withMaxReadAhead(capacity))
                        .route(
                                "meet",
                                Routes.on("/meet"),
                                Routes.compose()
                                        .timeout(Duration.ofSeconds(20))
                                        .part("a", APP, meet)
                                        .part("b", APP, meet)
                                        .part("c", APP, meet))
                        .start();
                java.util.concurrent.ExecutorService clients =
                        java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            List<java.util.concurrent.Future<WireResponse>> answers = new ArrayList<>();
            for (int i = 0; i < compositions; i++) {
                answers.add(clients.submit(() -> WireClient.to(gateway.port())
                        .timeout(Duration.ofSeconds(30))
                        .get("/meet")));
            }
            for (java.util.concurrent.Future<WireResponse> answer : answers) {
                WireResponse response = answer.get(60, TimeUnit.SECONDS);
                assertThat(response.status()).as("%s", response).isEqualTo(200);
                assertThat(response.complete()).as("%s", response).isTrue();
                assertThat(response.bodyText())
                        .as("every part met the others upstream: %s", gateway.readAheadBudget())
                        .doesNotContain("\"met\":false")
                        .contains("\"met\":true");
            }
        }
    }

    /** A client that asks for {@code target} and never reads past the response head; a small receive buffer. */
    private static Socket stalledClient(int port, String target) throws IOException {
        Socket socket = new Socket();
        socket.setReceiveBufferSize(8 * 1024); // the kernel holds little for it either
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
        socket.setSoTimeout(30_000);
        socket.getOutputStream()
                .write(("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
        return socket;
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
