package dev.sluice.engine.blocking;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RingPoolTest {

    @Test
    void ringsComeInPowerOfTwoSizesAndAreReused() {
        RingPool pool = new RingPool(1 << 20);
        byte[] ring = pool.take(16_385, 64 * 1024);
        assertThat(ring).hasSize(32 * 1024);
        pool.give(ring);
        assertThat(pool.take(20_000, 64 * 1024))
                .as("the same class, handed out again")
                .isSameAs(ring);
        assertThat(pool.take(20_000, 64 * 1024)).as("taken once only").isNotSameAs(ring);
    }

    @Test
    void smallRingsAreAtLeastOneKilobyte() {
        RingPool pool = new RingPool(1 << 20);
        assertThat(pool.take(1, 64 * 1024)).hasSize(1024);
    }

    @Test
    void aRingNeverExceedsTheReadAheadWhenRoundingWould() {
        RingPool pool = new RingPool(1 << 20);
        byte[] exact = pool.take(90_000, 100_000); // 128 KB would exceed a 100,000-byte read-ahead
        assertThat(exact).hasSize(90_000);
        pool.give(exact);
        assertThat(pool.take(90_000, 100_000)).as("odd sizes are not kept").isNotSameAs(exact);
        assertThat(pool.take(100_000, 100_000)).hasSize(100_000);
    }

    @Test
    void ringsOverOneMegabyteAreNotPooled() {
        RingPool pool = new RingPool(64 << 20);
        byte[] big = pool.take(2 << 20, 4 << 20);
        assertThat(big).hasSize(2 << 20);
        pool.give(big);
        assertThat(pool.take(2 << 20, 4 << 20)).isNotSameAs(big);
    }

    @Test
    void aFullClassDropsWhatIsGivenBack() {
        RingPool pool = new RingPool(0); // keeps the minimum: two rings per class
        byte[] a = pool.take(1024, 4096);
        byte[] b = pool.take(1024, 4096);
        byte[] c = pool.take(1024, 4096);
        pool.give(a);
        pool.give(b);
        pool.give(c);
        assertThat(pool.take(1024, 4096)).isSameAs(a);
        assertThat(pool.take(1024, 4096)).isSameAs(b);
        assertThat(pool.take(1024, 4096)).as("c was dropped").isNotSameAs(c);
    }
}
