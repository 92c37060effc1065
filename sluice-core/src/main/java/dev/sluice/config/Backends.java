package dev.sluice.config;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Optional;

/**
 * {@code backends:} of a proxy route: several upstreams sharing its traffic by weight (a canary, a
 * blue-green switch), with an optional sticky key so that one client stays on one side
 * ({@link dev.sluice.routing.WeightedChoice} picks).
 */
public record Backends(List<Backend> sides, Optional<Sticky> sticky) {
    public Backends {
        sides = List.copyOf(sides);
        requireNonNull(sticky, "sticky");
        if (sides.size() < 2) {
            throw new IllegalArgumentException("sides: " + sides.size() + " (expected: 2 or more)");
        }
        if (sides.stream().mapToLong(Backend::weight).sum() <= 0) {
            throw new IllegalArgumentException("weights: all 0 (expected: at least one above 0)");
        }
    }

    /** One side: an upstream and its share ({@code weight} of the sum of weights). */
    public record Backend(String upstream, int weight) {
        public Backend {
            requireNonNull(upstream, "upstream");
            if (weight < 0) {
                throw new IllegalArgumentException("weight: " + weight + " (expected: 0 or more)");
            }
        }
    }

    /** What keeps a client on one side: the value of a cookie or of a header, hashed. */
    public record Sticky(Kind kind, String name) {
        public enum Kind {
            COOKIE,
            HEADER
        }

        public Sticky {
            requireNonNull(kind, "kind");
            requireNonNull(name, "name");
        }
    }
}
