package dev.sluice.app;

import java.util.Properties;

/**
 * Library settings the {@code sluice} command sets before any Netty or Jetty class loads, each only
 * where the user has not set it ({@code -D} on the command line wins).
 *
 * <ul>
 *   <li>{@code io.netty.leakDetection.level=disabled}: Netty's default ({@code simple}) records a
 *       stack trace for one buffer in 128 and again at its release, a cost on every buffer for a
 *       check the tests make. The engine's tests run at {@code paranoid} and fail on any
 *       leak; {@code -Dio.netty.leakDetection.level=simple} brings the detector back in a deployment.
 *   <li>{@code io.netty.jfr.enabled=false}: Netty's allocator declares JFR events, and the first
 *       buffer it allocates registers them with the JVM's flight recorder, whether a recording runs
 *       or not: 60 ms of the gateway's start, on the event loop before its first answer
 *       (docs/MEASUREMENTS.md, session 23). {@code -Dio.netty.jfr.enabled=true} brings the events back
 *       for a JFR recording of the allocator.
 *   <li>{@code org.eclipse.jetty.util.referencesPerCacheLine}: Jetty sizes its queues' padding by
 *       the references in a 64-byte cache line, and, unless told, asks the JVM whether oops are
 *       compressed through the platform MBean server, which it starts for that: 70-85 ms of the
 *       blocking engines' start. Compressed oops (the JVM's default below a 32 GB heap) put 16 in a
 *       line, else 8; a wrong guess only changes padding.
 *   <li>{@code io.netty.allocator.lowMemory=false}: with a heap of 512 MiB or less (the launcher's
 *       96 MB) Netty's adaptive allocator runs in a low-memory mode that pools no buffer over 16,896
 *       bytes and shares its magazines between threads; every larger socket read (a proxied body
 *       arrives in reads of up to 64 KiB) is then a new zero-filled direct buffer. Out of that mode the
 *       reactive engine spends 3-14 % less CPU per proxied request for 3-26 MB more resident memory
 *       (docs/MEASUREMENTS.md, sessions 30-31); {@code -Dio.netty.allocator.lowMemory=true} brings
 *       the mode back.
 *   <li>{@code io.netty.allocator.chunkReuseQueueCapacity=16}: out of that mode, the allocator keeps
 *       four released chunks (twice the processors) for reuse and frees the others; under load it then
 *       makes and zero-fills new ones all the time (4.2 % of a proxied /16k profile's samples). Sixteen
 *       leave none made in that profile.
 * </ul>
 */
final class LibraryDefaults {

    static final String LEAK_DETECTION = "io.netty.leakDetection.level";
    static final String JFR = "io.netty.jfr.enabled";
    static final String LOW_MEMORY_ALLOCATOR = "io.netty.allocator.lowMemory";
    static final String CHUNK_REUSE = "io.netty.allocator.chunkReuseQueueCapacity";
    static final String JETTY_REFERENCES_PER_CACHE_LINE = "org.eclipse.jetty.util.referencesPerCacheLine";
    private static final long COMPRESSED_OOPS_BELOW = 32L << 30;

    private LibraryDefaults() {}

    /** Sets what is unset in {@code properties} (the system properties, from {@link Main}). */
    static void apply(Properties properties) {
        apply(properties, Runtime.getRuntime().maxMemory());
    }

    /** As {@link #apply(Properties)}, for a JVM whose largest heap is {@code maxHeapBytes}. */
    static void apply(Properties properties, long maxHeapBytes) {
        if (properties.getProperty(LEAK_DETECTION) == null) {
            properties.setProperty(LEAK_DETECTION, "disabled");
        }
        if (properties.getProperty(JFR) == null) {
            properties.setProperty(JFR, "false");
        }
        if (properties.getProperty(LOW_MEMORY_ALLOCATOR) == null) {
            properties.setProperty(LOW_MEMORY_ALLOCATOR, "false");
        }
        if (properties.getProperty(CHUNK_REUSE) == null) {
            properties.setProperty(CHUNK_REUSE, "16");
        }
        if (properties.getProperty(JETTY_REFERENCES_PER_CACHE_LINE) == null) {
            properties.setProperty(JETTY_REFERENCES_PER_CACHE_LINE, maxHeapBytes < COMPRESSED_OOPS_BELOW ? "16" : "8");
        }
    }
}
