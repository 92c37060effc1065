package dev.sluice.app;

import java.util.Properties;

/**
 * Netty settings the {@code sluice} command sets before any Netty class loads, each only where the
 * user has not set it ({@code -D} on the command line wins).
 *
 * <ul>
 *   <li>{@code io.netty.leakDetection.level=disabled}: Netty's default ({@code simple}) records a
 *       stack trace for one buffer in 128 and again at its release, a cost on every buffer for a
 *       check the tests make. The engine's tests run at {@code paranoid} and fail on any
 *       leak; {@code -Dio.netty.leakDetection.level=simple} brings the detector back in a deployment.
 * </ul>
 */
final class NettyDefaults {

    static final String LEAK_DETECTION = "io.netty.leakDetection.level";

    private NettyDefaults() {}

    /** Sets what is unset in {@code properties} (the system properties, from {@link Main}). */
    static void apply(Properties properties) {
        if (properties.getProperty(LEAK_DETECTION) == null) {
            properties.setProperty(LEAK_DETECTION, "disabled");
        }
    }
}
