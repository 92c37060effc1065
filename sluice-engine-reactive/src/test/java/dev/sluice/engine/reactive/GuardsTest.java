package dev.sluice.engine.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.blockhound.BlockingOperationError;
import reactor.netty.resources.LoopResources;

/** The guards the other tests rely on really catch what they are for. */
@ExtendWith(LeakGuard.class)
class GuardsTest {

    @Test
    void blockingOnAnEventLoopIsCaught() throws Exception {
        LoopResources loops = LoopResources.create("guards-test", 1, true);
        try {
            CompletableFuture<Throwable> caught = new CompletableFuture<>();
            loops.onServer(LoopResources.DEFAULT_NATIVE).next().execute(() -> {
                try {
                    Thread.sleep(1);
                    caught.complete(null);
                } catch (Throwable t) {
                    caught.complete(t);
                }
            });
            assertThat(caught.get(10, TimeUnit.SECONDS)).isInstanceOf(BlockingOperationError.class);
        } finally {
            loops.disposeLater(Duration.ZERO, Duration.ofSeconds(5)).block();
        }
    }

    @Test
    void aLeakedBufferIsReported() throws Exception {
        assertThat(LeakGuard.installed())
                .as("the recording leak detector factory is in place")
                .isTrue();
        leakOne();
        List<String> leaks = List.of();
        for (int attempt = 0; attempt < 10 && leaks.isEmpty(); attempt++) {
            leaks = LeakGuard.collect();
        }
        assertThat(leaks).as("the planted leak, and no other").hasSize(1);
        assertThat(leaks.getFirst()).startsWith("LEAK: ").contains("planted-by-guards-test");
    }

    private static void leakOne() {
        ByteBuf leaked = ByteBufAllocator.DEFAULT.directBuffer(16);
        leaked.writeLong(42);
        leaked.touch("planted-by-guards-test");
        // dropped without release()
    }
}
