package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.EngineMode;
import dev.sluice.demo.DemoConfig;
import dev.sluice.demo.DemoUpstreams;
import dev.sluice.engine.Engine;
import dev.sluice.observe.ExchangeEvent;
import dev.sluice.observe.GatewayObserver;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrainingTest {

    @TempDir
    Path dir;

    /** Two routes: one the gateway answers, one whose upstream refuses (a port nothing listens on). */
    private Path twoRoutes(String engine) throws Exception {
        int refused;
        try (ServerSocket socket = new ServerSocket(0)) {
            refused = socket.getLocalPort();
        }
        return Files.writeString(dir.resolve("gw.yaml"), """
          server: { host: 127.0.0.1, port: 18999, engine: %s }
          upstreams:
            orders: { url: "http://127.0.0.1:%d" }
          routes:
            - id: hello
              match: { path: /hello, methods: [GET] }
              respond: { status: 200, body: hi }
            - id: orders
              match: { path: "/orders/{id}/**", methods: [GET, POST], headers: { x-tenant: acme } }
              proxy: { upstream: orders }
          """.formatted(engine, refused));
    }

    @Test
    void trainingOnAFileAsksEachRouteWithEachOfItsMethodsEvenWhenItsUpstreamIsDown() throws Exception {
        for (EngineMode mode : List.of(EngineMode.REACTIVE, EngineMode.VIRTUAL)) {
            Map<String, AtomicInteger> answers = new ConcurrentHashMap<>();
            Map<Integer, Integer> statuses =
                    Training.runFile(dev.sluice.config.ConfigLoader.load(twoRoutes(mode.key())), 2, config -> {
                        assertThat(config.server().port()).isZero(); // never the file's port
                        return Engine.forMode(config.server().engine()).start(config, new GatewayObserver() {
                            @Override
                            public void exchange(ExchangeEvent event) {
                                answers.computeIfAbsent(
                                                event.route() + " " + event.method() + " " + event.status(),
                                                k -> new AtomicInteger())
                                        .incrementAndGet();
                            }
                        });
                    });
            assertThat(answers.keySet())
                    .as(mode.key())
                    .containsExactlyInAnyOrder("hello GET 200", "orders GET 502", "orders POST 502");
            assertThat(answers.values()).allSatisfy(count -> assertThat(count).hasValue(2));
            assertThat(statuses).containsExactly(Map.entry(200, 2), Map.entry(502, 4));
        }
    }

    @Test
    void theTrainCommandOnAFileExitsZeroAndSaysWhatItAsked() throws Exception {
        CliRunner.Result result =
                CliRunner.run("train", "-c", twoRoutes("virtual").toString(), "--engine", "reactive", "--rounds", "3");
        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out())
                .startsWith("trained reactive on ")
                .endsWith(": 3 rounds of 3 requests (3 × 200, 6 × 502);"
                        + " 5xx from upstreams that were not up train the error path\n");
    }

    @Test
    void everyEngineServesEveryPathOfTheRoundsFromTheDemo() throws Exception {
        List<EngineMode> started = new CopyOnWriteArrayList<>();
        Map<String, AtomicInteger> answers = new ConcurrentHashMap<>();
        try (DemoUpstreams upstreams = DemoUpstreams.start("127.0.0.1", 0)) {
            Training.run(DemoConfig.load(), upstreams.urls(), 3, config -> {
                EngineMode mode = config.server().engine();
                started.add(mode);
                return Engine.forMode(mode).start(config, new GatewayObserver() {
                    @Override
                    public void exchange(ExchangeEvent event) {
                        answers.computeIfAbsent(mode.key() + " " + event.status(), k -> new AtomicInteger())
                                .incrementAndGet();
                    }
                });
            });
        }
        assertThat(started).containsExactly(EngineMode.values());
        for (EngineMode mode : EngineMode.values()) { // three of the four paths answer 200, /nothing 404
            assertThat(answers.get(mode.key() + " 200")).as(mode.key()).hasValue(9);
            assertThat(answers.get(mode.key() + " 404")).as(mode.key()).hasValue(3);
        }
    }

    @Test
    void theTrainCommandSaysWhatItRan() {
        CliRunner.Result result = CliRunner.run("train", "--rounds", "2");
        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out())
                .isEqualTo(
                        "trained every engine: 2 rounds of /compose, /product-page/1001, /products/1001, /nothing\n");
    }
}
