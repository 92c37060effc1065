package dev.sluice.routing;

import static java.util.Objects.requireNonNull;

import dev.sluice.config.Backends;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;

/**
 * Which side of a weighted route ({@link Backends}) a request goes to: decided here for every
 * engine, which only runs the side's route.
 *
 * <pre>
 *   sticky value present ──► hash(value) mod total ─┐
 *   otherwise ─────────────► random(total) ─────────┴─► the side whose weight range holds it
 * </pre>
 *
 * <p>A side of weight 0 is never picked. With a sticky key the same value always lands on the same
 * side while the weights stay the same; a request without the value is placed at random.
 */
public final class WeightedChoice {

    private final int[] bounds; // bounds[i]: the sum of the weights of sides 0..i
    private final int total;
    private final Backends.Sticky sticky; // null: none
    private final IntUnaryOperator random; // bound -> [0, bound)

    private WeightedChoice(Backends backends, IntUnaryOperator random) {
        List<Backends.Backend> sides = backends.sides();
        this.bounds = new int[sides.size()];
        int sum = 0;
        for (int i = 0; i < sides.size(); i++) {
            sum = Math.addExact(sum, sides.get(i).weight());
            bounds[i] = sum;
        }
        this.total = sum;
        this.sticky = backends.sticky().orElse(null);
        this.random = random;
    }

    /** A choice placing requests without a sticky value with {@link ThreadLocalRandom}. */
    public static WeightedChoice of(Backends backends) {
        return of(backends, bound -> ThreadLocalRandom.current().nextInt(bound));
    }

    /**
     * A choice with its own random source (tests).
     *
     * @param random given a bound, a number in {@code [0, bound)}
     */
    public static WeightedChoice of(Backends backends, IntUnaryOperator random) {
        return new WeightedChoice(requireNonNull(backends, "backends"), requireNonNull(random, "random"));
    }

    /**
     * The index of the side for a request.
     *
     * @param headers every value of a request header by name (any case); read only for a sticky key
     */
    public int pick(Function<String, List<String>> headers) {
        String value = sticky == null ? null : stickyValue(headers);
        int point = value == null ? random.applyAsInt(total) : Integer.remainderUnsigned(hash(value), total);
        for (int i = 0; i < bounds.length; i++) {
            if (point < bounds[i]) {
                return i;
            }
        }
        return bounds.length - 1; // not reached: point < total
    }

    private String stickyValue(Function<String, List<String>> headers) {
        return switch (sticky.kind()) {
            case HEADER -> {
                List<String> values = headers.apply(sticky.name());
                yield values == null || values.isEmpty() ? null : values.getFirst();
            }
            case COOKIE -> {
                String joined = RouteTable.joinedCookies(headers.apply("Cookie"));
                yield joined == null ? null : Cookies.value(joined, sticky.name());
            }
        };
    }

    /** FNV-1a over the value's UTF-8, then mixed: the same on every gateway and every restart. */
    static int hash(String value) {
        int h = 0x811c9dc5;
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            h = (h ^ (b & 0xff)) * 0x01000193;
        }
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        return h;
    }
}
