package dev.sluice.compose;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.EngineMode;
import dev.sluice.config.ServerConfig;
import dev.sluice.config.ServerLimits;
import dev.sluice.config.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ReadAheadBudgetTest {

    @Test
    void takesWhatIsAvailableAndGivesItBack() {
        ReadAheadBudget budget = new ReadAheadBudget(100);
        assertThat(budget.tryAcquire(60)).isTrue();
        assertThat(budget.tryAcquire(50)).isFalse();
        assertThat(budget.tryAcquire(40)).isTrue();
        assertThat(budget.available()).isZero();
        budget.release(60);
        budget.release(40);
        assertThat(budget.available()).isEqualTo(100);
        assertThat(budget.held()).isZero();
    }

    @Test
    void aWaiterIsGrantedWhenEnoughIsReleasedAndTheBytesAreTakenForIt() {
        ReadAheadBudget budget = new ReadAheadBudget(100);
        assertThat(budget.tryAcquire(90)).isTrue();
        AtomicInteger told = new AtomicInteger();
        assertThat(budget.acquire(50, n -> told.incrementAndGet())).isFalse();
        assertThat(budget.waiting()).isEqualTo(1);
        budget.release(30); // 40 available: not enough
        assertThat(told).hasValue(0);
        budget.release(60); // 100 available: 50 taken for the waiter
        assertThat(told).hasValue(1);
        assertThat(budget.waiting()).isZero();
        assertThat(budget.available()).isEqualTo(50);
        budget.release(50);
        assertThat(budget.available()).isEqualTo(100);
    }

    @Test
    void waitersAreServedInTheirOrderAndNobodyBargesAhead() {
        ReadAheadBudget budget = new ReadAheadBudget(100);
        assertThat(budget.tryAcquire(100)).isTrue();
        List<String> order = new ArrayList<>();
        budget.acquire(80, n -> order.add("big"));
        budget.acquire(10, n -> order.add("small"));
        assertThat(budget.tryAcquire(1)).as("someone waits: no barging").isFalse();
        budget.release(50); // 50: the big one still does not fit, so the small one waits behind it
        assertThat(order).isEmpty();
        budget.release(50);
        assertThat(order).containsExactly("big", "small");
        assertThat(budget.available()).isEqualTo(10);
    }

    @Test
    void aCancelledWaiterLeavesTheLineAndTheNextIsServed() {
        ReadAheadBudget budget = new ReadAheadBudget(100);
        assertThat(budget.tryAcquire(70)).isTrue();
        AtomicInteger big = new AtomicInteger();
        AtomicInteger small = new AtomicInteger();
        ReadAheadBudget.Grant bigGrant = n -> big.incrementAndGet();
        budget.acquire(80, bigGrant);
        budget.acquire(20, n -> small.incrementAndGet());
        assertThat(small).hasValue(0);
        assertThat(budget.cancel(bigGrant)).isTrue();
        assertThat(small).hasValue(1);
        assertThat(budget.cancel(bigGrant)).as("not in line any more").isFalse();
        assertThat(big).hasValue(0);
        assertThat(budget.available()).isEqualTo(10);
    }

    @Test
    void takeMayGoPastTheBudgetAndReleasingMoreThanTakenIsABug() {
        ReadAheadBudget budget = new ReadAheadBudget(100);
        budget.take(150);
        assertThat(budget.available()).isEqualTo(-50);
        assertThat(budget.tryAcquire(1)).isFalse();
        budget.release(150);
        assertThatThrownBy(() -> budget.release(1)).isInstanceOf(IllegalStateException.class);
        assertThat(budget.available()).isEqualTo(100);
        assertThatThrownBy(() -> budget.tryAcquire(101)).isInstanceOf(IllegalArgumentException.class);
        assertThat(budget.fit(101)).isEqualTo(100);
    }

    @Test
    void manyThreadsTakingWaitingCancellingAndReleasingLeaveTheBudgetWhole() throws Exception {
        ReadAheadBudget budget = new ReadAheadBudget(64 * 1024);
        int threads = 8;
        CountDownLatch done = new CountDownLatch(threads);
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        for (int t = 0; t < threads; t++) {
            Thread.ofPlatform().start(() -> {
                try {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < 20_000; i++) {
                        long n = 1 + random.nextInt(16 * 1024);
                        CountDownLatch granted = new CountDownLatch(1);
                        ReadAheadBudget.Grant grant = bytes -> granted.countDown();
                        if (budget.acquire(n, grant)) {
                            budget.release(n);
                        } else if (random.nextBoolean() && budget.cancel(grant)) {
                            continue; // left the line: holds nothing
                        } else {
                            granted.await();
                            budget.release(n);
                        }
                    }
                } catch (Throwable e) {
                    errors.add(e);
                } finally {
                    done.countDown();
                }
            });
        }
        done.await();
        assertThat(errors).isEmpty();
        assertThat(budget.available()).isEqualTo(64 * 1024);
        assertThat(budget.waiting()).isZero();
    }

    @Test
    void autoIsAQuarterOfTheSmallerMemoryAndAtLeastFourPartsReadAhead() {
        long heap = Runtime.getRuntime().maxMemory();
        long direct = ReadAheadBudget.maxDirectMemory().orElse(heap);
        assertThat(ReadAheadBudget.auto(16384))
                .isEqualTo(Math.max(ReadAheadBudget.MIN_BYTES, Math.min(heap, direct) / 4));
        assertThat(ReadAheadBudget.auto(1 << 30)).isEqualTo(4L << 30);
        ServerConfig server = new ServerConfig(
                "127.0.0.1",
                0,
                EngineMode.REACTIVE,
                1,
                1,
                Duration.ofSeconds(1),
                16384,
                Transport.AUTO,
                ServerLimits.defaults().withMaxReadAhead(1 << 20),
                Optional.empty());
        assertThat(ReadAheadBudget.of(server).capacity()).isEqualTo(1 << 20);
    }
}
