package dev.sluice.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Backends;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class WeightedChoiceTest {

    private static final Function<String, List<String>> NO_HEADERS = name -> List.of();

    private static Backends sides(int... weights) {
        return sides(Optional.empty(), weights);
    }

    private static Backends sides(Optional<Backends.Sticky> sticky, int... weights) {
        List<Backends.Backend> backends = new java.util.ArrayList<>();
        for (int i = 0; i < weights.length; i++) {
            backends.add(new Backends.Backend("u" + i, weights[i]));
        }
        return new Backends(backends, sticky);
    }

    @Test
    void theRandomPointFallsInTheSideWhoseWeightRangeHoldsIt() {
        int[] next = {0};
        WeightedChoice choice = WeightedChoice.of(sides(90, 0, 10), bound -> {
            assertThat(bound).isEqualTo(100);
            return next[0];
        });
        for (int point : new int[] {0, 89, 90, 99}) {
            next[0] = point;
            assertThat(choice.pick(NO_HEADERS)).as("point %d", point).isEqualTo(point < 90 ? 0 : 2);
        }
    }

    @Test
    void aSeededSourceSplitsByTheWeights() {
        Random seeded = new Random(31);
        WeightedChoice choice = WeightedChoice.of(sides(90, 10), seeded::nextInt);
        int[] counts = new int[2];
        for (int i = 0; i < 10_000; i++) {
            counts[choice.pick(NO_HEADERS)]++;
        }
        assertThat(counts[1]).isBetween(850, 1150);
    }

    @Test
    void aStickyValueAlwaysPicksTheSameSideAndAMissingOneIsPlacedAtRandom() {
        int[] randoms = {0};
        WeightedChoice choice = WeightedChoice.of(
                sides(Optional.of(new Backends.Sticky(Backends.Sticky.Kind.HEADER, "x-user")), 50, 50), bound -> {
                    randoms[0]++;
                    return 0;
                });
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (int u = 0; u < 50; u++) {
            Map<String, List<String>> headers = Map.of("x-user", List.of("user-" + u));
            int first = choice.pick(name -> headers.getOrDefault(name.toLowerCase(), List.of()));
            for (int again = 0; again < 3; again++) {
                assertThat(choice.pick(name -> headers.getOrDefault(name.toLowerCase(), List.of())))
                        .isEqualTo(first);
            }
            seen.add(first);
        }
        assertThat(seen).as("50 users spread over both sides").containsExactlyInAnyOrder(0, 1);
        assertThat(randoms[0]).isZero();
        choice.pick(NO_HEADERS);
        assertThat(randoms[0]).isEqualTo(1);
    }

    @Test
    void aStickyCookieIsReadFromEveryCookieField() {
        WeightedChoice choice = WeightedChoice.of(
                sides(Optional.of(new Backends.Sticky(Backends.Sticky.Kind.COOKIE, "user")), 1, 1, 1, 1), bound -> {
                    throw new AssertionError("placed at random");
                });
        int one = choice.pick(name -> List.of("user=alice"));
        assertThat(choice.pick(name -> List.of("theme=dark", "user=alice"))).isEqualTo(one);
    }
}
