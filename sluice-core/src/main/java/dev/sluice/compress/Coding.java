package dev.sluice.compress;

import java.util.Locale;
import java.util.Optional;

/** A content coding the gateway can apply to a response body (RFC 9110 section 8.4.1). */
public enum Coding {
    GZIP("gzip"),
    ZSTD("zstd");

    private final String token;

    Coding(String token) {
        this.token = token;
    }

    /** Its name in {@code Accept-Encoding} and {@code Content-Encoding}. */
    public String token() {
        return token;
    }

    /** The coding named {@code token} (case ignored), if the gateway has it. */
    public static Optional<Coding> of(String token) {
        String t = token.trim().toLowerCase(Locale.ROOT);
        for (Coding c : values()) {
            if (c.token.equals(t)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }
}
