package dev.sluice.engine.reactive;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import reactor.blockhound.BlockHound;

/**
 * The reactive engine's test guards, installed before any Netty buffer exists:
 *
 * <ul>
 *   <li>BlockHound: a blocking call on an event loop throws (and fails the exchange, hence the test);
 *   <li>Netty leak detection (run with {@code -Dio.netty.leakDetection.level=paranoid}): every leak
 *       report is recorded, and after each test class the guard provokes detection (GC, then
 *       allocations) and fails the class if any {@code LEAK:} was reported.
 * </ul>
 *
 * Use it on every test class of this module: {@code @ExtendWith(LeakGuard.class)}.
 */
public final class LeakGuard implements AfterAllCallback {

    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();

    static {
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
        // Two waits inside Netty that are short and bounded, not I/O, allowed by name:
        // - Netty 4.2's default (adaptive) allocator frees a shared magazine under its StampedLock
        //   when it grows the magazine group; another loop allocating from that magazine holds it for
        //   a few instructions. BlockHound reported the park as a blocking call, which failed the
        //   exchange mid-body: a response cut short under 1,000 concurrent requests, now and then.
        // - the io_uring loop spins (Thread.onSpinWait) for its wake-up gate while it shuts down.
        // And one write that is I/O but rare and short: a log event written to the console (an error
        // or a warning logged on an event loop, as the gateway and Netty do).
        BlockHound.install(
                builder -> builder.allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$Magazine", "free")
                        .allowBlockingCallsInside("io.netty.channel.uring.IoUringIoHandler", "closeWakeupGate")
                        .allowBlockingCallsInside("ch.qos.logback.core.OutputStreamAppender", "subAppend"));
    }

    @Override
    public void afterAll(ExtensionContext context) throws InterruptedException {
        List<String> leaks = collect();
        if (!leaks.isEmpty()) {
            throw new AssertionError("LEAK: " + leaks.size() + " ByteBuf leak(s) reported during "
                    + context.getDisplayName() + " (expected: none)\n" + String.join("\n----\n", leaks));
        }
    }

    /** Provokes leak detection and returns (and forgets) every leak reported so far. */
    static List<String> collect() throws InterruptedException {
        for (int round = 0; round < 3; round++) {
            System.gc();
            Thread.sleep(100);
            for (int i = 0; i < 64; i++) {
                ByteBufAllocator.DEFAULT.buffer(8).release();
                PooledByteBufAllocator.DEFAULT.directBuffer(8).release();
                Unpooled.buffer(8).release();
            }
        }
        List<String> leaks = new ArrayList<>(LEAKS);
        LEAKS.removeAll(leaks);
        return leaks;
    }

    /** Whether the guard is the factory behind every leak detector (it must be installed first). */
    static boolean installed() {
        return ResourceLeakDetectorFactory.instance() instanceof RecordingFactory;
    }

    private static final class RecordingFactory extends ResourceLeakDetectorFactory {
        @Override
        @SuppressWarnings("deprecation")
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(
                Class<T> resource, int samplingInterval, long maxActive) {
            return newResourceLeakDetector(resource, samplingInterval);
        }

        @Override
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval) {
            return new ResourceLeakDetector<>(resource, samplingInterval) {
                @Override
                protected boolean needReport() {
                    return true;
                }

                @Override
                protected void reportTracedLeak(String resourceType, String records) {
                    LEAKS.add("LEAK: " + resourceType + ".release() was not called before it was garbage-collected."
                            + records);
                    super.reportTracedLeak(resourceType, records);
                }

                @Override
                protected void reportUntracedLeak(String resourceType) {
                    LEAKS.add("LEAK: " + resourceType + ".release() was not called before it was garbage-collected.");
                    super.reportUntracedLeak(resourceType);
                }
            };
        }
    }
}
