package dev.sluice.config;

import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/** Parses the configuration's durations ({@code 250ms}, {@code 2s}, {@code 1m}, {@code 1h}) and sizes ({@code 16384}, {@code 16KiB}). */
final class Quantities {

    static final String DURATION_EXPECTED = "a duration such as 250ms, 2s, 1m";

    private Quantities() {}

    /** A positive duration, or empty when {@code text} is not one. */
    static Optional<Duration> duration(String text) {
        int split = digits(text);
        if (split == 0 || split > 12) {
            return Optional.empty();
        }
        long amount = Long.parseLong(text.substring(0, split));
        if (amount <= 0) {
            return Optional.empty();
        }
        return switch (text.substring(split)) {
            case "ms" -> Optional.of(Duration.ofMillis(amount));
            case "s" -> Optional.of(Duration.ofSeconds(amount));
            case "m" -> Optional.of(Duration.ofMinutes(amount));
            case "h" -> Optional.of(Duration.ofHours(amount));
            default -> Optional.empty();
        };
    }

    /**
     * A size in bytes: a plain integer, or an integer followed by {@code B}, {@code KB}/{@code MB}/{@code GB}
     * (powers of 1000) or {@code KiB}/{@code MiB}/{@code GiB} (powers of 1024), case ignored.
     */
    static OptionalLong size(String text) {
        int split = digits(text);
        if (split == 0 || split > 12) {
            return OptionalLong.empty();
        }
        long amount = Long.parseLong(text.substring(0, split));
        String unit = text.substring(split).trim().toLowerCase(Locale.ROOT);
        long factor = switch (unit) {
            case "", "b" -> 1;
            case "kb" -> 1000L;
            case "kib" -> 1024L;
            case "mb" -> 1000L * 1000;
            case "mib" -> 1024L * 1024;
            case "gb" -> 1000L * 1000 * 1000;
            case "gib" -> 1024L * 1024 * 1024;
            default -> -1;
        };
        if (factor < 0) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Math.multiplyExact(amount, factor));
        } catch (ArithmeticException e) {
            return OptionalLong.empty();
        }
    }

    /** How many leading ASCII digits {@code text} has. */
    private static int digits(String text) {
        int i = 0;
        while (i < text.length() && text.charAt(i) >= '0' && text.charAt(i) <= '9') {
            i++;
        }
        return i;
    }
}
