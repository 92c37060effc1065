package dev.sluice.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.engine.RunningGateway;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PoolRetirementTest {

    private final List<String> done = new ArrayList<>();
    private final List<Runnable> due = new ArrayList<>();
    private final List<Duration> delays = new ArrayList<>();
    private final PoolRetirement<String> retirement = new PoolRetirement<>(
            pool -> done.add("drain " + pool), pool -> done.add("close " + pool), (task, delay) -> {
                due.add(task);
                delays.add(delay);
            });

    @Test
    void aRetiredPoolDrainsAtOnceAndClosesAfterTheRetirement() {
        retirement.retire(List.of("a", "b"));
        assertThat(done).containsExactly("drain a", "drain b");
        assertThat(delays).containsOnly(RunningGateway.RETIRE_AFTER);
        assertThat(retirement.retiring()).isEqualTo(2);
        due.getFirst().run();
        assertThat(done).containsExactly("drain a", "drain b", "close a");
        assertThat(retirement.retiring()).isEqualTo(1);
    }

    @Test
    void theGatewayClosingClosesEveryRetiringPoolOnceAndTheTimerThenDoesNothing() {
        retirement.retire(List.of("a"));
        retirement.closeAll();
        due.forEach(Runnable::run);
        retirement.closeAll();
        assertThat(done).containsExactly("drain a", "close a");
        assertThat(retirement.retiring()).isZero();
    }
}
