package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class GrpcWebTextTest {

    private static byte[] decode(String text, int... cuts) throws GrpcWebText.Malformed {
        byte[] in = text.getBytes(StandardCharsets.ISO_8859_1);
        GrpcWebText.Decoder decoder = new GrpcWebText.Decoder();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int from = 0;
        for (int cut : cuts) {
            append(out, decoder.decode(ByteBuffer.wrap(in, from, cut - from)));
            from = cut;
        }
        append(out, decoder.decode(ByteBuffer.wrap(in, from, in.length - from)));
        append(out, decoder.finish());
        return out.toByteArray();
    }

    private static void append(ByteArrayOutputStream out, ByteBuffer piece) {
        byte[] bytes = new byte[piece.remaining()];
        piece.get(bytes);
        out.writeBytes(bytes);
    }

    @Test
    void decodesAcrossPiecesSplitAnywhere() throws Exception {
        byte[] message = "a gRPC-Web message of some length".getBytes(StandardCharsets.UTF_8);
        String text = Base64.getEncoder().encodeToString(message);
        for (int a = 0; a <= text.length(); a++) {
            for (int b = a; b <= text.length(); b++) {
                assertThat(decode(text, a, b)).as("cut at %d, %d", a, b).isEqualTo(message);
            }
        }
    }

    @Test
    void takesPaddingBetweenMessages() throws Exception {
        String text = Base64.getEncoder().encodeToString(new byte[] {1})
                + Base64.getEncoder().encodeToString(new byte[] {2, 3})
                + Base64.getEncoder().encodeToString(new byte[] {4, 5, 6});
        assertThat(text).isEqualTo("AQ==AgM=BAUG");
        assertThat(decode(text, 3, 7)).containsExactly(1, 2, 3, 4, 5, 6);
    }

    @Test
    void agreesWithJavaOnRandomValidInput() throws Exception {
        Random random = new Random(42);
        for (int i = 0; i < 500; i++) {
            byte[] data = new byte[random.nextInt(40)];
            random.nextBytes(data);
            String text = Base64.getEncoder().withoutPadding().encodeToString(data);
            if (random.nextBoolean()) {
                text = Base64.getEncoder().encodeToString(data);
            }
            int a = random.nextInt(text.length() + 1);
            assertThat(decode(text, a)).isEqualTo(Base64.getDecoder().decode(text));
        }
    }

    @Test
    void refusesWhatIsNotBase64() {
        for (String bad : List.of("QQ=A", "Q===", "=QQQ", "QQ-A", "QQ=", "Q", "QUJD\nQUJD", "QUJ\u00e9")) {
            assertThatThrownBy(() -> decode(bad, 1)).as(bad).isInstanceOf(GrpcWebText.Malformed.class);
        }
    }

    @Test
    void readsGrpcWebContentTypes() {
        assertThat(GrpcWeb.of("application/grpc-web").text()).isFalse();
        assertThat(GrpcWeb.of("Application/gRPC-Web-Text+proto; charset=x").text())
                .isTrue();
        assertThat(GrpcWeb.of("application/grpc-web-text+proto").contentType())
                .isEqualTo("application/grpc-web-text+proto");
        assertThat(GrpcWeb.of("application/grpc-web+proto").upstreamContentType())
                .isEqualTo("application/grpc+proto");
        assertThat(GrpcWeb.of("application/grpc")).isNull();
        assertThat(GrpcWeb.of("application/grpc-webx")).isNull();
        assertThat(GrpcWeb.of(null)).isNull();
        assertThat(GrpcWeb.answerContentType("application/grpc-web-text")).isEqualTo("application/grpc-web-text");
        assertThat(GrpcWeb.answerContentType("application/grpc")).isEqualTo("application/grpc");
    }

    @Test
    void theTrailersAreOneLastFrameWithLowercaseNames() {
        ByteBuffer frame = GrpcWeb.of("application/grpc-web")
                .trailerFrame(List.of(Map.entry("Grpc-Status", "0"), Map.entry("te", "x"), Map.entry("x-a", "b")));
        byte[] bytes = new byte[frame.remaining()];
        frame.get(bytes);
        String block = "grpc-status: 0\r\nx-a: b\r\n";
        assertThat(bytes[0]).isEqualTo((byte) 0x80);
        assertThat(ByteBuffer.wrap(bytes, 1, 4).getInt()).isEqualTo(block.length());
        assertThat(new String(bytes, 5, bytes.length - 5, StandardCharsets.ISO_8859_1))
                .isEqualTo(block);
        ByteBuffer text = GrpcWeb.of("application/grpc-web-text")
                .trailerFrame(List.of(Map.entry("grpc-status", "0"), Map.entry("x-a", "b")));
        byte[] encoded = new byte[text.remaining()];
        text.get(encoded);
        assertThat(Base64.getDecoder().decode(encoded)).isEqualTo(bytes);
    }
}
