package dev.sluice.config;

import java.util.Locale;
import java.util.Optional;

/** The socket transport under the gateway: {@code server.transport} in the configuration. */
public enum Transport {
    /** io_uring for the {@code reactive} engine where the kernel allows it, Java NIO otherwise. */
    AUTO,
    /** Java NIO (selectors; for virtual threads, the JDK's poller): works everywhere. */
    NIO,
    /** Linux io_uring, {@code reactive} engine only; the gateway refuses to start without it. */
    IO_URING;

    /** The configuration spelling: {@code auto}, {@code nio}, {@code io_uring}. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<Transport> fromKey(String key) {
        for (Transport transport : values()) {
            if (transport.key().equals(key)) {
                return Optional.of(transport);
            }
        }
        return Optional.empty();
    }
}
