package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.EngineMode;
import dev.sluice.demo.DemoConfig;
import dev.sluice.demo.DemoUpstreams;
import dev.sluice.engine.Engine;
import dev.sluice.observe.ExchangeEvent;
import dev.sluice.observe.GatewayObserver;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TrainingTest {

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
