package dev.sluice.config;

import java.util.Locale;
import java.util.Optional;

/** How an engine runs requests: {@code server.engine} in the configuration. */
public enum EngineMode {
    /** A virtual thread per request, blocking style (Jetty core + blocking client). */
    VIRTUAL,
    /** A bounded pool of platform threads, blocking style: the classic baseline. */
    PLATFORM,
    /** Netty event loops with Reactor Netty server and client. */
    REACTIVE;

    /** The configuration spelling: {@code virtual}, {@code platform}, {@code reactive}. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<EngineMode> fromKey(String key) {
        for (EngineMode mode : values()) {
            if (mode.key().equals(key)) {
                return Optional.of(mode);
            }
        }
        return Optional.empty();
    }
}
