package dev.sluice.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.Pace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PacerTest {

    static final long MS = 1_000_000;

    /** A clock the test moves by hand; it starts far from zero, as System.nanoTime may. */
    static final class FakeClock {
        final AtomicLong now = new AtomicLong(-7_000_000_000L);

        long nanos() {
            return now.get();
        }

        void advance(long nanos) {
            now.addAndGet(nanos);
        }
    }

    @Test
    void oneCallPer200msWaitsForItsSlot() {
        FakeClock clock = new FakeClock();
        Pacer pacer = new Pacer(new Pace(1, Duration.ofMillis(200)), clock::nanos);

        assertThat(pacer.reserve()).isZero();
        assertThat(pacer.reserve()).isEqualTo(200 * MS);
        assertThat(pacer.reserve()).isEqualTo(400 * MS);
        clock.advance(250 * MS);
        assertThat(pacer.reserve()).isEqualTo(350 * MS); // slot at 600ms, now 250ms
    }

    @Test
    void anIdlePacerLetsTheNextCallStartAtOnce() {
        FakeClock clock = new FakeClock();
        Pacer pacer = new Pacer(new Pace(1, Duration.ofMillis(200)), clock::nanos);
        assertThat(pacer.reserve()).isZero();
        clock.advance(5_000 * MS);
        assertThat(pacer.reserve()).isZero();
        assertThat(pacer.reserve()).isEqualTo(200 * MS); // idle time is not saved up as a burst
    }

    @Test
    void severalPermitsAreSpreadEvenly() {
        FakeClock clock = new FakeClock();
        Pacer pacer = new Pacer(new Pace(4, Duration.ofSeconds(1)), clock::nanos);
        assertThat(pacer.intervalNanos()).isEqualTo(250 * MS);
        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            waits.add(pacer.reserve());
        }
        assertThat(waits).containsExactly(0L, 250 * MS, 500 * MS, 750 * MS, 1000 * MS, 1250 * MS);
    }

    @Test
    void noWindowHoldsMoreThanPermitsStarts() {
        FakeClock clock = new FakeClock();
        Pace pace = new Pace(3, Duration.ofMillis(100)); // 100ms / 3 does not divide evenly
        Pacer pacer = new Pacer(pace, clock::nanos);
        List<Long> starts = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            clock.advance((i * 7919L) % 40 * MS); // irregular arrivals, often faster than the pace
            starts.add(clock.nanos() + pacer.reserve());
        }
        long per = pace.per().toNanos();
        for (int i = 0; i + pace.permits() < starts.size(); i++) {
            assertThat(starts.get(i + pace.permits()) - starts.get(i))
                    .as("start %d", i)
                    .isGreaterThanOrEqualTo(per);
        }
    }

    @Test
    void concurrentCallersEachGetTheirOwnSlot() throws Exception {
        FakeClock clock = new FakeClock();
        Pacer pacer = new Pacer(new Pace(10, Duration.ofSeconds(1)), clock::nanos);
        int threads = 8;
        int perThread = 500;
        List<Long> waits = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            started.add(Thread.ofPlatform().start(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    waits.add(pacer.reserve());
                }
            }));
        }
        go.countDown();
        for (Thread t : started) {
            t.join(10_000);
        }
        assertThat(waits).hasSize(threads * perThread);
        List<Long> sorted = new ArrayList<>(waits);
        Collections.sort(sorted);
        for (int i = 0; i < sorted.size(); i++) {
            assertThat(sorted.get(i)).isEqualTo(i * 100 * MS); // every slot taken exactly once
        }
    }

    @Test
    void argumentsAreChecked() {
        assertThatThrownBy(() -> new Pacer(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("pace");
        assertThatThrownBy(() -> new Pacer(new Pace(1, Duration.ofSeconds(1)), null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("nanoClock");
    }

    @Test
    void theSystemClockConstructorStartsNow() {
        assertThat(new Pacer(new Pace(1, Duration.ofHours(1))).reserve()).isZero();
    }
}
