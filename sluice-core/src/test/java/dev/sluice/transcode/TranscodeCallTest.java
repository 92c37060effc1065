package dev.sluice.transcode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.TranscodeConfig;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TranscodeCallTest {

    private final TranscodeSchema schema = ShopDescriptors.schema();
    private final TranscodeConfig config = ShopDescriptors.config(schema);

    private byte[] book(long id) {
        return ShopDescriptors.book(schema, id);
    }

    private static String text(TranscodeCall.Step step) {
        return new String(step.body(), StandardCharsets.UTF_8);
    }

    @Test
    void aStreamStartsItsAnswerWithTheFirstMessageAndEndsItWithTheTrailers() throws Exception {
        TranscodeCall call = TranscodeCall.open(config, "GET", "/v1/shelves/s/books", null);
        assertThat(call.grpcPath()).isEqualTo("/shop.Shop/ListBooks");
        assertThat(call.head(200, null, null).status()).isZero();
        byte[] first = book(1);
        TranscodeCall.Step partial = call.data(ByteBuffer.wrap(first, 0, 4));
        assertThat(partial.status()).isZero();
        assertThat(partial.body()).isEmpty();
        TranscodeCall.Step one = call.data(ByteBuffer.wrap(first, 4, first.length - 4));
        assertThat(one.status()).isEqualTo(200);
        assertThat(one.contentType()).isEqualTo("application/json");
        assertThat(text(one)).isEqualTo("[{\"id\":\"1\"}");
        TranscodeCall.Step two = call.data(ByteBuffer.wrap(book(2)));
        assertThat(two.status()).isZero();
        assertThat(text(two)).isEqualTo(",{\"id\":\"2\"}");
        TranscodeCall.Step end = call.end("0", null);
        assertThat(end.end()).isTrue();
        assertThat(text(end)).isEqualTo("]");
    }

    @Test
    void anErrorBeforeAnyMessageIsAJsonAnswerWithItsStatusAndOneAfterMessagesCutsTheAnswer() throws Exception {
        TranscodeCall unary = TranscodeCall.open(config, "GET", "/v1/shelves/s/books/9", "application/json");
        TranscodeCall.Step trailersOnly = unary.head(200, "5", "no%20book%209");
        assertThat(trailersOnly.status()).isEqualTo(404);
        assertThat(trailersOnly.end()).isTrue();
        assertThat(text(trailersOnly)).isEqualTo("{\"code\":5,\"message\":\"no book 9\"}");

        TranscodeCall stream = TranscodeCall.open(config, "GET", "/v1/shelves/s/books", "application/x-ndjson");
        assertThat(stream.data(ByteBuffer.wrap(book(1))).contentType()).isEqualTo("application/x-ndjson");
        TranscodeCall.Step cut = stream.end("14", "gone");
        assertThat(cut.abort()).isTrue();
        assertThat(cut.status()).isZero();

        TranscodeCall http = TranscodeCall.open(config, "GET", "/v1/shelves/s/books/9", null);
        assertThat(http.head(503, null, null).status()).isEqualTo(502);
        TranscodeCall noStatus = TranscodeCall.open(config, "GET", "/v1/shelves/s/books/9", null);
        assertThat(noStatus.end(null, null).status()).isEqualTo(500);
        TranscodeCall empty = TranscodeCall.open(config, "GET", "/v1/shelves/s/books/9", null);
        TranscodeCall.Step ok = empty.end("0", null);
        assertThat(ok.status()).isEqualTo(200);
        assertThat(text(ok)).isEqualTo("{}");
        assertThatThrownBy(() -> TranscodeCall.open(config, "DELETE", "/v1/shelves/s/books/9", null))
                .isInstanceOfSatisfying(
                        TranscodeException.class,
                        e -> assertThat(e.httpStatus()).isEqualTo(404));
    }

    @Test
    void anOversizedMessageIsRefusedAsBadGatewayAndAHundredThousandMessageStreamIsWrittenMessageByMessage()
            throws Exception {
        TranscodeCall big = TranscodeCall.open(config, "GET", "/v1/shelves/s/books", null);
        TranscodeCall.Step refused = big.data(ByteBuffer.wrap(new byte[] {0, 0, 0, 8, 0}));
        assertThat(refused.status()).isEqualTo(502);
        assertThat(text(refused)).contains("\"code\":8");

        TranscodeCall many = TranscodeCall.open(config, "GET", "/v1/shelves/s/books", "text/event-stream");
        byte[] message = book(3);
        long written = 0;
        for (int i = 0; i < 100_000; i++) {
            TranscodeCall.Step step = many.data(ByteBuffer.wrap(message));
            assertThat(new String(step.body(), StandardCharsets.UTF_8)).isEqualTo("data: {\"id\":\"3\"}\n\n");
            written += step.body().length;
        }
        assertThat(written).isEqualTo(1_800_000);
        assertThat(many.end("0", null).end()).isTrue();
    }

    @Test
    void aRouteThatNamesAMethodCallsItWithTheWholeBody() throws Exception {
        TranscodeConfig named = new TranscodeConfig(
                Path.of("shop.pb"), List.of("shop.Shop"), Optional.of("shop.Shop/CreateBook"), 1024, schema);
        TranscodeCall call = TranscodeCall.open(named, "POST", "/anything", null);
        assertThat(call.grpcPath()).isEqualTo("/shop.Shop/CreateBook");
        byte[] frame = call.requestFrame(
                null, "{\"shelf\":\"s\",\"book\":{\"title\":\"T\"}}".getBytes(StandardCharsets.UTF_8));
        assertThat(new String(frame, StandardCharsets.UTF_8)).contains("T");
    }

    @Test
    void aRequestRefusedBeforeAnyCallIsAWholeJsonAnswerWithItsStatus() throws Exception {
        TranscodeCall call = TranscodeCall.open(config, "GET", "/v1/shelves/s/books/seven", null);
        TranscodeException bad = org.junit.jupiter.api.Assertions.assertThrows(
                TranscodeException.class, () -> call.requestFrame(null, new byte[0]));
        TranscodeCall.Step step = TranscodeCall.refused(bad);
        assertThat(step.status()).isEqualTo(400);
        assertThat(step.contentType()).isEqualTo("application/json");
        assertThat(step.end()).isTrue();
        assertThat(step.abort()).isFalse();
        assertThat(text(step)).startsWith("{\"code\":3,\"message\":\"");
    }

    @Test
    void theRoutesTimeoutIsSentAsGrpcTimeoutInMillisecondsOrCoarserUnitsRoundedUp() {
        assertThat(TranscodeCall.requestHeaders(0)).isEqualTo(TranscodeCall.REQUEST_HEADERS);
        assertThat(TranscodeCall.requestHeaders(1_500_000_000L))
                .containsExactly("content-type", "application/grpc", "te", "trailers", "grpc-timeout", "1500m");
        assertThat(TranscodeCall.grpcTimeout(1)).isEqualTo("1m");
        assertThat(TranscodeCall.grpcTimeout(1_500_000_001L)).isEqualTo("1501m");
        assertThat(TranscodeCall.grpcTimeout(99_999_999_000_000L)).isEqualTo("99999999m");
        assertThat(TranscodeCall.grpcTimeout(100_000_000_000_000L)).isEqualTo("100000S");
        assertThat(TranscodeCall.grpcTimeout(Long.MAX_VALUE)).isEqualTo("2562048H");
    }

    @Test
    void anAnswerMessageTheGatewayCannotRelayIsA502BeforeTheAnswerBegan() throws Exception {
        TranscodeCall compressed = TranscodeCall.open(config, "GET", "/v1/shelves/s/books", null);
        TranscodeCall.Step step = compressed.data(ByteBuffer.wrap(new byte[] {1, 0, 0, 0, 1, 0}));
        assertThat(step.status()).isEqualTo(502);
        assertThat(text(step)).startsWith("{\"code\":13,");
        TranscodeCall garbled = TranscodeCall.open(config, "GET", "/v1/shelves/s/books", null);
        assertThat(garbled.data(ByteBuffer.wrap(new byte[] {0, 0, 0, 0, 2, (byte) 0xff, (byte) 0xff}))
                        .status())
                .isEqualTo(502);
    }
}
