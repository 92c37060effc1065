package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class GrpcWebCutShortTest {

    /** Two frames: a message of 3 bytes and one of 300 (a length over one byte). */
    private static final byte[] ANSWER = ByteBuffer.allocate(5 + 3 + 5 + 300)
            .put((byte) 0)
            .putInt(3)
            .put(new byte[] {1, 2, 3})
            .put((byte) 1)
            .putInt(300)
            .put(new byte[300])
            .array();

    @Test
    void framesAreCountedAcrossPiecesCutAnywhere() {
        for (int cut = 0; cut <= ANSWER.length; cut++) {
            for (int split = 0; split <= cut; split++) {
                GrpcWeb.Frames frames = new GrpcWeb.Frames();
                ByteBuffer first = ByteBuffer.wrap(ANSWER, 0, split);
                frames.pass(first);
                frames.pass(ByteBuffer.wrap(ANSWER, split, cut - split));
                assertThat(first.position()).isZero();
                assertThat(frames.between())
                        .as("cut at %d, split at %d", cut, split)
                        .isEqualTo(cut == 0 || cut == 8 || cut == ANSWER.length);
            }
        }
    }

    @Test
    void aCutBetweenFramesEndsWithAnUnavailableTrailerFrame() {
        GrpcWeb.Frames frames = new GrpcWeb.Frames();
        frames.pass(ByteBuffer.wrap(ANSWER, 0, 8));
        ByteBuffer frame = GrpcWeb.of("application/grpc-web").cutShort(frames).orElseThrow();
        assertThat(frame.get(0)).isEqualTo((byte) 0x80);
        String block = StandardCharsets.ISO_8859_1
                .decode(frame.slice(5, frame.remaining() - 5))
                .toString();
        assertThat(block).isEqualTo("grpc-status: 14\r\ngrpc-message: " + GrpcWeb.CUT_SHORT_MESSAGE + "\r\n");

        ByteBuffer text =
                GrpcWeb.of("application/grpc-web-text").cutShort(frames).orElseThrow();
        byte[] encoded = new byte[text.remaining()];
        text.get(encoded);
        assertThat(Base64.getDecoder().decode(encoded)[0]).isEqualTo((byte) 0x80);
    }

    @Test
    void aCutInsideAFrameHasNoEndTheClientCouldRead() {
        GrpcWeb.Frames frames = new GrpcWeb.Frames();
        frames.pass(ByteBuffer.wrap(ANSWER, 0, 10));
        assertThat(GrpcWeb.of("application/grpc-web").cutShort(frames)).isEmpty();
    }

    @Test
    void unknownLengthsGoChunkedToEveryHttp11ClientAndNeverToHttp10() {
        assertThat(ResponseHeadCheck.chunksUnknownLength(true, false, 200)).isTrue();
        assertThat(ResponseHeadCheck.chunksUnknownLength(false, false, 200)).isFalse();
        assertThat(ResponseHeadCheck.chunksUnknownLength(true, true, 200)).isFalse();
        assertThat(ResponseHeadCheck.chunksUnknownLength(true, false, 304)).isFalse();
    }
}
