package dev.sluice.tck;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class GeneratedBodyTest {

    @Test
    void fillAtAnyOffsetAgreesWithAt() {
        GeneratedBody body = GeneratedBody.json(1000);
        for (int offset : new int[] {0, 1, 7, 8, 9, 500, 990}) {
            byte[] buffer = new byte[10];
            body.fill(offset, buffer, 10);
            for (int i = 0; i < 10; i++) {
                assertThat(buffer[i]).as("byte %d", offset + i).isEqualTo(body.at(offset + i));
            }
        }
    }

    @Test
    void streamAndBytesAreTheSameBody() throws IOException {
        GeneratedBody body = GeneratedBody.binary(200_003);
        byte[] streamed = body.stream().readAllBytes();
        assertThat(streamed).containsExactly(body.bytes());
        assertThat(GeneratedBody.sha256(streamed)).isEqualTo(body.sha256());
    }

    @Test
    void jsonBodiesAreOneJsonString() {
        assertThat(Json.parse(GeneratedBody.json(2).bytes())).isEqualTo("");
        assertThat(Json.parse(GeneratedBody.json(70_000).bytes()))
                .asString()
                .hasSize(69_998)
                .matches("[a-z]+");
    }

    @Test
    void bodiesDoNotRepeatAtBufferSizes() {
        byte[] all = GeneratedBody.binary(4 << 20).bytes();
        for (int period : new int[] {8, 4096, 8192, 16384, 65536, 1 << 20}) {
            assertThat(Arrays.equals(all, 0, 4096, all, period, period + 4096))
                    .as("period %d", period)
                    .isFalse();
        }
    }
}
