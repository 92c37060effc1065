package dev.sluice.compress;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;
import org.junit.jupiter.api.Test;

class GzipEncoderTest {

    @Test
    void aStreamedBodyIsOneGzipMemberTheJdkReads() throws IOException {
        byte[] body = new byte[3_000_000];
        Random random = new Random(7);
        for (int i = 0; i < body.length; i++) { // compressible, not trivially
            body[i] = (byte) ('a' + random.nextInt(8));
        }
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        try (GzipEncoder encoder = new GzipEncoder(6)) {
            int at = 0;
            for (int size = 1; at < body.length; size = size * 3 % 70_001 + 1) {
                int n = Math.min(size, body.length - at);
                ByteBuffer direct =
                        ByteBuffer.allocateDirect(n).put(body, at, n).flip();
                copy(encoder.encode(direct, at % 2 == 0), wire);
                assertThat(direct.remaining())
                        .as("the input's position is left alone")
                        .isEqualTo(n);
                at += n;
            }
            copy(encoder.finish(ByteBuffer.allocate(0)), wire);
            assertThat(encoder.isFinished()).isTrue();
        }
        byte[] decoded = new GZIPInputStream(new ByteArrayInputStream(wire.toByteArray())).readAllBytes();
        assertThat(decoded).isEqualTo(body);
        assertThat(wire.size()).isLessThan(body.length / 2);
    }

    @Test
    void whatIsFlushedDecompressesBeforeTheBodyEnds() throws Exception {
        byte[] first = "{\"fast\":{\"a\":1,\"b\":[1,2,3]}".getBytes(StandardCharsets.UTF_8);
        try (GzipEncoder encoder = new GzipEncoder(9)) {
            ByteBuffer out = encoder.encode(first, 0, first.length, true);
            byte[] wire = new byte[out.remaining()];
            out.get(wire);
            Inflater inflater = new Inflater(true);
            inflater.setInput(wire, 10, wire.length - 10); // past the gzip header
            byte[] decoded = new byte[first.length];
            assertThat(inflater.inflate(decoded)).isEqualTo(first.length);
            assertThat(decoded).isEqualTo(first);
            inflater.end();
        }
    }

    @Test
    void anEmptyBodyIsAValidMember() throws IOException {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        try (GzipEncoder encoder = new GzipEncoder(1)) {
            copy(encoder.finish(ByteBuffer.allocate(0)), wire);
        }
        assertThat(new GZIPInputStream(new ByteArrayInputStream(wire.toByteArray())).readAllBytes())
                .isEmpty();
    }

    private static void copy(ByteBuffer bytes, ByteArrayOutputStream to) {
        byte[] array = new byte[bytes.remaining()];
        bytes.get(array);
        to.writeBytes(array);
    }
}
