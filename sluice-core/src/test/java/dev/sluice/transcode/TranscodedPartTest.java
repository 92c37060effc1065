package dev.sluice.transcode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.DynamicMessage;
import dev.sluice.config.TranscodeConfig;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TranscodedPartTest {

    private final TranscodeSchema schema = ShopDescriptors.schema();
    private final TranscodeConfig config = ShopDescriptors.config(schema);

    private byte[] book(long id) {
        return ShopDescriptors.book(schema, id);
    }

    private static String text(TranscodedPart.Step step) {
        return new String(step.json(), StandardCharsets.UTF_8);
    }

    @Test
    void aPartsPathIsMatchedAsAGetAndItsVariablesFillTheRequestMessage() throws Exception {
        TranscodedPart part = TranscodedPart.open(config, "/v1/shelves/fiction/books/7");
        assertThat(part.grpcPath()).isEqualTo("/shop.Shop/GetBook");
        assertThat(part.streaming()).isFalse();
        var input = schema.method("shop.Shop/GetBook").orElseThrow().getInputType();
        byte[] frame = part.requestFrame();
        DynamicMessage request = DynamicMessage.parseFrom(input, java.util.Arrays.copyOfRange(frame, 5, frame.length));
        assertThat(request.getField(input.findFieldByName("shelf"))).isEqualTo("fiction");
        assertThat(request.getField(input.findFieldByName("id"))).isEqualTo(7L);

        TranscodeConfig named = new TranscodeConfig(
                Path.of("shop.pb"), List.of("shop.Shop"), Optional.of("shop.Shop/ListBooks"), 1024, schema);
        TranscodedPart byMethod = TranscodedPart.open(named, "/anything?shelf=s2");
        assertThat(byMethod.grpcPath()).isEqualTo("/shop.Shop/ListBooks");
        assertThat(byMethod.streaming()).isTrue();

        assertThatThrownBy(() -> TranscodedPart.open(config, "/v1/nothing/here"))
                .isInstanceOfSatisfying(TranscodeException.class, e -> {
                    TranscodedPart.Step refused = TranscodedPart.refusal(e);
                    assertThat(refused.failedStatus()).isEqualTo(404);
                    assertThat(refused.error()).startsWith("gRPC status 5");
                });
        assertThatThrownBy(() -> TranscodedPart.open(config, "/v1/shelves/s/books/notanumber"))
                .isInstanceOfSatisfying(
                        TranscodeException.class,
                        e -> assertThat(TranscodedPart.refusal(e).failedStatus())
                                .isEqualTo(400));
    }

    @Test
    void aUnaryAnswerIsOneObjectAnsweredWithItsMessage() throws Exception {
        TranscodedPart part = TranscodedPart.open(config, "/v1/shelves/s/books/1");
        assertThat(part.head(200, null, null).answered()).isZero();
        TranscodedPart.Step one = part.data(ByteBuffer.wrap(book(1)));
        assertThat(one.answered()).isEqualTo(200);
        assertThat(text(one)).isEqualTo("{\"id\":\"1\"}");
        TranscodedPart.Step end = part.end("0", null);
        assertThat(end.end()).isTrue();
        assertThat(end.answered()).isZero();
        assertThat(end.json()).isEmpty();
        assertThat(end.failed()).isFalse();
    }

    @Test
    void aStreamIsAnArrayWrittenElementByElement() throws Exception {
        TranscodedPart part = TranscodedPart.open(config, "/v1/shelves/s/books");
        byte[] first = book(1);
        assertThat(part.data(ByteBuffer.wrap(first, 0, 3)).json()).isEmpty();
        TranscodedPart.Step one = part.data(ByteBuffer.wrap(first, 3, first.length - 3));
        assertThat(one.answered()).isEqualTo(200);
        assertThat(text(one)).isEqualTo("[{\"id\":\"1\"}");
        assertThat(text(part.data(ByteBuffer.wrap(book(2))))).isEqualTo(",{\"id\":\"2\"}");
        TranscodedPart.Step end = part.end("0", null);
        assertThat(text(end)).isEqualTo("]");
        assertThat(end.end()).isTrue();

        TranscodedPart none = TranscodedPart.open(config, "/v1/shelves/s/books");
        TranscodedPart.Step empty = none.end("0", null);
        assertThat(empty.answered()).isEqualTo(200);
        assertThat(text(empty)).isEqualTo("[]");
    }

    @Test
    void aGrpcErrorFailsThePartWithTheCodesStatusBeforeOrAfterTheFirstElement() throws Exception {
        TranscodedPart trailersOnly = TranscodedPart.open(config, "/v1/shelves/s/books/9");
        TranscodedPart.Step notFound = trailersOnly.head(200, "5", "no%20book%209");
        assertThat(notFound.failed()).isTrue();
        assertThat(notFound.answered()).isZero();
        assertThat(notFound.failedStatus()).isEqualTo(404);
        assertThat(notFound.error()).isEqualTo("gRPC status 5: no book 9");
        assertThat(trailersOnly.end("0", null).json()).isEmpty(); // over: nothing more

        TranscodedPart stream = TranscodedPart.open(config, "/v1/shelves/s/books");
        assertThat(stream.data(ByteBuffer.wrap(book(1))).answered()).isEqualTo(200);
        TranscodedPart.Step cut = stream.end("14", "gone");
        assertThat(cut.failed()).isTrue();
        assertThat(cut.end()).isFalse();
        assertThat(cut.failedStatus()).isEqualTo(503);
        assertThat(cut.error()).isEqualTo("gRPC status 14: gone");

        assertThat(TranscodedPart.open(config, "/v1/shelves/s/books/9")
                        .head(503, null, null)
                        .failedStatus())
                .isEqualTo(502);
        assertThat(TranscodedPart.open(config, "/v1/shelves/s/books/9")
                        .end(null, null)
                        .failedStatus())
                .isEqualTo(500);
        TranscodedPart inside = TranscodedPart.open(config, "/v1/shelves/s/books/9");
        inside.data(ByteBuffer.wrap(book(1), 0, 4));
        assertThat(inside.end("0", null).failedStatus()).isEqualTo(502);
        assertThat(TranscodedPart.open(config, "/v1/shelves/s/books")
                        .cut("the upstream reset the stream")
                        .failedStatus())
                .isEqualTo(502);
    }
}
