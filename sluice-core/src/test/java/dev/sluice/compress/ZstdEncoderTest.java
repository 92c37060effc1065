package dev.sluice.compress;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ZstdEncoderTest {

    @Test
    void aStreamedBodyIsOneZstdFrameTheReferenceDecoderReads() throws IOException {
        byte[] body = new byte[3_000_000];
        Random random = new Random(7);
        for (int i = 0; i < body.length; i++) { // compressible, not trivially
            body[i] = (byte) ('a' + random.nextInt(8));
        }
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        try (ZstdEncoder encoder = new ZstdEncoder(3)) {
            int at = 0;
            for (int size = 1; at < body.length; size = size * 3 % 70_001 + 1) {
                int n = Math.min(size, body.length - at);
                ByteBuffer input = at % 3 == 0
                        ? ByteBuffer.allocateDirect(n).put(body, at, n).flip()
                        : ByteBuffer.wrap(body, at, n);
                int before = input.position();
                copy(encoder.encode(input, at % 2 == 0), wire);
                assertThat(input.position())
                        .as("the input's position is left alone")
                        .isEqualTo(before);
                at += n;
            }
            copy(encoder.finish(ByteBuffer.allocate(0)), wire);
            assertThat(encoder.isFinished()).isTrue();
        }
        byte[] decoded;
        try (InputStream in = new ZstdInputStreamNoFinalizer(new ByteArrayInputStream(wire.toByteArray()))) {
            decoded = in.readAllBytes();
        }
        assertThat(decoded).isEqualTo(body);
        assertThat(wire.size()).isLessThan(body.length / 2);
    }

    @Test
    void whatIsFlushedDecodesBeforeTheFrameEnds() throws IOException {
        byte[] first = "{\"fast\":{\"a\":1,\"b\":[1,2,3]}".getBytes(StandardCharsets.UTF_8);
        try (ZstdEncoder encoder = new ZstdEncoder(19)) {
            ByteBuffer out = encoder.encode(first, 0, first.length, true);
            byte[] wire = new byte[out.remaining()];
            out.get(wire);
            assertThat(encoder.isFinished()).isFalse();
            try (ZstdInputStreamNoFinalizer in = new ZstdInputStreamNoFinalizer(new ByteArrayInputStream(wire))) {
                in.setContinuous(true); // the frame is not over: read what its blocks so far hold
                byte[] decoded = in.readNBytes(first.length);
                assertThat(decoded).isEqualTo(first);
            }
        }
    }

    @Test
    void anUnfinishedEncoderClosesWithoutWriting() {
        ZstdEncoder encoder = new ZstdEncoder(1);
        encoder.encode(ByteBuffer.wrap(new byte[100]), false);
        encoder.close();
        encoder.close(); // twice: nothing more
        assertThat(encoder.isFinished()).isFalse();
    }

    @Test
    void zstdLoadsHere() {
        assertThat(ZstdEncoder.unavailable()).isEmpty();
    }

    private static void copy(ByteBuffer from, ByteArrayOutputStream to) {
        byte[] bytes = new byte[from.remaining()];
        from.get(bytes);
        to.writeBytes(bytes);
    }
}
