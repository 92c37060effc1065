package dev.sluice.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.compose.ReadAheadBudget;
import dev.sluice.config.ComposeTarget;
import dev.sluice.config.ServerLimits;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The read-ahead budget never stops compositions whose clients read (docs/ENGINE-CONTRACT.md
 * "Read-ahead budget"): many compositions of parts larger than a read's share, through the smallest
 * budget a configuration may set, all complete, and the budget is whole again after. Before
 * {@link dev.sluice.compose.CompositionBudget} the reactive engine's parts each took a read's share
 * from the shared line before every read: the budget ended up held by parts waiting for their turn
 * while the part each composition relayed waited in the line behind them, and nothing completed
 * until the compositions' timeouts.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
public abstract class ReadAheadLivenessContract extends ContractFixture {

    private static final int CLIENTS = 120;
    private static final int[] BODIES = {150_000, 120_000, 180_000}; // each larger than a read's share (64 KiB)
    /** /late, in declared order: the last part answers first (the others wait 100-200 ms) and is the largest. */
    private static final int[] LATE_BODIES = {100_000, 120_000, 240_000};
    /**
     * The route's timeout: a composition stuck on the budget ends with null parts when it passes (reactive
     * took 10 s for /late on a busy machine).
     */
    private static final Duration ROUTE_TIMEOUT = Duration.ofSeconds(60);

    private TestGateway gateway(long budget) {
        return gateway()
                .limits(ServerLimits.defaults().withMaxReadAhead(budget))
                .route(
                        "big",
                        Routes.on("/big"),
                        Routes.compose()
                                .timeout(ROUTE_TIMEOUT)
                                .part("a", APP, "/json/" + BODIES[0])
                                .part("b", APP, "/json/" + BODIES[1])
                                .part("c", APP, "/json/" + BODIES[2]))
                .route(
                        "late",
                        Routes.on("/late"),
                        Routes.compose()
                                .order(ComposeTarget.Order.DECLARED)
                                .timeout(ROUTE_TIMEOUT)
                                .part("a", APP, "/json/" + LATE_BODIES[0] + "?delay=200")
                                .part("b", APP, "/json/" + LATE_BODIES[1] + "?delay=100")
                                .part("c", APP, "/json/" + LATE_BODIES[2]))
                .route(
                        "stall",
                        Routes.on("/stall"),
                        Routes.compose()
                                .timeout(ROUTE_TIMEOUT)
                                .part("small", APP, "/json/1000")
                                .part("huge", APP, "/json/" + (200L << 20) + "?chunked=1"))
                .start();
    }

    /**
     * {@code clients} at once each ask for /big and read all of it: every one is whole, before the
     * route's timeout, and the budget never holds more than {@code bound} meanwhile.
     */
    private static void allComplete(int port, int clients, ReadAheadBudget budget, long bound) throws Exception {
        allComplete(port, "/big", BODIES, clients, budget, bound);
    }

    private static void allComplete(
            int port, String path, int[] bodies, int clients, ReadAheadBudget budget, long bound) throws Exception {
        long start = System.nanoTime();
        List<Future<WireResponse>> answers = new ArrayList<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < clients; i++) {
                answers.add(pool.submit(() -> WireClient.to(port)
                        .timeout(ROUTE_TIMEOUT.plusSeconds(10))
                        .get(path)));
            }
            for (Future<WireResponse> answer : answers) { // the budget sampled while they run
                while (!answer.isDone()) {
                    assertThat(budget.held()).as("%s", budget).isLessThanOrEqualTo(bound);
                    Thread.sleep(5);
                }
            }
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        for (Future<WireResponse> answer : answers) {
            WireResponse response = answer.get();
            assertThat(response.status()).as("%s", response).isEqualTo(200);
            assertThat(response.complete()).as("%s", response).isTrue();
            assertThat(response.bodyText())
                    .as("no part ended by the timeout: %s", budget)
                    .doesNotContain("\"error\"");
            assertThat(response.length()).isGreaterThan(bodies[0] + bodies[1] + bodies[2]);
        }
        assertThat(took).as("%d compositions through %s", clients, budget).isLessThan(ROUTE_TIMEOUT);
        System.out.printf("%d compositions of %s through %s took %d ms%n", clients, path, budget, took.toMillis());
    }

    private static void wholeAgain(ReadAheadBudget budget) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); // the last writes' completions
        while ((budget.held() != 0 || budget.waiting() != 0) && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        assertThat(budget.held()).as("the budget is whole again: %s", budget).isZero();
        assertThat(budget.waiting()).isZero();
    }

    @Test
    void manyCompositionsOfPartsLargerThanAReadShareAllCompleteThroughTheSmallestBudget() throws Exception {
        try (TestGateway gateway = gateway(ServerLimits.MIN_READ_AHEAD)) {
            ReadAheadBudget budget = gateway.readAheadBudget();
            allComplete(gateway.port(), CLIENTS, budget, budget.capacity());
            wholeAgain(budget);
        }
    }

    /**
     * In declared order, the part each composition writes first is the last to answer: the parts after
     * it answer first and would take the budget (the blocking engines took every part's ring from the
     * budget's line, so the rings went to later parts of many compositions while the first parts
     * waited behind them, until the route's timeout). Under {@link dev.sluice.compose.CompositionBudget}
     * only the part the plan waits on draws on its composition's floor; the others read only what the
     * pool gives without waiting.
     */
    @Test
    void inDeclaredOrderCompositionsWhoseLaterPartsAnswerFirstAllCompleteThroughTheSmallestBudget() throws Exception {
        try (TestGateway gateway = gateway(ServerLimits.MIN_READ_AHEAD)) {
            ReadAheadBudget budget = gateway.readAheadBudget();
            allComplete(gateway.port(), "/late", LATE_BODIES, CLIENTS, budget, budget.capacity());
            wholeAgain(budget);
        }
    }

    /**
     * Clients that never read hold what their compositions read ahead (at most each part's read-ahead,
     * a read's share, and what the connection buffers), never more than the budget between them; the
     * compositions of clients that read still complete, and the budget is whole once all leave.
     */
    @Test
    void compositionsWhoseClientsReadCompleteBesideClientsThatNeverRead() throws Exception {
        long capacity = 4L << 20;
        try (TestGateway gateway = gateway(capacity)) {
            ReadAheadBudget budget = gateway.readAheadBudget();
            List<Socket> stalled = new ArrayList<>();
            try {
                for (int i = 0; i < 4; i++) {
                    stalled.add(stalledClient(gateway.port(), "/stall"));
                }
                for (Socket socket : stalled) { // their heads: every stalled composition is under way
                    assertThat(socket.getInputStream().read()).isEqualTo('H');
                }
                allComplete(gateway.port(), CLIENTS, budget, capacity); // never past it, stalled ones included
            } finally {
                for (Socket socket : stalled) {
                    socket.close();
                }
            }
            wholeAgain(budget);
        }
    }

    /** A client that asks for {@code target} and never reads past the first byte; a small receive buffer. */
    private static Socket stalledClient(int port, String target) throws IOException {
        Socket socket = new Socket();
        socket.setReceiveBufferSize(8 * 1024);
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
        socket.setSoTimeout(30_000);
        socket.getOutputStream()
                .write(("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
        return socket;
    }
}
