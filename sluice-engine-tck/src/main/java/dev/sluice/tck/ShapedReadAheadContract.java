package dev.sluice.tck;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a shaped part holds while it waits for its turn is what its shaper kept, not what it read
 * (docs/ENGINE-CONTRACT.md "Read-ahead budget"): a part's read-ahead and the gateway's budget count
 * the kept bytes, so a selection that keeps a few bytes of each read lets the part read its whole
 * answer ahead. Eight compositions whose second part (50 MB, 15 KB of it kept) is read past its kept items
 * (10 MB) while the first waits, go through a gateway with a 64 MB heap and 64 MB of direct memory. The reactive engine
 * kept each read's shaped bytes in a buffer the size of the read (a read is a few KB here: its whole 10 MB of items per part, 80 MB), and died of it.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
public abstract class ShapedReadAheadContract extends ContractFixture {

    private static final int COMPOSITIONS = 8;
    private static final int ITEMS = 1_900; // 5 KB each, 8 bytes of each kept: 15 KB, under the read-ahead
    private static final int TAIL_MB = 40; // kept by none: more than loopback's socket buffers hide
    private static final Duration WITHIN = Duration.ofSeconds(120);

    @Test
    void compositionsWaitingWithLargePartsShapedSmallHoldWhatWasKept() throws Exception {
        CountDownLatch secondsRead = new CountDownLatch(COMPOSITIONS); // every second part's answer written whole
        HttpServer up = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        up.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        up.createContext("/second", exchange -> {
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                writeItems(out);
            } catch (IOException e) {
                // the gateway went away: the test fails on its answer
            }
            secondsRead.countDown(); // the gateway read it (past the socket buffers) while the first part waited
        });
        up.createContext("/first", exchange -> {
            try {
                // the first parts answer once every second part is held: all ten at once
                secondsRead.await(WITHIN.toSeconds(), TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] body = "{\"first\":true}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        up.start();
        Path config = Files.createTempFile("sluice-shaped-read-ahead-", ".yaml");
        Files.writeString(config, """
                server: { host: 127.0.0.1, port: 0, engine: %s, transport: %s }
                upstreams:
                  up: { url: "http://127.0.0.1:%d", max-connections: 64 }
                routes:
                  - id: shaped
                    match: { path: /shaped }
                    compose:
                      order: declared
                      timeout: 150s
                      parts:
                        first: { upstream: up, path: /first }
                        second: { upstream: up, path: /second, select: ["items[*].i"] }
                logging: { level: warn }
                """.formatted(
                        mode().key(), transport().key(), up.getAddress().getPort()));
        try (ChildGateway child = ChildGateway.start(config);
                ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<WireResponse>> answers = new ArrayList<>();
            for (int i = 0; i < COMPOSITIONS; i++) {
                answers.add(clients.submit(
                        () -> WireClient.to(child.port()).timeout(WITHIN).get("/shaped")));
            }
            StringBuilder ids = new StringBuilder("{\"items\":[");
            for (int i = 0; i < ITEMS; i++) {
                ids.append(i == 0 ? "" : ",").append("{\"i\":0}");
            }
            byte[] kept = ids.append("]}").toString().getBytes(StandardCharsets.UTF_8);
            for (Future<WireResponse> answer : answers) {
                WireResponse response;
                try {
                    response = answer.get(WITHIN.toSeconds(), TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new AssertionError(
                            "a composition's answer: " + e.getCause() + " (child alive: " + child.isAlive()
                                    + "); stderr:\n" + child.stderr(),
                            e);
                }
                Composed.of(response)
                        .assertSpliced(
                                List.of(
                                        Map.entry("first", "{\"first\":true}".getBytes(StandardCharsets.UTF_8)),
                                        Map.entry("second", kept)),
                                List.of("first", "second"));
            }
            assertThat(child.isAlive())
                    .as("the 64 MB gateway survived; stderr:%n%s", child.stderr())
                    .isTrue();
            for (String output : List.of(child.stderr(), child.stdout())) {
                assertThat(output).doesNotContain("OutOfMemoryError", "OutOfDirectMemoryError", "Exception in thread");
            }
        } finally {
            up.stop(0);
            Files.deleteIfExists(config);
        }
    }

    /**
     * {@code {"items":[{"i":0,"pad":"..."},...],"tail":"..."}}: 5 KB an item, of which the selection
     * keeps eight bytes, then a {@value #TAIL_MB} MB member it does not keep. The upstream has
     * written it all only once the gateway has read past the items: the socket buffers between them hold
     * less than the tail.
     */
    private static void writeItems(OutputStream out) throws IOException {
        byte[] pad = ("\"" + "abcdefghij".repeat(500) + "\"").getBytes(StandardCharsets.US_ASCII);
        ByteArrayOutputStream batch = new ByteArrayOutputStream(70_000);
        batch.writeBytes(ascii("{\"items\":["));
        for (int i = 0; i < ITEMS; i++) {
            batch.writeBytes(ascii((i == 0 ? "" : ",") + "{\"i\":0,\"pad\":"));
            batch.writeBytes(pad);
            batch.writeBytes(ascii("}"));
            if (batch.size() > 64_000) {
                batch.writeTo(out);
                batch.reset();
            }
        }
        batch.writeBytes(ascii("],\"tail\":\""));
        batch.writeTo(out);
        byte[] tail = "abcdefghij".repeat(6_400).getBytes(StandardCharsets.US_ASCII); // 64,000 bytes
        for (long written = 0; written < ((long) TAIL_MB << 20); written += tail.length) {
            out.write(tail);
        }
        out.write(ascii("\"}"));
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
