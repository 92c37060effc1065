package dev.sluice.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.lab.run.StableWindow;
import dev.sluice.lab.run.StableWindow.Status;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The averaged window is where the measured throughput is steady, not at fixed seconds. */
class StableWindowTest {

    @Test
    void aJitWarmUpIsLeftOutOfTheWindow() {
        // 20 s: throughput climbs from 300 to 860 req/s over the first 8 s, then holds at 1,000 ± 2 %
        double[] perSecond = new double[20];
        for (int t = 0; t < perSecond.length; t++) {
            perSecond[t] = t < 8 ? 300 + 80 * t : 1000 + (t % 2 == 0 ? 20 : -20);
        }
        int[] fixed = StableWindow.paperProportions(20);

        StableWindow w = StableWindow.choose(perSecond, 0);

        assertThat(w.from()).as("first averaged second").isBetween(6, 8);
        assertThat(w.to()).isEqualTo(20);
        assertThat(mean(perSecond, w.from(), w.to()))
                .as("the window's mean, against the steady 1,000 req/s and the fixed 4–18 s window's")
                .isGreaterThan(970)
                .isGreaterThan(mean(perSecond, fixed[0], fixed[1]) + 30);
        assertThat(w.status()).isEqualTo(Status.STABLE);
        assertThat(w.driftPercent()).isLessThanOrEqualTo(StableWindow.MAX_DRIFT_PERCENT);
        assertThat(w.reason()).isEmpty();
    }

    @Test
    void theFixedProportionsWouldHaveAveragedTheWarmUpIn() {
        assertThat(StableWindow.paperProportions(300)).containsExactly(65, 290);
        assertThat(StableWindow.paperProportions(20)).containsExactly(4, 19);
        assertThat(StableWindow.paperProportions(5)).containsExactly(1, 5);
    }

    @Test
    void burstsAtASteadyLevelAreStable() {
        // every user waits 5 s in step: all responses land in one second of five
        double[] perSecond = new double[60];
        for (int t = 0; t < perSecond.length; t++) {
            perSecond[t] = t % 5 == 0 ? 1000 : 0;
        }

        StableWindow w = StableWindow.choose(perSecond, 0);

        assertThat(w.status()).isEqualTo(Status.STABLE);
        assertThat(w.length()).isGreaterThanOrEqualTo(15);
    }

    private static double mean(double[] values, int from, int to) {
        return Arrays.stream(values, from, to).average().orElseThrow();
    }

    @Test
    void aRunThatNeverSettlesFallsBackAndSaysSo() {
        double[] perSecond = new double[30];
        for (int t = 0; t < perSecond.length; t++) {
            perSecond[t] = 100 * Math.pow(1.1, t);
        }

        StableWindow w = StableWindow.choose(perSecond, 0);

        assertThat(w.status()).isEqualTo(Status.UNSTABLE);
        assertThat(new int[] {w.from(), w.to()}).containsExactly(StableWindow.paperProportions(30));
        assertThat(w.reason())
                .contains("no stretch of 10 s or more whose 5-second rolling means", "paper's proportions used");
    }

    @Test
    void theRampUpIsNeverAveraged() {
        double[] perSecond = new double[40];
        Arrays.fill(perSecond, 500);

        StableWindow w = StableWindow.choose(perSecond, 5);

        assertThat(w.from()).isEqualTo(6);
        assertThat(w.to()).isEqualTo(40);
        assertThat(w.describe()).isEqualTo("6–39 s (34 s)");
    }

    @Test
    void aStableButShortWindowIsFlagged() {
        double[] perSecond = {100, 200, 400, 600, 800, 1000, 1010, 990, 1000, 1005, 995, 1000};

        StableWindow w = StableWindow.choose(perSecond, 0);

        assertThat(w.from()).isBetween(4, 6);
        assertThat(w.to()).isEqualTo(12);
        assertThat(w.status()).isEqualTo(Status.SHORT);
        assertThat(w.reason()).contains("stable for only " + w.length() + " s");
    }

    @Test
    void tooShortToJudgeFallsBack() {
        StableWindow w = StableWindow.choose(new double[] {900, 1000, 1000, 1000, 1000}, 0);

        assertThat(w.status()).isEqualTo(Status.UNSTABLE);
        assertThat(w.reason()).contains("too short");
        assertThat(new int[] {w.from(), w.to()}).containsExactly(1, 5);
    }
}
