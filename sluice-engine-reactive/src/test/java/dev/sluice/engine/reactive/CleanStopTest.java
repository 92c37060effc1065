package dev.sluice.engine.reactive;

import static dev.sluice.tck.Routes.on;
import static dev.sluice.tck.Routes.proxy;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.sluice.config.EngineMode;
import dev.sluice.tck.LogCapture;
import dev.sluice.tck.TestGateway;
import dev.sluice.tck.TestUpstream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A clean stop logs nothing but the gateway's own lines: started and stopped again and again, with
 * an idle upstream connection in its pool, a request in flight (its upstream still answering, its
 * read timer pending) and a client connection open, the reactive engine logs no WARN or ERROR
 * (Netty's "Can't invoke task later as EventLoop rejected it", logged when a channel closed on a loop
 * that had already stopped, came once in about six stops).
 */
@ExtendWith(LeakGuard.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CleanStopTest {

    @Test
    void twentyStopsWithRequestsInFlightLogNoWarning() throws Exception {
        try (TestUpstream app = TestUpstream.start();
                LogCapture log = LogCapture.start();
                HttpClient client = HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .build()) {
            for (int i = 0; i < 20; i++) {
                CompletableFuture<HttpResponse<Void>> slow;
                try (TestGateway gw = TestGateway.builder(EngineMode.REACTIVE)
                        .upstream("app", app.url())
                        .route("all", on("/**"), proxy("app"))
                        .shutdownGrace(Duration.ofMillis(i % 2 == 0 ? 1 : 50))
                        .start()) {
                    HttpResponse<Void> quick = client.send(
                            HttpRequest.newBuilder(gw.uri("/json/16")).build(), HttpResponse.BodyHandlers.discarding());
                    assertThat(quick.statusCode()).isEqualTo(200); // its upstream connection now idle in a pool
                    slow = client.sendAsync(
                            HttpRequest.newBuilder(gw.uri("/json/16?delay=" + (300 + 37 * i)))
                                    .build(),
                            HttpResponse.BodyHandlers.discarding());
                    Thread.sleep(20 + 7 * i); // the slow one reaches its upstream
                }
                slow.handle((r, e) -> null).get(10, TimeUnit.SECONDS);
            }
            assertQuiet(log);
        }
    }

    /**
     * The same with an h2c upstream whose connection is open and idle at the stop: its multiplexed
     * connections are Reactor Netty's pool's, and were not among the channels the stop closed before
     * the loops stopped, so io_uring's close of one was still under way when its loop stopped (Netty's
     * rejected task, with a stack trace, seen in the gRPC composition tests' output).
     */
    @Test
    void stopsWithAnIdleH2cConnectionLogNoWarning() throws Exception {
        try (dev.sluice.tck.H2cUpstream h2c = dev.sluice.tck.H2cUpstream.start();
                LogCapture log = LogCapture.start();
                HttpClient client = HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .build()) {
            for (int i = 0; i < 20; i++) {
                try (TestGateway gw = TestGateway.builder(EngineMode.REACTIVE)
                        .upstream(dev.sluice.tck.Routes.upstream("h2", h2c.url())
                                .protocol(dev.sluice.config.UpstreamProtocol.H2C))
                        .route("all", on("/**"), proxy("h2"))
                        .shutdownGrace(Duration.ofMillis(i % 2 == 0 ? 1 : 50))
                        .start()) {
                    HttpResponse<Void> quick = client.send(
                            HttpRequest.newBuilder(gw.uri("/json?100")).build(),
                            HttpResponse.BodyHandlers.discarding());
                    assertThat(quick.statusCode()).isEqualTo(200); // its h2c connection now open, idle
                }
            }
            assertQuiet(log);
        }
    }

    /**
     * The same with an upstream known by a host name: the gateway's DNS resolvers hold a UDP channel
     * on each loop that connected, with a read armed. Their closes are awaited before the loops stop
     * (they were given a fixed 100 ms before), and no buffer of theirs is left behind.
     */
    @Test
    void stopsWithAnUpstreamKnownByNameLogNoWarningAndLeakNothing() throws Exception {
        java.net.InetAddress local = java.net.InetAddress.getByName("127.0.0.1");
        io.netty.resolver.HostsFileEntriesResolver hosts = (host, types) -> host.equals("shop.test") ? local : null;
        try (TestUpstream app = TestUpstream.start();
                LogCapture log = LogCapture.start()) {
            dev.sluice.config.GatewayConfig config = TestGateway.builder(EngineMode.REACTIVE)
                    .upstream("shop", java.net.URI.create("http://shop.test:" + app.port()))
                    .route("all", on("/**"), proxy("shop"))
                    .config();
            for (int i = 0; i < 20; i++) {
                try (ReactiveGateway gw =
                        ReactiveGateway.start(config, dev.sluice.observe.GatewayObserver.NONE, hosts)) {
                    assertThat(dev.sluice.tck.WireClient.to(gw.port())
                                    .get("/json/16")
                                    .status())
                            .isEqualTo(200);
                }
            }
            assertQuiet(log);
            assertThat(LeakGuard.collect()).as("ByteBuf leak reports").isEmpty();
        }
    }

    /** No WARN or ERROR line was logged, a late task on a stopped loop included (it logs after the stop returned). */
    private static void assertQuiet(LogCapture log) throws InterruptedException {
        Thread.sleep(200);
        List<String> loud = log.events().stream()
                .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .map(CleanStopTest::describe)
                .toList();
        assertThat(loud).as("WARN and ERROR lines over 20 stops").isEmpty();
    }

    private static String describe(ILoggingEvent e) {
        return e.getLevel() + " " + e.getLoggerName() + " " + e.getFormattedMessage();
    }
}
