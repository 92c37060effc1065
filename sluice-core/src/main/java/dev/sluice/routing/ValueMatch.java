package dev.sluice.routing;

import static java.util.Objects.requireNonNull;

import java.util.regex.Pattern;

/**
 * What a route requires of one header, query parameter or cookie: present, absent, or a value equal
 * to, starting with, or wholly matched by a regular expression (full-match semantics: {@code beta-[0-9]+}
 * takes {@code beta-7}, never {@code xbeta-7y}). Values are compared case-sensitively.
 */
public sealed interface ValueMatch {

    /** Whether {@code value} (null when the request lacks it) satisfies this requirement. */
    boolean test(String value);

    /**
     * Whether every value this requirement takes is taken by {@code wider} too (for the
     * configuration's shadowing check; conservative: false when unsure).
     */
    boolean impliedBy(ValueMatch wider);

    /** Any value, even empty. */
    enum Present implements ValueMatch {
        INSTANCE;

        @Override
        public boolean test(String value) {
            return value != null;
        }

        @Override
        public boolean impliedBy(ValueMatch wider) {
            return wider == INSTANCE;
        }
    }

    /** No value at all. */
    enum Absent implements ValueMatch {
        INSTANCE;

        @Override
        public boolean test(String value) {
            return value == null;
        }

        @Override
        public boolean impliedBy(ValueMatch wider) {
            return wider == INSTANCE;
        }
    }

    /** The value equals {@code value}. */
    record Exact(String value) implements ValueMatch {
        public Exact {
            requireNonNull(value, "value");
        }

        @Override
        public boolean test(String given) {
            return value.equals(given);
        }

        @Override
        public boolean impliedBy(ValueMatch wider) {
            return wider != Absent.INSTANCE && wider.test(value);
        }
    }

    /** The value starts with {@code prefix}. */
    record Prefix(String prefix) implements ValueMatch {
        public Prefix {
            requireNonNull(prefix, "prefix");
        }

        @Override
        public boolean test(String given) {
            return given != null && given.startsWith(prefix);
        }

        @Override
        public boolean impliedBy(ValueMatch wider) {
            return switch (wider) {
                case Present p -> true;
                case Prefix p -> prefix.startsWith(p.prefix());
                default -> false;
            };
        }
    }

    /**
     * The whole value matches {@code pattern}, compiled once when the configuration loads. Two are
     * equal when their expressions are.
     */
    record Regex(Pattern pattern) implements ValueMatch {
        public Regex {
            requireNonNull(pattern, "pattern");
        }

        /** @throws java.util.regex.PatternSyntaxException when {@code regex} is not a valid expression */
        public static Regex of(String regex) {
            return new Regex(Pattern.compile(regex));
        }

        @Override
        public boolean test(String given) {
            return given != null && pattern.matcher(given).matches();
        }

        @Override
        public boolean impliedBy(ValueMatch wider) {
            return switch (wider) {
                case Present p -> true;
                case Regex r -> r.pattern().pattern().equals(pattern.pattern());
                default -> false;
            };
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Regex r && r.pattern.pattern().equals(pattern.pattern());
        }

        @Override
        public int hashCode() {
            return pattern.pattern().hashCode();
        }

        @Override
        public String toString() {
            return "Regex[" + pattern.pattern() + "]";
        }
    }
}
